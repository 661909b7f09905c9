import { UniqueConstraintViolationException } from '@mikro-orm/core';

/** The attribute each unique constraint guards, as the API names it. */
const GUARDED_ATTRIBUTES: Record<string, string> = {
  users_username_lower_unique: 'username',
  users_email_unique: 'email',
  emails_email_unique: 'email',
  // Raised by the trigger that keeps primary and secondary addresses apart (one address, one user).
  email_addresses_unique: 'email',
  identities_provider_extern_uid_unique: 'extern_uid',
  ssh_keys_fingerprint_unique: 'fingerprint',
  gpg_keys_fingerprint_unique: 'fingerprint',
  gpg_keys_primary_keyid_unique: 'fingerprint',
  namespaces_sibling_path_index: 'path',
  namespaces_full_path_lower_index: 'path',
  projects_namespace_path_index: 'path',
};

/**
 * When a write lost a race for a unique value (the checks before it passed, the database refused it), the
 * attribute that was taken; undefined for any other error.
 */
export function takenAttribute(error: unknown): string | undefined {
  if (!(error instanceof UniqueConstraintViolationException)) return undefined;
  return GUARDED_ATTRIBUTES[(error as { constraint?: string }).constraint ?? ''];
}
