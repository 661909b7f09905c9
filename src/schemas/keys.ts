import { Type, type Static } from 'typebox';
import { DateTime } from './common.js';

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

export const KeyId = Type.Object({ key_id: Type.Integer() });
export const UserKeyId = Type.Object({ id: Type.Integer({ description: 'user ID' }), key_id: Type.Integer() });
export const EmailId = Type.Object({ email_id: Type.Integer() });
export const UserEmailId = Type.Object({ id: Type.Integer({ description: 'user ID' }), email_id: Type.Integer() });

export const CreateSshKeyInput = Type.Object({ title: Type.String(), key: Type.String() });
export type CreateSshKeyInput = Static<typeof CreateSshKeyInput>;

/** The reference names the body parameter `key_id` for the admin call while its sample sends `key`: both work. */
export const CreateGpgKeyInput = Type.Object({
  key: Type.Optional(Type.String({ description: 'armored public key block' })),
  key_id: Type.Optional(Type.String({ description: 'same as `key` (the spelling of the admin call in the reference)' })),
});
export type CreateGpgKeyInput = Static<typeof CreateGpgKeyInput>;

export const CreateEmailInput = Type.Object({ email: Type.String() });
export type CreateEmailInput = Static<typeof CreateEmailInput>;
