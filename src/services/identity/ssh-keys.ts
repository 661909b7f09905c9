import type sshpk from 'sshpk';
import { SshKey, type User } from '../../db/entities/index.js';
import { takenAttribute } from '../../db/unique.js';
import { BadRequestError } from '../../errors.js';
import type { CreateSshKeyInput, SshKey as SshKeyShape } from '../../schemas/keys.js';
import type { SettingsValues } from '../../schemas/settings.js';
import { presentSshKey, presentSshKeys } from '../present/ssh-keys.js';
import { UserItemsService } from './user-items.js';
import { Problems, TAKEN } from './user-validation.js';

const KEY_TYPES = ['rsa', 'dsa', 'ecdsa', 'ed25519'] as const;
type KeyType = (typeof KEY_TYPES)[number];

const restrictionOf = (settings: SettingsValues, type: KeyType): number => settings[`${type}_key_restriction`];

/** "DSA, ECDSA, or ED25519": the key types the settings still allow. */
function allowedTypes(settings: SettingsValues): string {
  const names = KEY_TYPES.filter((type) => restrictionOf(settings, type) !== -1).map((type) => type.toUpperCase());
  return names.length <= 2 ? names.join(' or ') : `${names.slice(0, -1).join(', ')}, or ${names.at(-1)}`;
}

export class SshKeysService extends UserItemsService<SshKey, SshKeyShape> {
  protected readonly kind = { entity: SshKey, notFound: 'Key', orderBy: { id: 'asc' }, present: presentSshKeys } as const;

  protected named(owner: User, id: number) {
    return { id, user: owner };
  }

  async create(owner: User, input: CreateSshKeyInput): Promise<SshKeyShape> {
    const problems = new Problems();
    if (input.title.trim() === '') problems.add('title', "can't be blank");
    // One line: keys pasted from a terminal often carry line breaks. (Lengths are bounded by the schema.)
    const text = input.key.replace(/[\r\n]+/g, '').trim();
    const { parseKey } = (await import('sshpk')).default; // on first use: importing forgekit stays fast
    let parsed: sshpk.Key | undefined;
    try {
      parsed = parseKey(text, 'ssh');
    } catch {
      problems.add('key', 'is invalid');
      problems.add('fingerprint', 'cannot be generated');
    }
    let fingerprint: string | undefined;
    if (parsed) {
      fingerprint = parsed.fingerprint('md5').toString('hex');
      const settings = await this.ctx.settings();
      const type = parsed.type as KeyType;
      const minimum = KEY_TYPES.includes(type) ? restrictionOf(settings, type) : -1;
      if (minimum === -1) problems.add('key', `type is forbidden. Must be ${allowedTypes(settings)}`);
      else if (parsed.size < minimum) problems.add('key', `must be at least ${minimum} bits`);
      if (await this.ctx.em.count(SshKey, { fingerprint })) {
        problems.add('key', TAKEN);
        problems.add('fingerprint', TAKEN);
      }
    }
    if (problems.any || !fingerprint) throw new BadRequestError(problems.messages);
    const key = this.ctx.em.create(SshKey, { user: owner, title: input.title, key: text, fingerprint });
    // Taken by a concurrent call after the check above: the same answer as if it had been first.
    await this.ctx.em.flush().catch((error: unknown) => {
      throw takenAttribute(error) ? new BadRequestError({ key: [TAKEN], fingerprint: [TAKEN] }) : error;
    });
    await this.recordEvent('key.created', owner, key);
    return presentSshKey(key, await this.ctx.view());
  }

  override async delete(owner: User, id: number): Promise<void> {
    const key = await this.find(owner, id);
    await this.ctx.em.remove(key).flush();
    await this.recordEvent('key.destroyed', owner, key);
  }

  /** An event of a user's SSH key, by the caller (the user, or an administrator). */
  private recordEvent(kind: 'key.created' | 'key.destroyed', owner: User, key: SshKey): Promise<unknown> {
    const target = { type: 'Key', id: key.id, title: key.title };
    return this.ctx.record({ kind, authorId: this.ctx.currentUser.id, target, data: { user_id: owner.id, key: key.key } });
  }
}
