import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { belongsTo, createdAt, digest } from './columns.js';
import { User, callersChangedTrigger } from './user.js';

/**
 * Every API token a user authenticates with: private tokens (full access, issued by POST /session),
 * personal access tokens, impersonation tokens and OAuth access tokens. Only the SHA-256 digest of a
 * token is stored; the token itself is shown once, when it is issued.
 */
export const AccessToken = defineEntity({
  name: 'AccessToken',
  tableName: 'access_tokens',
  indexes: [{ properties: ['user', 'kind'] }],
  triggers: [callersChangedTrigger],
  properties: {
    id: p.integer().primary(),
    user: belongsTo(User),
    kind: p.enum(['private', 'personal', 'impersonation', 'oauth'] as const),
    name: p.string().length(255),
    tokenDigest: digest().unique(),
    // OAuth access tokens come with a refresh token, stored the same way.
    refreshTokenDigest: digest().nullable().unique(),
    scopes: p.array(),
    revoked: p.boolean().default(false),
    expiresAt: p.datetime().nullable(),
    createdAt: createdAt(),
  },
});
export type AccessToken = InferEntity<typeof AccessToken>;
