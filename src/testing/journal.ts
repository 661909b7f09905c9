import type { IncomingMessage, ServerResponse } from 'node:http';
import { Type } from 'typebox';
import type { Call } from '../api/invoke.js';
import { type AnyRoute, successStatus } from '../api/route.js';
import { parseInput } from '../api/validation.js';
import type { Caller } from '../auth/caller.js';
import { type Clock, systemClock } from '../clock.js';
import type { ControlRoute } from './control.js';
import { type AppliedFault, ConnectionDroppedError, type FaultPlan, meetFault, pathMatcher } from './faults.js';

// A test double's journal of requests (docs/testing.md "The request journal"): every call of the API (over HTTP and in
// process) and every git request, with who made it, what it carried (credentials filtered) and what it was answered,
// kept in memory up to a bound, so that a test asserts what its code asked of the service without reading the database.

/** How a request came: over HTTP to the API, in process, or git over HTTP. */
export type RequestWay = 'http' | 'in-process' | 'git';

/** One request as the journal keeps it. */
export interface RecordedRequest {
  /** Increasing from 1, in the order the requests were answered (the journal's order). */
  id: number;
  /** When it came (ISO 8601). */
  time: string;
  method: string;
  /** As requested, relative to where the router is mounted (`/api/v4/projects/1/issues`); in process, the path it stands for. */
  path: string;
  /** The route's name (`POST /projects/:id/issues`), or git's (`GET /:project.git/info/refs?service=git-upload-pack`). */
  route: string;
  /** The username it acted as (after `sudo`); null when anonymous or not authenticated. */
  caller: string | null;
  /** The query string's parameters; in process, a GET's input. */
  query: Record<string, unknown>;
  /** The body's parameters (files as `[N bytes]`); in process, the input of a call other than GET; null without one. */
  body: unknown;
  /** The status answered; null when the connection was dropped. */
  status: number | null;
  duration_ms: number;
  via: RequestWay;
  /** The fault it met (its ID in `hosting.faults.list()`), if any. */
  fault: number | null;
}

/** Which requests `hosting.requests.list` gives; every one it names must hold. */
export interface RequestFilter {
  route?: string;
  method?: string;
  /** A path, or a pattern of them: `*` stands for any characters but `/`, `**` for any. */
  path?: string;
  /** A username; `@anonymous` for requests without a user. */
  caller?: string;
  status?: number;
  via?: RequestWay;
  /** Requests that came at or after this time. */
  since?: string | Date;
}

/** `hosting.requests`: the test double's journal. Every method throws outside the test-double mode. */
export interface HostingRequests {
  /** The requests kept, oldest first. */
  list(filter?: RequestFilter): RecordedRequest[];
  /** Forgets every request (the IDs go on from where they were). */
  clear(): void;
}

/** The requests kept: past this the oldest are forgotten. */
export const JOURNAL_CAPACITY = 10_000;
/** Characters of the requests' parameters kept, all together: past this the oldest requests are forgotten. */
const JOURNAL_CHARACTERS = 32 * 1024 * 1024;
/** Characters of one text parameter kept; the rest is cut off. */
const TEXT_KEPT = 64 * 1024;
/** Items of an array, or entries of an object, kept. */
const ITEMS_KEPT = 1000;
const DEPTH_KEPT = 16;

/** Parameters whose values are credentials: filtered, as the original's logs filter them. */
const CREDENTIAL = /token$|password|secret/i;
const FILTERED = '[FILTERED]';

export const RequestFilterSchema = Type.Object({
  route: Type.Optional(Type.String({ maxLength: 1024 })),
  method: Type.Optional(Type.String({ maxLength: 16 })),
  path: Type.Optional(Type.String({ maxLength: 4096 })),
  caller: Type.Optional(Type.String({ maxLength: 255 })),
  status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
  via: Type.Optional(Type.Union([Type.Literal('http'), Type.Literal('in-process'), Type.Literal('git')])),
  since: Type.Optional(Type.String({ format: 'date-time' })),
});

/** What a request carried, copied for the journal: credentials filtered, bytes counted, long texts cut; and its size. */
class Copy {
  characters = 0;

  of(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') {
      this.characters += Math.min(value.length, TEXT_KEPT);
      return value.length > TEXT_KEPT ? `${value.slice(0, TEXT_KEPT)}…` : value;
    }
    this.characters += 8;
    if (typeof value === 'bigint') return String(value);
    // What no client could send (a function, a symbol, in process): named, so that the entry stays plain data.
    if (typeof value === 'function' || typeof value === 'symbol') return `[${typeof value}]`;
    if (value === null || typeof value !== 'object') return value;
    if (ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
    if (value instanceof Date) return value.toISOString();
    if (depth >= DEPTH_KEPT) return '[nested too deeply]';
    if (Array.isArray(value)) return value.slice(0, ITEMS_KEPT).map((item) => this.of(item, depth + 1));
    // A stream (an upload read as it comes, in process) is not read for the journal.
    if (typeof (value as { pipe?: unknown }).pipe === 'function') return '[stream]';
    return Object.fromEntries(
      Object.entries(value)
        .slice(0, ITEMS_KEPT)
        .map(([key, item]) => {
          this.characters += key.length;
          return [key, CREDENTIAL.test(key) && item !== undefined && item !== null ? FILTERED : this.of(item, depth + 1)];
        }),
    );
  }
}

/** The journal: a queue of the last requests, bounded in number and in the characters of their parameters. */
export class RequestJournal implements HostingRequests {
  private kept: ({ entry: RecordedRequest; characters: number } | undefined)[] = [];
  /** Where the oldest kept request is in `kept`. */
  private head = 0;
  private characters = 0;
  private lastId = 0;

  constructor(
    private readonly enabled: boolean,
    private readonly capacity = JOURNAL_CAPACITY,
    /** The instance's clock: the calls' times. */
    readonly clock: Clock = systemClock,
  ) {}

  list(filter: RequestFilter = {}): RecordedRequest[] {
    this.check();
    const given = parseInput<Omit<RequestFilter, 'since'> & { since?: string }>(RequestFilterSchema, {
      ...filter,
      since: filter.since instanceof Date ? filter.since.toISOString() : filter.since,
    });
    const takesPath = given.path === undefined ? undefined : pathMatcher(given.path);
    const since = given.since === undefined ? undefined : Date.parse(given.since);
    const method = given.method?.toUpperCase();
    const caller = given.caller?.toLowerCase();
    const found: RecordedRequest[] = [];
    for (let index = this.head; index < this.kept.length; index++) {
      const { entry } = this.kept[index]!;
      if (
        (given.route === undefined || entry.route === given.route) &&
        (method === undefined || entry.method === method) &&
        (takesPath === undefined || takesPath(entry.path)) &&
        (caller === undefined || (entry.caller?.toLowerCase() ?? '@anonymous') === caller) &&
        (given.status === undefined || entry.status === given.status) &&
        (given.via === undefined || entry.via === given.via) &&
        (since === undefined || Date.parse(entry.time) >= since)
      )
        found.push(structuredClone(entry));
    }
    return found;
  }

  clear(): void {
    this.check();
    this.kept = [];
    this.head = 0;
    this.characters = 0;
  }

  /** Keeps a request, forgetting the oldest past the bounds. */
  record(entry: Omit<RecordedRequest, 'id' | 'query' | 'body'>, query: unknown, body: unknown): void {
    const copy = new Copy();
    const recorded: RecordedRequest = {
      id: ++this.lastId,
      ...entry,
      query: (copy.of(query ?? {}) ?? {}) as Record<string, unknown>,
      body: body === undefined ? null : copy.of(body),
    };
    this.kept.push({ entry: recorded, characters: copy.characters });
    this.characters += copy.characters;
    while (this.kept.length - this.head > this.capacity || (this.characters > JOURNAL_CHARACTERS && this.kept.length - this.head > 1)) {
      this.characters -= this.kept[this.head]!.characters;
      this.kept[this.head++] = undefined;
    }
    // The forgotten slots go once they are half the array: each is moved once at most.
    if (this.head > 1024 && this.head * 2 > this.kept.length) {
      this.kept = this.kept.slice(this.head);
      this.head = 0;
    }
  }

  private check(): void {
    if (!this.enabled) throw new Error('forgekit: not a test double: start it with testDouble: true (docs/testing.md)');
  }
}

/** What a request is journaled and faulted by. */
interface WatchedRequest {
  via: RequestWay;
  method: string;
  path: string;
  route: string;
}

/** One request as a test double watches it: the fault it meets once its caller is known, its entry once it is answered. */
export class WatchedCall {
  private readonly started = performance.now();
  private readonly time: string;
  private caller: string | null = null;
  private fault: number | null = null;

  constructor(
    private readonly double: { journal: RequestJournal; faults: FaultPlan },
    private readonly request: WatchedRequest,
  ) {
    this.time = double.journal.clock.now().toISOString();
  }

  /** The caller is known (its username, null for none): the fault planned for the request, if any. */
  reached(caller: string | null): AppliedFault | undefined {
    this.caller = caller;
    const { via, method, path, route } = this.request;
    const fault = this.double.faults.take({ target: via === 'git' ? 'git' : 'api', method, path, route, caller });
    this.fault = fault?.id ?? null;
    return fault;
  }

  /** The request was answered `status` (null: its connection dropped). */
  finish(status: number | null, query: unknown, body: unknown): void {
    const duration_ms = Math.round((performance.now() - this.started) * 1000) / 1000;
    this.double.journal.record(
      { ...this.request, time: this.time, caller: this.caller, status, duration_ms, fault: this.fault },
      query,
      body,
    );
  }
}

/** The API's prefix: a route's path is relative to it (but the root routes', `/oauth/token`). */
const API_PREFIX = '/api/v4';

/** A route's name in the journal and in fault rules: its method and its path in the table. */
export const routeName = (route: AnyRoute) => `${route.method} ${route.path}`;

/** The path an in-process call stands for: the route's, its parameters put in. */
function pathOf(route: AnyRoute, params: Record<string, unknown>): string {
  const path = route.path.replace(/:(\w+)/g, (whole, name: string) =>
    params[name] === undefined ? whole : encodeURIComponent(String(params[name])),
  );
  return route.root ? path : `${API_PREFIX}${path}`;
}

/** The status a failed call answers: its error's (a body that cannot be read: 4xx), or 500; null when dropped. */
function failureStatus(error: unknown): number | null {
  if (error instanceof ConnectionDroppedError) return null;
  const { status } = error as { status?: unknown };
  return typeof status === 'number' ? status : 500;
}

/** A call of the API as a test double watches it (see `invoke`). */
export class WatchedApiCall {
  private readonly watched: WatchedCall;

  constructor(
    double: { journal: RequestJournal; faults: FaultPlan },
    private readonly route: AnyRoute,
    private readonly call: Call,
  ) {
    const { http } = call;
    const method = http?.method ?? route.method;
    const path = http?.path ?? pathOf(route, call.params);
    this.watched = new WatchedCall(double, { via: http ? 'http' : 'in-process', method, path, route: routeName(route) });
  }

  /** The caller is authenticated: a fault planned for the call is met (waited for, thrown). */
  async reached(caller: Caller): Promise<void> {
    const fault = this.watched.reached(caller.user?.username ?? null);
    if (fault) await meetFault(fault);
  }

  /** The call's answer, journaled as it settles. */
  async settle<T>(work: Promise<T>): Promise<T> {
    try {
      const result = await work;
      this.finish(successStatus(this.route));
      return result;
    } catch (error) {
      this.finish(failureStatus(error));
      throw error;
    }
  }

  private finish(status: number | null): void {
    const { http, input } = this.call;
    // In process, the input is what a client would send in the query string of a GET, in the body otherwise.
    const get = this.route.method === 'GET';
    if (http) this.watched.finish(status, http.query, http.body());
    else this.watched.finish(status, get ? (input ?? {}) : {}, get ? undefined : (input ?? {}));
  }
}

/** git's requests by name: the service, and whether it is the advertisement (`info/refs`). */
export function gitRouteName(method: string, route: { service: string; advertise: boolean }): string {
  return route.advertise ? `${method} /:project.git/info/refs?service=${route.service}` : `${method} /:project.git/${route.service}`;
}

/** A git request as a test double watches it (see `serveGit`). */
export class WatchedGitRequest {
  private readonly watched: WatchedCall;
  private readonly query: Record<string, string>;

  constructor(
    double: { journal: RequestJournal; faults: FaultPlan },
    req: IncomingMessage,
    route: { service: string; advertise: boolean },
  ) {
    const [path, search = ''] = (req.url ?? '/').split('?');
    const method = req.method ?? 'GET';
    this.query = Object.fromEntries(new URLSearchParams(search));
    this.watched = new WatchedCall(double, { via: 'git', method, path, route: gitRouteName(method, route) });
  }

  /** The caller is known: the fault planned for the request, if any. */
  reached(caller: Caller): AppliedFault | undefined {
    return this.watched.reached(caller.user?.username ?? null);
  }

  /** The request has been answered (or not: its connection destroyed). Its body, a pack, is not kept. */
  finish(res: ServerResponse): void {
    this.watched.finish(res.headersSent ? res.statusCode : null, this.query, undefined);
  }
}

/** The journal's control routes: `GET /-/forgekit/requests` (the filter in the query string) and `DELETE` to clear it. */
export const requestRoutes: ControlRoute[] = [
  {
    method: 'GET',
    path: 'requests',
    run: async ({ testDouble, query }) => ({ status: 200, body: testDouble.journal.list(query as RequestFilter) }),
  },
  {
    method: 'DELETE',
    path: 'requests',
    run: async ({ testDouble }) => {
      testDouble.journal.clear();
      return { status: 204 };
    },
  },
];
