import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { digest } from './columns.js';

/**
 * Failed authentications counted per key (a client address, a login) over a fixed window, for throttling.
 * Keys are stored as SHA-256 digests: no address or login is kept.
 */
export const AuthFailure = defineEntity({
  name: 'AuthFailure',
  tableName: 'auth_failures',
  properties: {
    keyDigest: digest().primary(),
    failures: p.integer(),
    windowEndsAt: p.datetime().index(),
  },
});
export type AuthFailure = InferEntity<typeof AuthFailure>;
