import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../auth/secret-box.js';
import type { Database, EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { fixedSql, sql } from '../../db/sql.js';
import type { AnyRecordedEvent, RecordedEvent } from '../../events/bus.js';
import type { EventDispatcher } from '../../events/dispatcher.js';
import type { RepositoryStore } from '../../git/store.js';
import { type JobQueue, WORKER_STATEMENT } from '../../jobs/queue.js';
import { API_VERSION } from '../../version.js';
import { hookProject, pushPayload, type HookUser } from './payloads.js';
import { delivered, sendHook } from './send.js';

// Webhook deliveries, built on the record of what happens (src/events/): a deferred consumer turns each event into one
// delivery per hook that asks for it (its request kept in `web_hook_logs`, pending), in the transaction that moves its
// cursor, and queues the hook's delivery job; the job sends the hook's pending deliveries in order, retrying a failed
// one with growing delays before it gives it up. No write waits for a delivery, and none fails for one.

/** The job that sends one hook's pending deliveries, oldest first. */
export const WEB_HOOK_DELIVERY = 'web_hook_delivery';
/** Tries of one delivery before it is given up (the original's WebHookWorker retried 4 times). */
const DELIVERY_ATTEMPTS = 4;
/** How long the record of a delivery is kept once it is settled. */
const DELIVERIES_KEPT_MS = 2 * 24 * 3600 * 1000;
/** The job's own runs, through several deliveries' retries; once used up, a new job takes over. */
const JOB_ATTEMPTS = 40;

/** The statements of the job and the consumer are the workers' own: no call makes them. */
const worker = fixedSql(WORKER_STATEMENT);

export interface HookDeliveryEnvironment {
  db: Database;
  jobs: JobQueue;
  secrets: SecretBox;
  repositories: RepositoryStore;
  baseUrl?: string;
  /** Whether hooks may reach local addresses now (the application setting, or the instance's option). */
  localRequestsAllowed(): Promise<boolean>;
}

/** What each kind of event is to hooks: the flag that asks for it, the trigger its deliveries are recorded under, the header. */
const HOOK_KINDS = {
  push: { flag: 'push_events', trigger: 'push_hooks', event: 'Push Hook' },
  tag_push: { flag: 'tag_push_events', trigger: 'tag_push_hooks', event: 'Tag Push Hook' },
} as const;

type HookKind = keyof typeof HOOK_KINDS;

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
): Promise<{ hooksExist(): void; stop(): void }> {
  registerHookJobs(env.jobs, env);
  let delivering = false;
  const hooksExist = () => {
    if (delivering) return;
    delivering = true;
    dispatcher.add({
      name: 'web_hooks',
      kinds: Object.keys(HOOK_KINDS) as HookKind[],
      handle: (event, em) => deliveriesOf(env, event, em),
    });
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
  return { hooksExist, stop: () => clearInterval(looking) };
}

async function deliveriesOf(env: HookDeliveryEnvironment, event: AnyRecordedEvent, em: EntityManager): Promise<void> {
  if (!(event.kind in HOOK_KINDS) || event.project_id === null) return;
  const kind = HOOK_KINDS[event.kind as HookKind];
  const pushed = event as RecordedEvent<'push' | 'tag_push'>;
  const hooks = await queryRows(
    em,
    sql`${worker} select id, url, push_events_branch_filter, token_sealed from web_hooks
      where project_id = ${event.project_id} and type = 'ProjectHook' and ${fixedSql(kind.flag)} order by id`,
  );
  const branch = pushed.data.ref.replace(/^refs\/heads\//, '');
  const receiving = hooks.filter(
    (hook) => event.kind !== 'push' || branchFilterTakes(hook.push_events_branch_filter as string | null, branch),
  );
  if (!receiving.length) return;
  const baseUrl = env.baseUrl ?? 'http://localhost';
  const project = await hookProject(em, event.project_id, baseUrl);
  if (!project) return;
  const repo = env.repositories.open(project.repository_storage, project.id);
  const payload = await pushPayload(pushed, project, await hookUser(em, event.author_id, baseUrl), repo, baseUrl);
  for (const hook of receiving) {
    const headers = { 'Content-Type': 'application/json', 'X-Gitlab-Event': kind.event, 'User-Agent': `GitLab/${API_VERSION}` };
    await queryRows(
      em,
      sql`${worker} insert into web_hook_logs (hook_id, trigger, url, request_headers, request_data, created_at, updated_at)
        values (${hook.id}, ${kind.trigger}, ${hook.url}, ${JSON.stringify(headers)}::jsonb, ${JSON.stringify(payload)}::jsonb,
          ${new Date()}, ${new Date()})`,
    );
    await env.jobs.enqueueOnce(em, WEB_HOOK_DELIVERY, { hookId: hook.id as number });
  }
}

async function hookUser(em: EntityManager, userId: number | null, baseUrl: string): Promise<HookUser | null> {
  if (userId === null) return null;
  const [user] = await queryRows(em, sql`${worker} select id, name, username, email, avatar_filename from users where id = ${userId}`);
  if (!user) return null;
  const avatar = user.avatar_filename as string | null;
  return {
    id: user.id as number,
    name: user.name as string,
    username: user.username as string,
    email: user.email as string,
    avatar_url: avatar ? `${baseUrl}/uploads/-/system/user/avatar/${user.id}/${encodeURIComponent(avatar)}` : null,
  };
}

/** Thrown to have the job tried again later: a delivery failed and has tries left. */
class RetryLater extends Error {}

/** The delivery job: the hook's pending deliveries sent in order; a failed one tried again later, up to its tries. */
function registerHookJobs(jobs: JobQueue, env: HookDeliveryEnvironment): void {
  jobs.register<{ hookId: number }>(WEB_HOOK_DELIVERY, {
    maxAttempts: JOB_ATTEMPTS,
    run: async (job) => {
      // The record of a hook's deliveries is kept two days, as the original keeps its recent deliveries.
      await queryRows(
        env.db.rows,
        sql`${worker} delete from web_hook_logs where hook_id = ${job.payload.hookId} and status <> 'pending'
          and created_at < ${new Date(Date.now() - DELIVERIES_KEPT_MS)}`,
      );
      for (;;) {
        job.signal.throwIfAborted();
        const [next] = await queryRows(
          env.db.rows,
          sql`${worker} select l.id, l.url, l.request_headers, l.request_data, l.attempts, h.token_sealed, h.enable_ssl_verification
            from web_hook_logs l join web_hooks h on h.id = l.hook_id
            where l.hook_id = ${job.payload.hookId} and l.status = 'pending' order by l.id limit 1`,
        );
        if (!next) return;
        const headers: Record<string, string> = {
          ...(next.request_headers as Record<string, string>),
          'X-Gitlab-Event-UUID': randomUUID(),
        };
        if (next.token_sealed) headers['X-Gitlab-Token'] = env.secrets.open(next.token_sealed as string);
        const response = await sendHook({
          url: next.url as string,
          headers,
          body: JSON.stringify(next.request_data),
          allowLocalRequests: await env.localRequestsAllowed(),
          verifySsl: next.enable_ssl_verification as boolean,
          signal: job.signal,
        });
        // Stopped (the instance closing, the lease lost): the try does not count, and the next run makes it again.
        job.signal.throwIfAborted();
        const attempts = (next.attempts as number) + 1;
        const ok = delivered(response);
        const status = ok ? 'delivered' : attempts >= DELIVERY_ATTEMPTS ? 'failed' : 'pending';
        await queryRows(
          env.db.rows,
          sql`${worker} update web_hook_logs set status = ${status}, attempts = ${attempts},
            response_status = ${response.status === null ? 'internal error' : String(response.status)},
            response_headers = ${JSON.stringify(response.headers)}::jsonb, response_body = ${response.body},
            internal_error_message = ${response.error}, execution_duration = ${response.durationMs / 1000}, updated_at = ${new Date()}
           where id = ${next.id}`,
        );
        if (status === 'pending')
          throw new RetryLater(`the delivery ${next.id} failed (${response.error ?? response.status}); tried again later`);
      }
    },
    // Its runs used up with deliveries left: a new job takes them over.
    givenUp: async (job) => {
      await env.jobs.enqueueOnce(env.db.fork(), WEB_HOOK_DELIVERY, { hookId: job.payload.hookId });
    },
  });
}
