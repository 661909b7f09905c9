import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { BlockedRemoteError, checkedAddresses, pinnedLookup } from '../../git/remote-http.js';

// One webhook delivery over HTTP, as the original's WebHookService sends it: a POST of the JSON payload, to an address
// checked as imports are (never a local one unless allowed, checked now as well as when the hook was saved: a name
// may resolve elsewhere since), redirects not followed, bounded in time, what came back recorded up to a bound.

/** How long a delivery may take, connection to last byte (the original's 10 seconds). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** What is kept of a response's body. */
const KEPT_BODY_BYTES = 8 * 1024;
/**
 * Connections kept open between deliveries to the same receiver (a hook's deliveries follow each other), closed after
 * a few idle seconds, before a receiver's own idle limit (Node's 5 s) is likely to close them under a request. A kept
 * connection went to an address checked when it was made; each delivery's address is checked anew all the same.
 */
const IDLE_CONNECTION_MS = 4_000;
const agents = {
  'http:': new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
  'https:': new HttpsAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
};

export interface HookDelivery {
  url: string;
  headers: Record<string, string>;
  body: string;
  allowLocalRequests: boolean;
  verifySsl: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What a delivery came to: the response (status, headers, the start of its body), or why there was none. */
export interface HookResponse {
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** Why no response came (a refused address, a timeout, a connection refused); null when one did. */
  error: string | null;
  durationMs: number;
}

/** Whether the receiver took it (2xx), as the original counts a delivery successful. */
export const delivered = (response: HookResponse) => response.status !== null && response.status >= 200 && response.status < 300;

export async function sendHook(delivery: HookDelivery): Promise<HookResponse> {
  const started = performance.now();
  const answer = (response: Omit<HookResponse, 'durationMs'>): HookResponse => ({ ...response, durationMs: performance.now() - started });
  const timeout = AbortSignal.timeout(delivery.timeoutMs ?? DELIVERY_TIMEOUT_MS);
  const signal = delivery.signal ? AbortSignal.any([delivery.signal, timeout]) : timeout;
  let url: URL;
  try {
    url = new URL(delivery.url);
  } catch {
    return answer({ status: null, headers: {}, body: '', error: 'Invalid URL' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return answer({ status: null, headers: {}, body: '', error: 'Only allowed protocols are http, https' });
  try {
    const addresses = await checkedAddresses(url.hostname, delivery.allowLocalRequests);
    const body = Buffer.from(delivery.body);
    const post = () =>
      new Promise<IncomingMessage>((resolve, reject) => {
        const https = url.protocol === 'https:';
        const request = (https ? httpsRequest : httpRequest)(url, {
          method: 'POST',
          headers: { ...delivery.headers, 'Content-Length': body.length },
          agent: agents[url.protocol as keyof typeof agents],
          lookup: pinnedLookup(addresses),
          rejectUnauthorized: delivery.verifySsl,
          signal,
        });
        request.on('response', resolve);
        request.on('error', (error) =>
          // A kept connection the receiver closed as it was reused: once more, on a new one.
          request.reusedSocket && (error as { code?: string }).code === 'ECONNRESET' && !signal.aborted ? resolve(post()) : reject(error),
        );
        request.end(body);
      });
    const response = await post();
    const kept: Buffer[] = [];
    let keptBytes = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      if (keptBytes < KEPT_BODY_BYTES) {
        kept.push(chunk.subarray(0, KEPT_BODY_BYTES - keptBytes));
        keptBytes += Math.min(chunk.length, KEPT_BODY_BYTES - keptBytes);
      }
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return answer({ status: response.statusCode ?? null, headers, body: Buffer.concat(kept).toString('utf8'), error: null });
  } catch (error) {
    return answer({ status: null, headers: {}, body: '', error: failureOf(error, timeout.aborted) });
  }
}

/** Why a delivery got no response, in short: a refusal in the original's words, or the network's error. */
function failureOf(error: unknown, timedOut: boolean): string {
  if (error instanceof BlockedRemoteError) return error.reason;
  if (timedOut) return 'execution expired';
  const { code, message } = error as { code?: string; message?: string };
  return code ? `${code}: ${message ?? ''}`.trim() : (message ?? String(error));
}
