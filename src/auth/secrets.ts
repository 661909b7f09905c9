import { createHash, randomBytes } from 'node:crypto';

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A new random token: 20 characters of [A-Za-z0-9], the length clients of the original service expect. */
export function generateToken(length = 20): string {
  const bytes = randomBytes(length * 2);
  let token = '';
  // Reject bytes past the last whole multiple of the alphabet so every character is equally likely.
  const limit = 256 - (256 % TOKEN_ALPHABET.length);
  for (const byte of bytes) {
    if (byte < limit) token += TOKEN_ALPHABET[byte % TOKEN_ALPHABET.length];
    if (token.length === length) return token;
  }
  return token + generateToken(length - token.length);
}

/** The form in which tokens are stored and looked up: never the token itself. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The native argon2 binding, loaded on first use: importing forgekit stays fast. */
const argon2 = () => import('@node-rs/argon2');

/** Argon2id (memory-hard; the library's default algorithm and cost parameters). */
export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password);
}

/**
 * A password forgekit generated itself (root's, when none is configured): 96 random bits, which no guessing
 * reaches whatever the hash costs, so the lowest argon2id cost will do. It verifies as any other hash (the
 * cost is written in it).
 */
export async function hashGeneratedPassword(password: string): Promise<string> {
  return (await argon2()).hash(password, { memoryCost: 64, timeCost: 1 });
}

let decoyHash: Promise<string> | undefined;

/**
 * Whether `password` matches. Without a hash (no such user, or none that may sign in) it is checked against
 * a throwaway one all the same, so that an unknown login takes as long to refuse as a wrong password.
 */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  const hashToCheck = passwordHash ?? (await (decoyHash ??= hashPassword(randomBytes(16).toString('hex'))));
  const { verify } = await argon2();
  try {
    return (await verify(hashToCheck, password)) && passwordHash !== null;
  } catch {
    return false;
  }
}
