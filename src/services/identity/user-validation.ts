import type { ValidationMessages } from '../../errors.js';

/** Top-level paths the web interface owns: no user or top-level group may take one. */
const RESERVED_TOP_LEVEL_PATHS = new Set([
  '-',
  '.well-known',
  '404.html',
  '422.html',
  '500.html',
  '502.html',
  '503.html',
  'abuse_reports',
  'admin',
  'api',
  'apple-touch-icon.png',
  'assets',
  'autocomplete',
  'ci',
  'dashboard',
  'deploy.html',
  'explore',
  'favicon.ico',
  'files',
  'groups',
  'health_check',
  'help',
  'import',
  'invites',
  'jwt',
  'login',
  'notification_settings',
  'oauth',
  'profile',
  'projects',
  'public',
  'robots.txt',
  's',
  'search',
  'sent_notifications',
  'snippets',
  'u',
  'uploads',
  'users',
]);

const NAMESPACE_PATH = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;
const NAMESPACE_PATH_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** The message of a value another row holds already (a unique username, path, address, key). */
export const TAKEN = 'has already been taken';

/** Collects validation messages keyed by attribute: body shape 5. */
export class Problems {
  readonly messages: ValidationMessages = {};

  add(attribute: string, message: string): void {
    const list = (this.messages[attribute] ??= []) as string[];
    if (!list.includes(message)) list.push(message);
  }

  get any(): boolean {
    return Object.keys(this.messages).length > 0;
  }
}

/** Length as the original and PostgreSQL count it, and the schemas do: characters, not UTF-16 code units. */
const characters = (text: string): number => [...text].length;

// Maximum lengths are in the schemas (src/schemas/users.ts), checked before any service runs; what
// follows are the rules a schema does not say.

/**
 * A namespace's path (a username, a group's path) by the original's rules; `topLevel` paths may not take a
 * path the web interface owns. A subgroup's path is only kept from `-`, where the web interface's own pages start.
 */
export function checkNamespacePath(problems: Problems, attribute: string, path: string, topLevel: boolean): void {
  if (path.trim() === '') {
    problems.add(attribute, "can't be blank");
    return;
  }
  if (!NAMESPACE_PATH.test(path) || /(\.|\.git|\.atom)$/i.test(path)) problems.add(attribute, NAMESPACE_PATH_MESSAGE);
  if (topLevel ? RESERVED_TOP_LEVEL_PATHS.has(path.toLowerCase()) : path === '-') problems.add(attribute, `${path} is a reserved name`);
}

export function checkUsername(problems: Problems, username: string): void {
  checkNamespacePath(problems, 'username', username, true);
}

export function checkEmail(problems: Problems, email: string, attribute = 'email'): void {
  if (email.trim() === '') {
    problems.add(attribute, "can't be blank");
    return;
  }
  // Addresses are stored lower-cased, and lower-casing can lengthen them ('İ' becomes 'i̇'): measure what is stored.
  if (characters(email.toLowerCase()) > 255) problems.add(attribute, 'is too long (maximum is 255 characters)');
  if (!EMAIL.test(email)) problems.add(attribute, 'is invalid');
}

export function checkName(problems: Problems, name: string): void {
  if (name.trim() === '') problems.add('name', "can't be blank");
}

export function checkPassword(problems: Problems, password: string): void {
  if (password.length < 8) problems.add('password', 'is too short (minimum is 8 characters)');
}

/** An avatar (a user's, a project's): an image of at most 200 KB, as the original takes one. */
export function checkAvatar(problems: Problems, avatar: { filename: string; data: Uint8Array } | undefined): void {
  if (!avatar) return;
  if (!/\.(png|jpe?g|gif|bmp|tiff?|ico|webp)$/i.test(avatar.filename)) problems.add('avatar', 'only images allowed');
  if (avatar.data.length > 200 * 1024) problems.add('avatar', 'is too big (should be at most 200 KB)');
}
