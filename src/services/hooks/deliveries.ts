import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../auth/secret-box.js';
import { type Clock, clockOf } from '../../clock.js';
import type { Database, EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { fixedSql, sql } from '../../db/sql.js';
import type { AnyRecordedEvent } from '../../events/bus.js';
import type { DeferredConsumer, EventDispatcher } from '../../events/dispatcher.js';
import type { RepositoryStore } from '../../git/store.js';
import { type JobQueue, WORKER_STATEMENT } from '../../jobs/queue.js';
import { API_VERSION } from '../../version.js';
import { hookProject, pushPayload, repositoryUpdatePayload, type HookProject, type HookUser, type PayloadContext } from './payloads.js';
import { systemPayload, SYSTEM_EVENT_KINDS } from './system-payloads.js';
import { pipelinePayload } from './pipeline-payloads.js';
import { actionOf, issuePayload, mergeRequestPayload, notePayload } from './work-item-payloads.js';
import { EVENT_KINDS } from '../../events/kinds.js';
import { userAvatarUrl } from '../present/users.js';
import type { SettingsValues } from '../../schemas/settings.js';
import { delivered, sendHook, type HookResponse } from './send.js';
import { type FaultPlan, faultedDelivery } from '../../testing/faults.js';

// Webhook deliveries, built on the record of what happens (src/events/): a deferred consumer turns each event into one
// delivery per hook that asks for it (its request kept in `web_hook_logs`, pending), in the transaction that moves its
// cursor, and queues the hook's delivery job; the job sends the hook's pending deliveries in order, retrying a failed
// one with growing delays before it gives it up. No write waits for a delivery, and none fails for one.

/** The consumer of the record that makes the deliveries: its cursor's name. */
export const HOOKS_CONSUMER = 'web_hooks';
/** The job that sends one hook's pending deliveries, oldest first. */
export const WEB_HOOK_DELIVERY = 'web_hook_delivery';
/** Tries of one delivery before it is given up (the original's WebHookWorker retried 4 times). */
const DELIVERY_ATTEMPTS = 4;
/** How long the record of a delivery is kept once it is settled. */
const DELIVERIES_KEPT_MS = 2 * 24 * 3600 * 1000;
/** Hooks one process delivers to at once (each waits on its receiver, ten seconds at most a try). */
const HOOKS_AT_ONCE = 8;
/** Pending deliveries of a hook read at once, to be sent one after the other. */
const DELIVERIES_READ_AT_ONCE = 20;
/** The job's own runs, through several deliveries' retries; once used up, a new job takes over. */
const JOB_ATTEMPTS = 40;

/** The statements of the job and the consumer are the workers' own: no call makes them. */
const worker = fixedSql(WORKER_STATEMENT);

export interface HookDeliveryEnvironment {
  db: Database;
  /** The instance's clock: deliveries' times, and how long a failing hook is left alone. */
  clock: Clock;
  jobs: JobQueue;
  secrets: SecretBox;
  repositories: RepositoryStore;
  baseUrl?: string;
  /** Whether hooks may reach local addresses now (the application setting, or the instance's option). */
  localRequestsAllowed(): Promise<boolean>;
  /**
   * The application settings now, read (when the process's copy is stale) through `em`: the consumer's transaction,
   * which on the embedded database holds its one connection.
   */
  settings(em: EntityManager): Promise<SettingsValues>;
  /** A test double's faults, which deliveries may meet (src/testing/faults.ts); none otherwise. */
  faults?(): FaultPlan | undefined;
}

/** A hook as deliveries read it. */
interface HookRow {
  id: number;
  type: 'ProjectHook' | 'GroupHook' | 'SystemHook';
  url: string;
  push_events_branch_filter: string | null;
  [flag: string]: unknown;
}

/** What one event makes for some hooks: the same payload, under one trigger, with one `X-Gitlab-Event`. */
interface Planned {
  hooks: HookRow[];
  trigger: string;
  event: string;
  payload: object;
}

/** The header every system hook delivery carries. */
const SYSTEM_HOOK = 'System Hook';

/** The kinds of event hooks hear of: references moved, issues' and merge requests' actions, comments, system events. */
const HOOK_EVENT_KINDS = EVENT_KINDS.filter(
  (kind) => ['push', 'tag_push', 'note.created', 'pipeline.updated'].includes(kind) || actionOf(kind) || SYSTEM_EVENT_KINDS.includes(kind),
);

/** Whether a branch filter (a name, or a wildcard with `*`) takes the branch; none takes every branch. */
export function branchFilterTakes(filter: string | null, branch: string): boolean {
  if (!filter) return true;
  const pattern = filter
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(branch);
}

/** How often a process on a shared database without hooks looks whether another process has made one. */
const HOOKS_LOOKED_FOR_MS = 30_000;

/**
 * Webhook deliveries for an instance: the delivery job registered, and the consumer of the record that makes the
 * deliveries added once a hook exists (found now, made in this process, or, on a shared PostgreSQL, found by a look
 * every HOOKS_LOOKED_FOR_MS): an instance without hooks does nothing for them.
 */
export async function startHookDeliveries(
  env: HookDeliveryEnvironment,
  dispatcher: EventDispatcher,
): Promise<{ hooksExist(): void; stop(): void; reset(): void }> {
  registerHookJobs(env.jobs, env);
  let delivering = false;
  const hooksExist = () => {
    if (delivering) return;
    delivering = true;
    dispatcher.add(deliveriesConsumer(env));
  };
  const anyHooks = async () => (await queryRows(env.db.rows, sql`${worker} select 1 from web_hooks limit 1`)).length > 0;
  if (await anyHooks()) hooksExist();
  const looking = env.db.shared
    ? setInterval(() => {
        if (!delivering)
          void anyHooks().then(
            (found) => found && hooksExist(),
            () => {},
          );
      }, HOOKS_LOOKED_FOR_MS).unref()
    : undefined;
  // An instance emptied (tests' reset) has no hook again: it does nothing for them until the next one.
  const reset = () => {
    dispatcher.remove(HOOKS_CONSUMER);
    delivering = false;
  };
  return { hooksExist, stop: () => clearInterval(looking), reset };
}

/**
 * The hooks that may hear of events of these projects (null: of no project), by project: a project's own, its groups'
 * (and their parents'), and the system hooks; only the system hooks for an event of no project. Hooks left alone for
 * failing are passed over. One statement.
 */
async function hooksOf(em: EntityManager, projectIds: readonly number[]): Promise<Map<number | null, HookRow[]>> {
  const live = sql`(h.disabled_until is null or h.disabled_until <= ${clockOf(em).now()})`;
  const rows = await queryRows(
    em,
    sql`${worker} select h.*, null::int as for_project from web_hooks h where h.type = 'SystemHook' and ${live}
      union all
      select h.*, p.id as for_project from projects p join namespaces n on n.id = p.namespace_id
        join web_hooks h on (h.type = 'ProjectHook' and h.project_id = p.id)
          or (h.type = 'GroupHook' and h.group_id = any(n.traversal_ids))
      where p.id = any(${[...new Set(projectIds)]}::int[]) and ${live}`,
  );
  const systemHooks = rows.filter((row) => row.for_project === null) as unknown as HookRow[];
  const byProject = new Map<number | null, HookRow[]>([[null, systemHooks]]);
  for (const id of projectIds) byProject.set(id, [...systemHooks]);
  for (const row of rows) if (row.for_project !== null) byProject.get(row.for_project as number)?.push(row as unknown as HookRow);
  for (const hooks of byProject.values()) hooks.sort((a, b) => (a.id as number) - (b.id as number));
  return byProject;
}

/**
 * What the consumer reads once for a batch of events, and the deliveries the batch makes, written at its end: the
 * hooks of the batch's projects, the settings, the users and projects the payloads embed.
 */
class DeliveryBatch {
  private readonly deliveries: (Planned & { headers: Record<string, string> })[] = [];

  private constructor(
    private hooks: Map<number | null, HookRow[]>,
    readonly context: PayloadContext,
  ) {}

  static async read(env: HookDeliveryEnvironment, events: readonly AnyRecordedEvent[], em: EntityManager): Promise<DeliveryBatch> {
    const projectIds = events.flatMap((event) =>
      event.project_id === null || SYSTEM_EVENT_KINDS.includes(event.kind) ? [] : [event.project_id],
    );
    const hooks = await hooksOf(em, projectIds);
    const settings = await env.settings(em);
    return new DeliveryBatch(hooks, payloadContext(env.repositories, env.baseUrl ?? 'http://localhost', settings.avatarsvc_enabled));
  }

  /** The hooks that may hear of an event of the project (null: of none) made at `madeBy`: those that existed then. */
  async hooksFor(em: EntityManager, projectId: number | null, madeBy: Date): Promise<HookRow[]> {
    if (!this.hooks.has(projectId)) for (const [id, hooks] of await hooksOf(em, [projectId!])) this.hooks.set(id, hooks);
    // A hook hears of what happens once it exists, as the original looks its hooks up when a thing happens.
    return this.hooks.get(projectId)!.filter((hook) => new Date(hook.created_at as string) <= madeBy);
  }

  add(planned: Planned[]): void {
    for (const delivery of planned)
      this.deliveries.push({
        ...delivery,
        headers: { 'Content-Type': 'application/json', 'X-Gitlab-Event': delivery.event, 'User-Agent': `GitLab/${API_VERSION}` },
      });
  }

  /**
   * Each delivery of the batch recorded as pending, in order, and its hooks' delivery jobs queued, with the consumer's
   * cursor: one statement for the deliveries (each payload sent once), one for the jobs.
   */
  async write(env: HookDeliveryEnvironment, em: EntityManager): Promise<void> {
    if (!this.deliveries.length) return;
    const each = this.deliveries.flatMap(({ hooks }, n) => hooks.map((hook) => ({ hook, n: n + 1 })));
    const now = env.clock.now();
    await queryRows(
      em,
      sql`${worker} insert into web_hook_logs (hook_id, trigger, url, request_headers, request_data, created_at, updated_at)
        select d.hook_id, p.trigger, d.url, p.headers::jsonb, p.data::json, ${now}, ${now}
        from unnest(${each.map(({ hook }) => hook.id)}::int[], ${each.map(({ hook }) => hook.url)}::text[],
            ${each.map(({ n }) => n)}::int[]) with ordinality as d(hook_id, url, payload, n)
        join unnest(${this.deliveries.map((delivery) => delivery.trigger)}::text[],
            ${this.deliveries.map((delivery) => JSON.stringify(delivery.headers))}::text[],
            ${this.deliveries.map((delivery) => JSON.stringify(delivery.payload))}::text[])
          with ordinality as p(trigger, headers, data, n) on p.n = d.payload
        order by d.n`,
    );
    await env.jobs.enqueueEachOnce(
      em,
      WEB_HOOK_DELIVERY,
      [...new Set(each.map(({ hook }) => hook.id))].map((hookId) => ({ hookId })),
    );
  }
}

/**
 * The consumer of the record that makes the deliveries: a batch of events read together, each planned in turn, and
 * what they make written at the batch's end. It writes only through its transaction (`transactional`).
 */
function deliveriesConsumer(env: HookDeliveryEnvironment): DeferredConsumer {
  let batch: DeliveryBatch | undefined;
  return {
    name: HOOKS_CONSUMER,
    kinds: HOOK_EVENT_KINDS,
    transactional: true,
    prepare: async (events, em) => {
      batch = await DeliveryBatch.read(env, events, em);
    },
    handle: async (event, em) => batch!.add(await plannedDeliveries(batch!, event, em)),
    flush: async (em) => {
      const written = batch!;
      batch = undefined;
      await written.write(env, em);
    },
  };
}

/** The users and projects the payloads of one event (or one test) read, each once. */
export function payloadContext(repositories: RepositoryStore, baseUrl: string, gravatar: boolean): PayloadContext {
  const users = new Map<number, HookUser | null>();
  const projects = new Map<number, HookProject | null>();
  const context: PayloadContext = {
    baseUrl,
    async users(em, ids) {
      const missing = [...new Set(ids)].filter((id) => !users.has(id));
      if (missing.length) {
        const rows = await queryRows(
          em,
          sql`${worker} select id, name, username, email, avatar_filename from users where id = any(${missing}::int[])`,
        );
        for (const id of missing) users.set(id, null);
        for (const row of rows) {
          const user = { id: row.id as number, email: row.email as string, avatarFilename: row.avatar_filename as string | null };
          users.set(user.id, {
            id: user.id,
            name: row.name as string,
            username: row.username as string,
            email: user.email,
            avatar_url: userAvatarUrl(user, baseUrl, gravatar),
          });
        }
      }
      return new Map(ids.flatMap((id) => (users.get(id) ? [[id, users.get(id)!] as const] : [])));
    },
    async user(em, id) {
      return id === null ? null : ((await context.users(em, [id])).get(id) ?? null);
    },
    async project(em, id) {
      if (!projects.has(id)) projects.set(id, await hookProject(em, id, baseUrl));
      return projects.get(id)!;
    },
    repository: (project) => repositories.open(project.repository_storage, project.id),
  };
  return context;
}

/** The hooks of `hooks` that ask for this flag (a column of `web_hooks`). */
const asking = (hooks: HookRow[], flag: string, type?: HookRow['type']) =>
  hooks.filter((hook) => hook[flag] === true && (type === undefined ? hook.type !== 'SystemHook' : hook.type === type));

/** What an event makes: each payload and the hooks it goes to. */
async function plannedDeliveries(batch: DeliveryBatch, event: AnyRecordedEvent, em: EntityManager): Promise<Planned[]> {
  const systemEvent = SYSTEM_EVENT_KINDS.includes(event.kind);
  const hooks = await batch.hooksFor(em, systemEvent ? null : event.project_id, new Date(event.created_at));
  if (!hooks.length) return [];
  const { context } = batch;
  if (systemEvent) {
    const payload = await systemPayload(em, event);
    return payload ? [{ hooks, trigger: 'system_hooks', event: SYSTEM_HOOK, payload }] : [];
  }
  if (event.project_id === null) return [];
  const project = await context.project(em, event.project_id);
  if (!project) return [];
  const planned: Planned[] = [];
  const plan = (receiving: HookRow[], trigger: string, header: string, payload: object | undefined) => {
    if (receiving.length && payload) planned.push({ hooks: receiving, trigger, event: header, payload });
  };
  switch (event.kind) {
    case 'push':
    case 'tag_push': {
      const flag = `${event.kind}_events`;
      const branch = event.data.ref.replace(/^refs\/heads\//, '');
      const projectHooks = asking(hooks, flag).filter(
        (hook) => event.kind !== 'push' || branchFilterTakes(hook.push_events_branch_filter, branch),
      );
      const systemHooks = asking(hooks, flag, 'SystemHook');
      const updateHooks = asking(hooks, 'repository_update_events', 'SystemHook');
      if (projectHooks.length || systemHooks.length) {
        const payload = await pushPayload(
          event,
          project,
          await context.user(em, event.author_id),
          context.repository(project),
          context.baseUrl,
        );
        plan(projectHooks, `${event.kind}_hooks`, event.kind === 'push' ? 'Push Hook' : 'Tag Push Hook', payload);
        plan(systemHooks, `${event.kind}_hooks`, SYSTEM_HOOK, payload);
      }
      if (updateHooks.length)
        plan(
          updateHooks,
          'repository_update_hooks',
          SYSTEM_HOOK,
          repositoryUpdatePayload(event, project, await context.user(em, event.author_id), context.baseUrl),
        );
      // A merge request whose source branch moved is refreshed: its hooks hear of an update with the old head.
      if (event.kind === 'push' && event.data.before && event.data.after) {
        const mergeRequestHooks = asking(hooks, 'merge_requests_events');
        const systemMergeRequestHooks = asking(hooks, 'merge_requests_events', 'SystemHook');
        if (mergeRequestHooks.length || systemMergeRequestHooks.length) {
          const refreshed = await queryRows(
            em,
            sql`${worker} select id, project_id from merge_requests where source_project_id = ${project.id} and source_branch = ${branch}
              and state = 'opened' and deleted_at is null order by id`,
          );
          for (const request of refreshed) {
            const target = await context.project(em, request.project_id as number);
            if (!target) continue;
            const targetHooks = target.id === project.id ? hooks : await batch.hooksFor(em, target.id, new Date(event.created_at));
            const payload = await mergeRequestPayload(
              em,
              {
                kind: 'merge_request.updated',
                author_id: event.author_id,
                mergeRequestId: request.id as number,
                oldrev: event.data.before,
              },
              target,
              context,
            );
            plan(asking(targetHooks, 'merge_requests_events'), 'merge_request_hooks', 'Merge Request Hook', payload);
            plan(asking(targetHooks, 'merge_requests_events', 'SystemHook'), 'merge_request_hooks', SYSTEM_HOOK, payload);
          }
        }
      }
      break;
    }
    case 'issue.opened':
    case 'issue.updated':
    case 'issue.closed':
    case 'issue.reopened':
    case 'issue.moved': {
      if (!asking(hooks, 'issues_events').length && !asking(hooks, 'confidential_issues_events').length) break;
      const built = await issuePayload(em, event, project, context);
      if (!built) break;
      // A confidential issue goes only to the hooks that ask for confidential issues, under its own name.
      if (built.confidential)
        plan(asking(hooks, 'confidential_issues_events'), 'confidential_issue_hooks', 'Confidential Issue Hook', built.payload);
      else plan(asking(hooks, 'issues_events'), 'issue_hooks', 'Issue Hook', built.payload);
      break;
    }
    case 'merge_request.opened':
    case 'merge_request.updated':
    case 'merge_request.closed':
    case 'merge_request.reopened':
    case 'merge_request.merged': {
      const projectHooks = asking(hooks, 'merge_requests_events');
      const systemHooks = asking(hooks, 'merge_requests_events', 'SystemHook');
      if (!event.target_id || (!projectHooks.length && !systemHooks.length)) break;
      const values = 'values' in event.data ? event.data.values : undefined;
      const payload = await mergeRequestPayload(
        em,
        { kind: event.kind, author_id: event.author_id, mergeRequestId: event.target_id, values },
        project,
        context,
      );
      plan(projectHooks, 'merge_request_hooks', 'Merge Request Hook', payload);
      plan(systemHooks, 'merge_request_hooks', SYSTEM_HOOK, payload);
      break;
    }
    case 'pipeline.updated': {
      const receiving = asking(hooks, 'pipeline_events');
      if (receiving.length && event.target_id)
        plan(receiving, 'pipeline_hooks', 'Pipeline Hook', await pipelinePayload(em, event.target_id, project, context));
      break;
    }
    case 'note.created': {
      if (!asking(hooks, 'note_events').length && !asking(hooks, 'confidential_note_events').length) break;
      const built = await notePayload(em, event, project, context);
      if (!built) break;
      // A note on a confidential issue goes only to the hooks that ask for confidential notes (later versions' rule).
      if (built.confidential)
        plan(asking(hooks, 'confidential_note_events'), 'confidential_note_hooks', 'Confidential Note Hook', built.payload);
      else plan(asking(hooks, 'note_events'), 'note_hooks', 'Note Hook', built.payload);
      break;
    }
  }
  return planned;
}

/** Thrown to have the job tried again later: a delivery failed and has tries left. */
class RetryLater extends Error {}

/** Failed tries in a row after which a hook is left alone for a while, as later versions of the original do. */
const FAILURES_BEFORE_DISABLING = 4;
/** How long a failing hook is left alone: a minute, doubled with each further failure, a day at most. */
const disabledFor = (failures: number) => Math.min(60_000 * 2 ** (failures - FAILURES_BEFORE_DISABLING), 24 * 3600 * 1000);

/** What sending a delivery needs of the instance. */
export type SendEnvironment = Pick<HookDeliveryEnvironment, 'secrets' | 'localRequestsAllowed' | 'faults'>;

/** A hook as sending reads it. */
export interface HookTarget {
  id: number;
  token_sealed: string | null;
  enable_ssl_verification: boolean;
  /** The token, once opened for an earlier delivery of the same read. */
  token?: string;
}

/**
 * Sends a delivery of a hook: its headers, the hook's token (as `X-Gitlab-Token`) and a new `X-Gitlab-Event-UUID`
 * added. Resolves to what came back (never throws for the receiver's failure).
 */
export async function sendToHook(
  env: SendEnvironment,
  hook: HookTarget,
  request: { url: string; headers: Record<string, string>; body: string },
  signal?: AbortSignal,
): Promise<HookResponse> {
  // A test double's fault: the try comes to its status or to a dropped connection, unsent, or is sent late.
  const faults = env.faults?.();
  const faulted = faults && (await faultedDelivery(faults, request.url, request.headers['X-Gitlab-Event'], signal));
  if (faulted) return faulted;
  const headers: Record<string, string> = { ...request.headers, 'X-Gitlab-Event-UUID': randomUUID() };
  // Line breaks are taken out of the token, as the original takes them out (10.4).
  if (hook.token_sealed) headers['X-Gitlab-Token'] = hook.token ??= env.secrets.open(hook.token_sealed).replace(/[\r\n]/g, '');
  return sendHook({
    url: request.url,
    headers,
    body: request.body,
    allowLocalRequests: await env.localRequestsAllowed(),
    verifySsl: hook.enable_ssl_verification,
    signal,
  });
}

/** The columns of a delivery's record that say how its last try went. */
const outcomeColumns = (
  response: HookResponse,
  now: Date,
) => sql`response_status = ${response.status === null ? 'internal error' : String(response.status)},
  response_headers = ${JSON.stringify(response.headers)}::jsonb, response_body = ${response.body},
  internal_error_message = ${response.error}, execution_duration = ${response.durationMs / 1000}, updated_at = ${now}`;

/** Records a delivery sent at once (a test, a delivery sent again), settled by its one try, answered `now`. */
export async function recordSent(
  em: EntityManager,
  hookId: number,
  request: { trigger: string; url: string; headers: Record<string, string>; body: string },
  response: HookResponse,
  now: Date,
): Promise<void> {
  const [row] = await queryRows(
    em,
    sql`insert into web_hook_logs (hook_id, trigger, url, request_headers, request_data, status, attempts, created_at, updated_at)
      values (${hookId}, ${request.trigger}, ${request.url}, ${JSON.stringify(request.headers)}::jsonb, ${request.body}::json,
        ${delivered(response) ? 'delivered' : 'failed'}, 1, ${now}, ${now}) returning id`,
  );
  await queryRows(em, sql`update web_hook_logs set ${outcomeColumns(response, now)} where id = ${row.id}`);
}

/** The delivery job: the hook's pending deliveries sent in order; a failed one tried again later, up to its tries. */
function registerHookJobs(jobs: JobQueue, env: HookDeliveryEnvironment): void {
  jobs.register<{ hookId: number }>(WEB_HOOK_DELIVERY, {
    maxAttempts: JOB_ATTEMPTS,
    // One hook's deliveries in order, one at a time; several hooks at once, beside the other jobs.
    serial: true,
    concurrency: HOOKS_AT_ONCE,
    // A failing receiver's deliveries wait for hours: nothing `backgroundJobs.drain()` waits for.
    drained: false,
    run: async (job) => {
      const { hookId } = job.payload;
      // The record of a hook's deliveries is kept two days, as the original keeps its recent deliveries.
      await queryRows(
        env.db.rows,
        sql`${worker} delete from web_hook_logs where hook_id = ${hookId} and status <> 'pending'
          and created_at < ${new Date(env.clock.now().getTime() - DELIVERIES_KEPT_MS)}`,
      );
      // Left alone for failing: the deliveries wait until it is taken back.
      const [hook] = await queryRows(env.db.rows, sql`${worker} select disabled_until from web_hooks where id = ${hookId}`);
      const disabledUntil = hook?.disabled_until ? new Date(hook.disabled_until as string) : null;
      if (disabledUntil && disabledUntil > env.clock.now()) {
        await env.jobs.enqueue(env.db.rows, WEB_HOOK_DELIVERY, { hookId }, { runAt: disabledUntil });
        return;
      }
      for (;;) {
        job.signal.throwIfAborted();
        // The hook's next pending deliveries, oldest first, read together with the hook.
        const pending = await queryRows(
          env.db.rows,
          sql`${worker} select l.id, l.url, l.request_headers, l.request_data::text as body, l.attempts, h.token_sealed,
              h.enable_ssl_verification, h.recent_failures
            from web_hook_logs l join web_hooks h on h.id = l.hook_id
            where l.hook_id = ${hookId} and l.status = 'pending' order by l.id limit ${DELIVERIES_READ_AT_ONCE}`,
        );
        if (!pending.length) return;
        const hook: HookTarget = { ...(pending[0] as unknown as HookTarget), id: hookId };
        let recentFailures = pending[0].recent_failures as number;
        for (const next of pending) {
          const request = { url: next.url as string, headers: next.request_headers as Record<string, string>, body: next.body as string };
          const response = await sendToHook(env, hook, request, job.signal);
          // Stopped (the instance closing, the lease lost): the try does not count, and the next run makes it again.
          job.signal.throwIfAborted();
          const attempts = (next.attempts as number) + 1;
          const ok = delivered(response);
          const now = env.clock.now();
          const status = ok ? 'delivered' : attempts >= DELIVERY_ATTEMPTS ? 'failed' : 'pending';
          await queryRows(
            env.db.rows,
            sql`${worker} update web_hook_logs set status = ${status}, attempts = ${attempts}, ${outcomeColumns(response, now)}
              where id = ${next.id}`,
          );
          // A hook that keeps failing is left alone for a while: no deliveries are made for it meanwhile.
          const failures = ok ? 0 : recentFailures + 1;
          const disabledUntil = failures >= FAILURES_BEFORE_DISABLING ? new Date(now.getTime() + disabledFor(failures)) : null;
          if (failures !== recentFailures)
            await queryRows(
              env.db.rows,
              sql`${worker} update web_hooks set recent_failures = ${failures}, disabled_until = ${disabledUntil} where id = ${hookId}`,
            );
          recentFailures = failures;
          if (status === 'pending')
            throw new RetryLater(`the delivery ${next.id} failed (${response.error ?? response.status}); tried again later`);
        }
      }
    },
    // Its runs used up with deliveries left: a new job takes them over.
    givenUp: async (job) => {
      await env.jobs.enqueueOnce(env.db.fork(), WEB_HOOK_DELIVERY, { hookId: job.payload.hookId });
    },
  });
}
