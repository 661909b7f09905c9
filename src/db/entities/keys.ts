import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt } from './columns.js';
import { claimEmailTrigger, userItem } from './user.js';

export const SshKey = defineEntity({
  name: 'SshKey',
  tableName: 'ssh_keys',
  properties: {
    ...userItem(),
    title: p.string().length(255),
    key: p.text(),
    // MD5 fingerprint, colon-separated hex: the form the original service stores and compares.
    fingerprint: p.string().length(128).unique(),
    createdAt: createdAt(),
  },
});
export type SshKey = InferEntity<typeof SshKey>;

export const GpgKey = defineEntity({
  name: 'GpgKey',
  tableName: 'gpg_keys',
  properties: {
    ...userItem(),
    key: p.text(),
    fingerprint: p.string().length(64).unique(),
    primaryKeyid: p.string().length(16).unique(),
    createdAt: createdAt(),
  },
});
export type GpgKey = InferEntity<typeof GpgKey>;

/** A secondary e-mail address; unique across users, primary addresses included. */
export const Email = defineEntity({
  name: 'Email',
  tableName: 'emails',
  triggers: [claimEmailTrigger('users', 'id', 'user_id')],
  properties: {
    ...userItem(),
    email: p.string().length(255).unique(),
    createdAt: createdAt(),
  },
});
export type Email = InferEntity<typeof Email>;
