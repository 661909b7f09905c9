import type { Email } from '../../db/entities/index.js';
import type { Email as EmailShape } from '../../schemas/keys.js';
import type { View } from './view.js';

/** A user's secondary e-mail addresses. */
export function presentEmails(emails: Email[], _view: View): EmailShape[] {
  return emails.map((email) => ({ id: email.id, email: email.email }));
}

export const presentEmail = (email: Email, view: View): EmailShape => presentEmails([email], view)[0];
