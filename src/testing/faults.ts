import { type ServerResponse, STATUS_CODES } from 'node:http';
import { Type } from 'typebox';
import { parseInput } from '../api/validation.js';
import { ApiError, BadRequestError, type ErrorBody, NotFoundError, ServiceUnavailableError, TooManyRequestsError } from '../errors.js';
import type { HookResponse } from '../services/hooks/send.js';
import type { ControlRoute } from './control.js';

// A test double's faults (docs/testing.md "Faults"): rules that make the next matching calls answer an error status, wait,
// or lose their connection, as the original service, its proxy or the network do now and then, so that a user's
// client meets them in its tests. Calls of the API (HTTP and in process), git over HTTP, and hook deliveries.

/** What a rule applies to: calls of the API, git over HTTP, or the instance's hook deliveries. */
export type FaultTarget = 'api' | 'git' | 'hooks';

/** The statuses a fault answers: the ones clients retry. */
export type FaultStatus = 429 | 500 | 502 | 503;

/** A fault as `hosting.faults.add` and `POST /-/forgekit/faults` take it: what it matches, and what it does. */
export interface FaultRule {
  /** `api` (the default), `git` (smart HTTP), or `hooks` (deliveries to receivers). */
  target?: FaultTarget;
  /** `GET`, `POST`, ...; any when omitted. */
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  /**
   * The path as requested, relative to where the router is mounted (`/api/v4/projects/1/issues`), or a hook receiver's
   * URL path; `*` stands for any characters but `/`, `**` for any.
   */
  path?: string;
  /** The route's name (`POST /projects/:id/issues`), git's (`POST /:project.git/git-receive-pack`), or a hook's `X-Gitlab-Event`. */
  route?: string;
  /** The caller's username (API and git only); `@anonymous` for calls without a user. */
  caller?: string;
  /** The status answered instead of the call's own (the call is not made). */
  status?: FaultStatus;
  /** The answer's body: an object as is, a text as `{ "message": text }` (git and hooks: the text itself). */
  body?: string | Record<string, unknown>;
  /** `Retry-After`, in seconds (429 and 503 send 1 unless given). */
  retryAfter?: number;
  /** Milliseconds to wait first: then the call goes on, or the fault answers. */
  delayMs?: number;
  /** The connection is closed without an answer (in process: a ConnectionDroppedError). */
  drop?: boolean;
  /** Calls matched and let through before the fault applies. */
  after?: number;
  /** Calls the fault applies to; then it is used up. Every matching call when omitted. */
  times?: number;
}

/** A rule as listed: its ID, the rule, and how many calls it matched and faulted. */
export interface Fault extends FaultRule {
  id: number;
  target: FaultTarget;
  matched: number;
  applied: number;
}

/** `hosting.faults`: a test double's faults. Every method throws outside the test-double mode. */
export interface HostingFaults {
  /** Adds a rule (400 naming the attribute when it is invalid): the rule as listed, with its ID. */
  add(rule: FaultRule): Fault;
  /** The rules in the order they are tried (used up ones too). */
  list(): Fault[];
  /** Removes a rule; false when there is none with that ID. */
  remove(id: number): boolean;
  clear(): void;
}

/** The most milliseconds a fault waits: past any client's timeout, short of a test runner's. */
const MAX_DELAY_MS = 600_000;
/** The most rules at once: each call is tried against each. */
const MAX_RULES = 1000;
/** The longest body a fault answers, as JSON. */
const MAX_BODY_CHARACTERS = 64 * 1024;
/** `Retry-After` of a 429 or a 503 when the rule gives none: forgekit's own, short enough for a test's retries. */
const DEFAULT_RETRY_AFTER = 1;

export const FaultRuleSchema = Type.Object({
  target: Type.Optional(Type.Union([Type.Literal('api'), Type.Literal('git'), Type.Literal('hooks')])),
  method: Type.Optional(
    Type.Union([Type.Literal('GET'), Type.Literal('HEAD'), Type.Literal('POST'), Type.Literal('PUT'), Type.Literal('DELETE')]),
  ),
  path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  route: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  caller: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  status: Type.Optional(Type.Union([Type.Literal(429), Type.Literal(500), Type.Literal(502), Type.Literal(503)])),
  body: Type.Optional(
    Type.Union([
      Type.String({ maxLength: MAX_BODY_CHARACTERS }),
      Type.Record(Type.String({ maxLength: 255 }), Type.Unknown(), { maxProperties: 100 }),
    ]),
  ),
  retryAfter: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
  delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_DELAY_MS })),
  drop: Type.Optional(Type.Boolean()),
  after: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
  times: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
});

/** A call, delivery or git request as rules see it. */
export interface FaultedRequest {
  target: FaultTarget;
  method: string;
  path: string;
  route: string | null;
  /** The caller's username; null for none (anonymous, or a hook delivery). */
  caller: string | null;
}

/** What a call meets: the rule's ID and what it does. */
export interface AppliedFault {
  id: number;
  status?: FaultStatus;
  body?: string | Record<string, unknown>;
  retryAfter?: number;
  delayMs?: number;
  drop?: boolean;
}

/** Who `caller` names when a call has no user. */
const ANONYMOUS = '@anonymous';

/**
 * Thrown in process where HTTP would lose its connection. (No `code` such as ECONNRESET: forgekit reads that as the
 * database's connection lost, and answers 503.)
 */
export class ConnectionDroppedError extends Error {
  override readonly name = 'ConnectionDroppedError';
  constructor() {
    super('forgekit: the connection was dropped (a fault of the test double)');
  }
}

/** 500 and 502 answered by a fault: forgekit has no error of its own for them. */
class FaultStatusError extends ApiError {
  override readonly name = 'FaultStatusError';
  constructor(
    readonly status: number,
    readonly retryAfter?: number,
  ) {
    super(`${status} ${STATUS_CODES[status]}`);
  }
}

/** A rule as kept: as listed, and its path pattern compiled. */
interface Rule {
  fault: Fault;
  takesPath?: (path: string) => boolean;
}

/** `*` within a segment, `**` across them; everything else literal. */
function globPattern(glob: string): RegExp {
  const source = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((literal) => literal.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${source}$`);
}

/** Whether a path pattern (see FaultRule.path) takes a path. */
export function pathMatcher(pattern: string): (path: string) => boolean {
  if (!pattern.includes('*')) return (path) => path === pattern;
  const compiled = globPattern(pattern);
  return (path) => compiled.test(path);
}

/** The attributes a rule may have: a misspelt one is refused rather than left to match every call. */
const RULE_ATTRIBUTES = new Set(Object.keys(FaultRuleSchema.properties));

/** A test double's fault rules, tried in the order they were added: the first that takes a call applies to it. */
export class FaultPlan implements HostingFaults {
  private rules: Rule[] = [];
  private lastId = 0;

  constructor(private readonly enabled: boolean) {}

  add(rule: FaultRule): Fault {
    this.check();
    const unknown = Object.keys(rule ?? {}).find((name) => !RULE_ATTRIBUTES.has(name));
    if (unknown !== undefined) throw BadRequestError.invalid(unknown, 'is not an attribute of a fault');
    const parsed = parseInput<FaultRule>(FaultRuleSchema, rule);
    const target = parsed.target ?? 'api';
    if (parsed.status === undefined && parsed.delayMs === undefined && !parsed.drop)
      throw BadRequestError.invalid('status', 'is missing: a fault answers a status, waits (delayMs) or drops the connection');
    if (parsed.drop && parsed.status !== undefined) throw BadRequestError.invalid('drop', 'cannot go with a status');
    if (parsed.status === undefined && (parsed.body !== undefined || parsed.retryAfter !== undefined))
      throw BadRequestError.invalid(parsed.body === undefined ? 'retryAfter' : 'body', 'needs a status');
    if (target === 'hooks' && parsed.caller !== undefined) throw BadRequestError.invalid('caller', 'does not apply to hook deliveries');
    if (parsed.body !== undefined && JSON.stringify(parsed.body).length > MAX_BODY_CHARACTERS)
      throw BadRequestError.invalid('body', `is too long (maximum is ${MAX_BODY_CHARACTERS} characters)`);
    if (this.rules.length >= MAX_RULES) throw BadRequestError.invalid('base', `too many faults (maximum is ${MAX_RULES})`);
    const fault: Fault = { id: ++this.lastId, ...parsed, target, matched: 0, applied: 0 };
    this.rules.push({ fault, takesPath: parsed.path === undefined ? undefined : pathMatcher(parsed.path) });
    return { ...fault };
  }

  list(): Fault[] {
    this.check();
    return this.rules.map(({ fault }) => ({ ...fault }));
  }

  remove(id: number): boolean {
    this.check();
    const before = this.rules.length;
    this.rules = this.rules.filter(({ fault }) => fault.id !== id);
    return this.rules.length < before;
  }

  clear(): void {
    this.check();
    this.rules = [];
  }

  /** The fault a request meets, counted against its rule; undefined when none applies. */
  take(request: FaultedRequest): AppliedFault | undefined {
    for (const rule of this.rules) {
      const { fault } = rule;
      if ((fault.times !== undefined && fault.applied >= fault.times) || !matches(rule, request)) continue;
      fault.matched += 1;
      if (fault.matched <= (fault.after ?? 0)) continue;
      fault.applied += 1;
      const { id, status, body, retryAfter, delayMs, drop } = fault;
      return { id, status, body, retryAfter, delayMs, drop };
    }
    return undefined;
  }

  private check(): void {
    if (!this.enabled) throw new Error('forgekit: not a test double: start it with testDouble: true (docs/testing.md)');
  }
}

function matches({ fault, takesPath }: Rule, request: FaultedRequest): boolean {
  return (
    fault.target === request.target &&
    (fault.method === undefined || fault.method === request.method) &&
    (fault.route === undefined || fault.route === request.route) &&
    // Usernames are case-insensitive, as the original compares them.
    (fault.caller === undefined || fault.caller.toLowerCase() === (request.caller ?? ANONYMOUS).toLowerCase()) &&
    (takesPath === undefined || takesPath(request.path))
  );
}

/** Waits `ms`, or until `signal` aborts (a hook's delivery stopped as the instance closes). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** `Retry-After` of a fault's answer: the rule's, or forgekit's own for 429 and 503. */
const retryAfterOf = (fault: AppliedFault) =>
  fault.retryAfter ?? (fault.status === 429 || fault.status === 503 ? DEFAULT_RETRY_AFTER : undefined);

/**
 * A fault met by a call of the API: after its delay, the error it answers (forgekit's own for 429 and 503, with their
 * bodies and `Retry-After`) or a ConnectionDroppedError; nothing when it only delays.
 */
export async function meetFault(fault: AppliedFault): Promise<void> {
  if (fault.delayMs) await sleep(fault.delayMs);
  if (fault.drop) throw new ConnectionDroppedError();
  if (fault.status === undefined) return;
  const retryAfter = retryAfterOf(fault);
  const error: ApiError =
    fault.status === 429
      ? new TooManyRequestsError(retryAfter!)
      : fault.status === 503
        ? new ServiceUnavailableError(undefined, retryAfter)
        : new FaultStatusError(fault.status, retryAfter);
  const { body } = fault;
  if (body !== undefined) error.body = () => (typeof body === 'string' ? { message: body } : (body as ErrorBody));
  throw error;
}

/** A fault's text, for git and hooks: the body given, or the status's. */
const faultText = (fault: AppliedFault) =>
  fault.body === undefined
    ? `${fault.status} ${STATUS_CODES[fault.status!]}`
    : typeof fault.body === 'string'
      ? fault.body
      : JSON.stringify(fault.body);

/** A fault met by a git request, answered as git shows it (plain text); false when it only delays. */
export async function answerGitFault(res: ServerResponse, fault: AppliedFault): Promise<boolean> {
  if (fault.delayMs) await sleep(fault.delayMs);
  if (fault.drop) {
    res.socket?.destroy();
    return true;
  }
  if (fault.status === undefined) return false;
  const retryAfter = retryAfterOf(fault);
  const text = `${faultText(fault)}\n`;
  res.writeHead(fault.status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...(retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) }),
  });
  res.end(text);
  return true;
}

/**
 * A fault met by a hook delivery to `url` (its `X-Gitlab-Event`): what the try comes to instead of sending, as a
 * receiver's answer of the status or a connection reset would be recorded; undefined when it is sent (after the delay).
 */
export async function faultedDelivery(
  plan: FaultPlan,
  url: string,
  event: string | undefined,
  signal?: AbortSignal,
): Promise<HookResponse | undefined> {
  const path = URL.canParse(url) ? new URL(url).pathname : url;
  const fault = plan.take({ target: 'hooks', method: 'POST', path, route: event ?? null, caller: null });
  if (!fault) return undefined;
  const started = performance.now();
  if (fault.delayMs) await sleep(fault.delayMs, signal);
  const durationMs = () => performance.now() - started;
  if (fault.drop)
    return { status: null, headers: {}, body: '', error: `ECONNRESET: ${new ConnectionDroppedError().message}`, durationMs: durationMs() };
  if (fault.status === undefined) return undefined;
  const retryAfter = retryAfterOf(fault);
  const headers: Record<string, string> = retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) };
  return { status: fault.status, headers, body: faultText(fault), error: null, durationMs: durationMs() };
}

/** The faults' control routes: `POST /-/forgekit/faults` (a rule: 201 with its ID), `GET`, `DELETE` one or all. */
export const faultRoutes: ControlRoute[] = [
  { method: 'POST', path: 'faults', run: async ({ testDouble, body }) => ({ status: 201, body: testDouble.faults.add(body) }) },
  { method: 'GET', path: 'faults', run: async ({ testDouble }) => ({ status: 200, body: testDouble.faults.list() }) },
  {
    method: 'DELETE',
    path: 'faults',
    run: async ({ testDouble }) => {
      testDouble.faults.clear();
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: 'faults/:id',
    run: async ({ testDouble, params }) => {
      if (!/^\d{1,15}$/.test(params.id) || !testDouble.faults.remove(Number(params.id))) throw new NotFoundError('Fault');
      return { status: 204 };
    },
  },
];
