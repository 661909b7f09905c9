/**
 * Parameters that authenticate a request (and `sudo`, which picks who it acts as). Authentication reads
 * them; they are never passed on as route input, and never repeated in a URL that forgekit writes or logs.
 */
export const CREDENTIAL_PARAMETERS = ['private_token', 'access_token', 'sudo'];

/** The same URL without its credential parameters. */
export function withoutCredentials(url: URL): URL {
  const copy = new URL(url);
  for (const name of CREDENTIAL_PARAMETERS) copy.searchParams.delete(name);
  return copy;
}
