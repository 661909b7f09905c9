import type { ValidationMessages } from '../errors.js';

/** Top-level paths the web interface owns: no user may take one as a username. */
const RESERVED_USERNAMES = new Set([
  '-', '.well-known', '404.html', '422.html', '500.html', '502.html', '503.html', 'abuse_reports', 'admin', 'api',
  'apple-touch-icon.png', 'assets', 'autocomplete', 'ci', 'dashboard', 'deploy.html', 'explore', 'favicon.ico',
  'files', 'groups', 'health_check', 'help', 'import', 'invites', 'jwt', 'login', 'notification_settings', 'oauth',
  'profile', 'projects', 'public', 'robots.txt', 's', 'search', 'sent_notifications', 'snippets', 'u', 'uploads', 'users',
]);

const USERNAME = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;
const USERNAME_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
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

export function checkUsername(problems: Problems, username: string): void {
  if (username.trim() === '') return problems.add('username', "can't be blank");
  if (!USERNAME.test(username) || /(\.|\.git|\.atom)$/i.test(username)) problems.add('username', USERNAME_MESSAGE);
  if (RESERVED_USERNAMES.has(username.toLowerCase())) problems.add('username', `${username} is a reserved name`);
}

export function checkEmail(problems: Problems, email: string, attribute = 'email'): void {
  if (email.trim() === '') return problems.add(attribute, "can't be blank");
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

