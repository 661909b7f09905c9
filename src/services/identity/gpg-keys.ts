import { GpgKey, type User } from '../../db/entities/index.js';
import { BadRequestError } from '../../errors.js';
import type { GpgKey as GpgKeyShape } from '../../schemas/keys.js';
import { presentGpgKey, presentGpgKeys } from '../present/gpg-keys.js';
import { UserItemsService } from './user-items.js';
import { Problems } from './user-validation.js';

const BEGIN = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
const END = '-----END PGP PUBLIC KEY BLOCK-----';
const FORMAT_MESSAGE = `is invalid. A valid public GPG key begins with '${BEGIN}' and ends with '${END}'`;

/**
 * The original's format rule: one public key block, something inside it, nothing around it. Plain string
 * searches: a regular expression that steps through the key one character at a time overflows the stack
 * on a key of a few megabytes.
 */
const isArmoredPublicKey = (text: string): boolean =>
  text.length > BEGIN.length + END.length && text.startsWith(BEGIN) && text.endsWith(END) && !text.includes(BEGIN, BEGIN.length);

export class GpgKeysService extends UserItemsService<GpgKey, GpgKeyShape> {
  protected readonly kind = { entity: GpgKey, notFound: 'GPG Key', orderBy: { id: 'asc' }, present: presentGpgKeys } as const;

  protected named(owner: User, id: number) {
    return { id, user: owner };
  }

  /** `key` is the armored public key block; `key_id` is accepted as its other spelling. */
  async create(owner: User, input: { key?: string; key_id?: string }): Promise<GpgKeyShape> {
    const armored = (input.key ?? input.key_id)?.trim();
    if (armored === undefined) throw BadRequestError.missing('key');
    const problems = new Problems();
    let fingerprint: string | undefined;
    let primaryKeyid: string | undefined;
    if (!isArmoredPublicKey(armored)) problems.add('key', FORMAT_MESSAGE);
    else {
      const { readKey } = await import('openpgp'); // on first use: importing forgekit stays fast
      try {
        const key = await readKey({ armoredKey: armored });
        if (key.isPrivate()) problems.add('key', FORMAT_MESSAGE);
        else {
          fingerprint = key.getFingerprint().toUpperCase();
          // Not the fingerprint's tail: a version 6 key's ID is the head of its fingerprint.
          primaryKeyid = key.getKeyID().toHex().toUpperCase();
        }
      } catch {
        problems.add('key', 'is invalid');
      }
    }
    if (!fingerprint) problems.add('fingerprint', "can't be blank");
    else if (await this.ctx.em.count(GpgKey, { fingerprint })) problems.add('fingerprint', 'has already been taken');
    if (problems.any || !fingerprint || !primaryKeyid) throw new BadRequestError(problems.messages);
    const key = this.ctx.em.create(GpgKey, { user: owner, key: armored, fingerprint, primaryKeyid });
    await this.ctx.em.flush();
    return presentGpgKey(key, await this.ctx.view());
  }
}
