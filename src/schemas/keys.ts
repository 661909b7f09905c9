import { Type, type Static } from 'typebox';
import { BoundedText, DateTime } from './common.js';

const closed = { additionalProperties: false } as const;

export const SshKey = Type.Object(
  { id: Type.Integer(), title: Type.String(), key: Type.String(), created_at: DateTime },
  { ...closed, title: 'SshKey' },
);
export type SshKey = Static<typeof SshKey>;

export const GpgKey = Type.Object({ id: Type.Integer(), key: Type.String(), created_at: DateTime }, { ...closed, title: 'GpgKey' });
export type GpgKey = Static<typeof GpgKey>;

export const Email = Type.Object({ id: Type.Integer(), email: Type.String() }, { ...closed, title: 'Email' });
export type Email = Static<typeof Email>;

/** The original's limits (key.rb): a title of 255 characters, a key of 5000. */
export const CreateSshKeyInput = Type.Object({ title: BoundedText(), key: BoundedText({ maxLength: 5000 }) });
export type CreateSshKeyInput = Static<typeof CreateSshKeyInput>;

/**
 * The original sets no limit on a GPG key. A key grows with every signature on it: keys on public key
 * servers with many signatures reach hundreds of kilobytes, so a million characters admits any real key
 * and keeps what the key parser reads bounded.
 */
const GPG_KEY_MAX = 1_000_000;

/** The reference names the body parameter `key_id` for the admin call while its sample sends `key`: both work. */
export const CreateGpgKeyInput = Type.Object({
  key: Type.Optional(BoundedText({ maxLength: GPG_KEY_MAX, description: 'armored public key block' })),
  key_id: Type.Optional(
    BoundedText({ maxLength: GPG_KEY_MAX, description: 'same as `key` (the spelling of the admin call in the reference)' }),
  ),
});
export type CreateGpgKeyInput = Static<typeof CreateGpgKeyInput>;

export const CreateEmailInput = Type.Object({ email: BoundedText() });
export type CreateEmailInput = Static<typeof CreateEmailInput>;
