import dns, { type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';

// What an import may reach, and the HTTP client that reaches only that: the original's UrlBlocker, for
// `import_url`. The check runs on the addresses a name resolves to, never on the text, and the client connects
// only to addresses it has checked, so that a name resolving elsewhere later (DNS rebinding) gains nothing.

/** A remote an import may not reach; `reason` is the original's words (UrlBlocker's messages). */
export class BlockedRemoteError extends Error {
  override readonly name = 'BlockedRemoteError';
  constructor(
    readonly reason: string,
    /** Reached by following the remote's redirect, not named by the URL itself. */
    readonly redirected = false,
  ) {
    super(reason);
  }
}

/** The remote sent more than the import may receive. */
export class RemoteTooLargeError extends Error {
  override readonly name = 'RemoteTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`The remote sent more than ${maxBytes} bytes`);
  }
}

export const UNRESOLVABLE_HOST = 'Host cannot be resolved or invalid';

/** Ports under 1024 an import may use, as the original has them (Project::VALID_IMPORT_PORTS). */
const IMPORT_PORTS = [80, 443];

/**
 * What the original refuses, in the order it checks: the first kind that any address of the host is of
 * names the refusal. The last kind is forgekit's own: ranges the original let through that no import can
 * mean (multicast, reserved, benchmarking, documentation, teredo).
 */
const REFUSALS = [
  'Requests to localhost are not allowed',
  'Requests to loopback addresses are not allowed',
  'Requests to the local network are not allowed',
  'Requests to the link local network are not allowed',
  'Requests to the shared address space are not allowed',
  'Requests to the limited broadcast address are not allowed',
  'Requests to non-routable addresses are not allowed',
] as const;
const [LOCALHOST, LOOPBACK, LOCAL_NETWORK, LINK_LOCAL, SHARED, BROADCAST, NON_ROUTABLE] = REFUSALS.map((_, index) => index);

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Ranges ipaddr.js (1.x) calls unicast that are not: site-local (the original's local network), and non-routable ones. */
const SITE_LOCAL = ipaddr.IPv6.parseCIDR('fec0::/10');
const NON_ROUTABLE_UNICAST: [Address, number][] = [
  ipaddr.IPv4.parseCIDR('198.18.0.0/15'), // benchmarking
  ipaddr.IPv6.parseCIDR('::/96'), // IPv4-compatible (deprecated)
  ipaddr.IPv6.parseCIDR('100::/64'), // discard-only
];

/** Whether `address` is in the range (ipaddr.js's `match` throws on an address of the other family). */
const within = (address: Address, [network, bits]: [Address, number]): boolean =>
  address.kind() === network.kind() && (address as ipaddr.IPv4).match(network as ipaddr.IPv4, bits);

/**
 * An IPv6 address that carries an IPv4 host, as that host: mapped (`::ffff:127.0.0.1`), translated (RFC 6145),
 * NAT64 (RFC 6052) and 6to4 addresses reach it, so they are checked as it.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  const fromParts = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return fromParts(parts[6], parts[7]);
    case '6to4':
      return fromParts(parts[1], parts[2]);
    default:
      return undefined;
  }
}

/** The server's own addresses: the original counts them as localhost (a request to one reaches this host). */
function ownAddresses(): Set<string> {
  const own = new Set(['127.0.0.1', '::1']);
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      const address = entry.address.split('%')[0];
      if (ipaddr.isValid(address)) own.add(ipaddr.parse(address).toString());
    }
  }
  return own;
}

/** The index in REFUSALS of what refuses `address`, or -1 for an address an import may reach. */
function refusalOf(address: string, own: Set<string>): number {
  let parsed: Address;
  try {
    // The zone of a link-local address does not change what it is.
    parsed = ipaddr.parse(address.split('%')[0]);
  } catch {
    return NON_ROUTABLE;
  }
  if (parsed.kind() === 'ipv6') parsed = embeddedIPv4(parsed as ipaddr.IPv6) ?? parsed;
  if (own.has(parsed.toString())) return LOCALHOST;
  switch (parsed.range()) {
    case 'unspecified':
      return LOCALHOST;
    case 'loopback':
      return LOOPBACK;
    case 'private':
    case 'uniqueLocal':
      return LOCAL_NETWORK;
    case 'linkLocal':
      return LINK_LOCAL;
    case 'carrierGradeNat':
      return SHARED;
    case 'broadcast':
      return BROADCAST;
    case 'unicast':
      if (within(parsed, SITE_LOCAL)) return LOCAL_NETWORK;
      return NON_ROUTABLE_UNICAST.some((range) => within(parsed, range)) ? NON_ROUTABLE : -1;
    default:
      return NON_ROUTABLE;
  }
}

/** Why an import may not reach a host with these addresses (the first refusal any of them meets), or nothing. */
export function blockedAddressReason(addresses: string[]): string | undefined {
  const own = ownAddresses();
  const refusals = addresses.map((address) => refusalOf(address, own)).filter((refusal) => refusal >= 0);
  return refusals.length ? REFUSALS[Math.min(...refusals)] : undefined;
}

/** Why an import may not use this URL whatever its host resolves to (its protocol, its port), or nothing. */
export function blockedUrlReason(url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Only allowed protocols are http, https';
  const port = url.port === '' ? undefined : Number(url.port);
  if (port !== undefined && port < 1024 && !IMPORT_PORTS.includes(port))
    return `Only allowed ports are ${IMPORT_PORTS.join(', ')}, and any over 1024`;
  return undefined;
}

/** How long a name may take to resolve: a creation waits for it (in its transaction), so a slow resolver must not hold it. */
const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * Every address `host` resolves to, as the system resolver (getaddrinfo) answers, which is what a connection
 * would use; a name that takes longer than LOOKUP_TIMEOUT_MS resolves to nothing.
 */
function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${host} took too long to resolve`)), LOOKUP_TIMEOUT_MS);
    dns.lookup(host, { all: true, verbatim: true }, (error, addresses) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(addresses);
    });
  });
}

/**
 * The addresses of a URL's host (`hostname` as URL has it, an IPv6 literal in brackets), every one of them
 * checked: an IP literal as it is, a name as it resolves now. Rejects with a BlockedRemoteError when the name
 * does not resolve or, unless `allowLocal`, any address is local.
 */
export async function checkedAddresses(hostname: string, allowLocal: boolean): Promise<LookupAddress[]> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  const addresses = family ? [{ address: host, family }] : await lookupAll(host).catch(() => []);
  if (!addresses.length) throw new BlockedRemoteError(UNRESOLVABLE_HOST);
  const reason = allowLocal ? undefined : blockedAddressReason(addresses.map(({ address }) => address));
  if (reason) throw new BlockedRemoteError(reason);
  return addresses;
}

/** A `lookup` for node:net that answers only `addresses` (checked already) and never asks DNS. */
export function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const candidates = family === 4 || family === 6 ? addresses.filter((address) => address.family === family) : addresses;
    // node:net expects its callback later, as dns.lookup calls it.
    process.nextTick(() => {
      if (!candidates.length) callback(Object.assign(new Error('no checked address of that family'), { code: 'ENOTFOUND' }), '', 0);
      else if (options.all) callback(null, candidates);
      else callback(null, candidates[0].address, candidates[0].family);
    });
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
/** The request that starts a fetch: a redirect of it moves the whole repository, as git takes it. */
const ADVERTISEMENT = '/info/refs?service=git-upload-pack';

export interface RemoteHttpOptions {
  /** Every request carries it: an abort closes its connection and fails its body. */
  signal: AbortSignal;
  /** The most bytes the bodies of all responses may hold together. */
  maxBytes: number;
  /** Local addresses may be reached (the application setting or the instance's option). */
  allowLocalRequests: boolean;
}

export interface RemoteHttp extends HttpClient {
  /** What cut a response body short: isomorphic-git reads a body that fails as one that ended. */
  failure(): { error: unknown } | undefined;
  /** Closes the connections kept open between requests. */
  close(): void;
}

/**
 * isomorphic-git's HTTP client for one import, on node:http and node:https: it connects only to addresses
 * checked as `checkedAddresses` checks them (each host resolved once, then pinned for the whole import; an IP
 * literal checked as it is), follows a redirect of the first request only (git's `http.followRedirects=initial`:
 * the rest of the fetch goes to where it led), each target checked the same way and without the credentials
 * if it leads to another origin. Its own connections, without Node.js's default idle limit of 5 seconds (a
 * remote may think longer before it sends a large pack): the import's signal bounds them.
 */
export function createRemoteHttp(options: RemoteHttpOptions): RemoteHttp {
  const { signal, maxBytes, allowLocalRequests } = options;
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  const pinned = new Map<string, Promise<LookupAddress[]>>();
  let received = 0;
  let failure: { error: unknown } | undefined;
  /** Where the first request's redirect moved the repository: later requests go there too. */
  let moved: { from: string; to: string; withoutAuthorization: boolean } | undefined;
  const aborted = new Promise<never>((_, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  aborted.catch(() => {});

  const addressesOf = (hostname: string, redirected: boolean): Promise<LookupAddress[]> => {
    let addresses = pinned.get(hostname);
    if (!addresses) pinned.set(hostname, (addresses = checkedAddresses(hostname, allowLocalRequests)));
    return addresses.catch((error: unknown) => {
      throw error instanceof BlockedRemoteError ? new BlockedRemoteError(error.reason, redirected) : error;
    });
  };

  const send = async (
    url: URL,
    method: string,
    headers: OutgoingHttpHeaders,
    body: Buffer | undefined,
    redirected: boolean,
  ): Promise<IncomingMessage> => {
    const reason = blockedUrlReason(url);
    if (reason) throw new BlockedRemoteError(reason, redirected);
    // A lookup (which cannot be cancelled) is given up when the import stops.
    const addresses = await Promise.race([addressesOf(url.hostname, redirected), aborted]);
    const https = url.protocol === 'https:';
    return new Promise<IncomingMessage>((resolve, reject) => {
      const request = (https ? httpsRequest : httpRequest)(url, {
        method,
        headers: body ? { ...headers, 'content-length': body.byteLength } : headers,
        agent: https ? agents.https : agents.http,
        lookup: pinnedLookup(addresses),
        signal,
      });
      request.on('response', resolve);
      request.on('error', reject);
      request.end(body);
    });
  };

  const bounded = (response: IncomingMessage): AsyncIterableIterator<Uint8Array> => {
    const iterator = response[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    async function* read(): AsyncIterableIterator<Uint8Array> {
      try {
        for (;;) {
          const { value, done } = await iterator.next();
          if (done) return;
          received += value.byteLength;
          if (received > maxBytes) throw new RemoteTooLargeError(maxBytes);
          yield value;
        }
      } catch (error) {
        failure ??= { error };
        throw error;
      } finally {
        // A body not read to its end: its connection is closed, not kept.
        await iterator.return?.();
      }
    }
    return read();
  };

  return {
    async request(request: GitHttpRequest): Promise<GitHttpResponse> {
      const method = request.method ?? 'GET';
      let url = request.url;
      let headers: OutgoingHttpHeaders = { ...request.headers };
      if (moved && url.startsWith(moved.from)) {
        url = moved.to + url.slice(moved.from.length);
        if (moved.withoutAuthorization) headers = withoutAuthorization(headers);
      }
      // isomorphic-git's request bodies are small (the wanted and held commits): sent whole, with their length.
      const body = request.body ? Buffer.concat(await collect(request.body)) : undefined;
      const first = !moved && method === 'GET' && url.endsWith(ADVERTISEMENT);
      let target = new URL(url);
      let response = await send(target, method, headers, body, false);
      let leftOrigin = false;
      for (let redirects = 0; first && REDIRECTS.has(response.statusCode ?? 0) && response.headers.location; redirects += 1) {
        response.destroy();
        if (redirects === MAX_REDIRECTS) throw new Error('too many redirects');
        const next = new URL(response.headers.location, target);
        // Credentials come from the import URL only, never from the remote.
        next.username = next.password = '';
        if (next.origin !== target.origin) {
          leftOrigin = true;
          headers = withoutAuthorization(headers);
        }
        target = next;
        response = await send(target, method, headers, body, true);
      }
      if (first && target.href !== url && target.href.endsWith(ADVERTISEMENT)) {
        moved = {
          from: url.slice(0, -ADVERTISEMENT.length),
          to: target.href.slice(0, -ADVERTISEMENT.length),
          withoutAuthorization: leftOrigin,
        };
      }
      return {
        url: target.href,
        method,
        statusCode: response.statusCode ?? 0,
        statusMessage: response.statusMessage ?? '',
        headers: Object.fromEntries(
          Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
        ),
        body: bounded(response),
      };
    },
    failure: () => failure,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** The headers without the credentials: they were given for the URL's origin only. */
const withoutAuthorization = (headers: OutgoingHttpHeaders): OutgoingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));

async function collect(body: Uint8Array[] | AsyncIterableIterator<Uint8Array> | Uint8Array): Promise<Uint8Array[]> {
  if (body instanceof Uint8Array) return [body];
  if (Array.isArray(body)) return body;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return chunks;
}
