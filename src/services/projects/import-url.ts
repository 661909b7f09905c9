import { BlockedRemoteError, blockedUrlReason, checkedAddresses, UNRESOLVABLE_HOST } from '../../git/remote-http.js';

/**
 * What is wrong with a URL forgekit is to reach (an `import_url`, a hook's), in the words of the original's validation
 * (`is blocked: Requests to localhost are not allowed`), or nothing: an http(s) URL whose host resolves to public
 * addresses only unless `allowLocalRequests`. A name is resolved and every address it has is checked, never its text;
 * the import or the delivery checks again when it connects, since a name may resolve elsewhere by then. An import
 * takes only the ports the original allows (`importPorts`); a hook takes a host that does not resolve yet
 * (`unresolvable`), as the original does.
 */
export async function remoteUrlProblem(
  text: string,
  allowLocalRequests: boolean,
  options: { importPorts?: boolean; unresolvable?: boolean } = {},
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a valid URL';
  }
  const urlReason = options.importPorts
    ? blockedUrlReason(url)
    : url.protocol !== 'http:' && url.protocol !== 'https:'
      ? 'Only allowed protocols are http, https'
      : undefined;
  if (urlReason) return `is blocked: ${urlReason}`;
  try {
    await checkedAddresses(url.hostname, allowLocalRequests);
  } catch (error) {
    if (!(error instanceof BlockedRemoteError)) throw error;
    if (!(options.unresolvable && error.reason === UNRESOLVABLE_HOST)) return `is blocked: ${error.reason}`;
  }
  return undefined;
}

/** What is wrong with an `import_url` given at creation (see remoteUrlProblem). */
export const importUrlProblem = (importUrl: string, allowLocalRequests: boolean) =>
  remoteUrlProblem(importUrl, allowLocalRequests, { importPorts: true });
