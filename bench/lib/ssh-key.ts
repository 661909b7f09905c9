import { createHash, generateKeyPairSync } from 'node:crypto';

/** A new ed25519 public key in OpenSSH format, as `ssh-keygen` writes it. */
export function sshKey(): string {
  const { x } = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  const field = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  const blob = Buffer.concat([field(Buffer.from('ssh-ed25519')), field(Buffer.from(x as string, 'base64url'))]);
  return `ssh-ed25519 ${blob.toString('base64')} bench@forgekit`;
}

/** An OpenSSH public key's MD5 fingerprint (`aa:bb:...`), as forgekit stores it; undefined when the key holds no blob. */
export function fingerprint(key: string): string | undefined {
  const blob = Buffer.from(key.split(' ')[1] ?? '', 'base64');
  return blob.length
    ? createHash('md5')
        .update(blob)
        .digest('hex')
        .replace(/(..)(?!$)/g, '$1:')
    : undefined;
}
