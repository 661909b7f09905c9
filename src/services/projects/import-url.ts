import { BlockedRemoteError, blockedUrlReason, checkedAddresses } from '../../git/remote-http.js';

/**
 * What is wrong with an `import_url` given at creation, in the words of the original's validation
 * (`is blocked: Requests to localhost are not allowed`), or nothing: an http(s) URL on a port the original
 * allows, whose host resolves, to public addresses only unless `allowLocalRequests`. A name is resolved and
 * every address it has is checked, never its text; the import job checks again when it connects, since a
 * name may resolve elsewhere by then.
 */
export async function importUrlProblem(importUrl: string, allowLocalRequests: boolean): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(importUrl);
  } catch {
    return 'is not a valid URL';
  }
  const urlReason = blockedUrlReason(url);
  if (urlReason) return `is blocked: ${urlReason}`;
  try {
    await checkedAddresses(url.hostname, allowLocalRequests);
  } catch (error) {
    if (error instanceof BlockedRemoteError) return `is blocked: ${error.reason}`;
    throw error;
  }
  return undefined;
}
