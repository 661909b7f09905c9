import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { generateToken, tokenDigest } from './secrets.js';

/**
 * Secrets forgekit must show again (a project's runners token, to its maintainers), stored sealed: AES-256-GCM
 * under a key made from the instance's secret key, so that the database alone does not give them away. Secrets
 * that only need checking (passwords, access tokens) are stored as digests and hashes instead (secrets.ts).
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secretKey: string) {
    this.key = createHash('sha256').update(secretKey).digest();
  }

  /** `v1:` and the base64 of a random 12-byte IV, the 16-byte tag and the ciphertext. */
  seal(text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
  }

  /** The text sealed; throws if it was sealed under another key or changed since. */
  open(sealed: string): string {
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** A new project's runners token: sealed to be shown to its maintainers, and its digest to be found by. */
export function newRunnersToken(secrets: SecretBox): { runnersTokenSealed: string; runnersTokenDigest: string } {
  const token = generateToken();
  return { runnersTokenSealed: secrets.seal(token), runnersTokenDigest: tokenDigest(token) };
}
