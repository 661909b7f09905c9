import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '../../db/orm.js';
import type { HookEvent as PublishedHookEvent } from '../../types.js';
import type { GroupInScope, ProjectInScope } from '../../auth/abilities.js';
import { WebHook, WebHookLog } from '../../db/entities/hooks.js';
import { keyOf } from '../../db/rows.js';
import { BadRequestError, NotFoundError, UnprocessableEntityError } from '../../errors.js';
import type {
  CreateSystemHookInput,
  GroupHook,
  HookEvent,
  HookTestResult,
  HookTestTrigger,
  SystemHookTest,
  ListHookEventsQuery,
  ProjectHook,
  SystemHook,
  UpdateProjectHookInput,
} from '../../schemas/hooks.js';
import { API_VERSION } from '../../version.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { remoteUrlProblem } from '../projects/import-url.js';
import { Service } from '../service.js';
import { HOOKS_CONSUMER, payloadContext, recordSent, type SendEnvironment, sendToHook } from './deliveries.js';
import { placeCursor } from '../../events/dispatcher.js';
import { hookProject } from './payloads.js';
import { samplePayload, TEST_TRIGGERS } from './samples.js';
import { delivered } from './send.js';

/** The original's `Hook Not Found` for a hook of another project, or none. */
const notFound = () => new NotFoundError('Hook');

/** The flags a project's or a group's hook input may set, by attribute, with their column. */
const FLAGS = {
  push_events: 'pushEvents',
  tag_push_events: 'tagPushEvents',
  issues_events: 'issuesEvents',
  confidential_issues_events: 'confidentialIssuesEvents',
  merge_requests_events: 'mergeRequestsEvents',
  note_events: 'noteEvents',
  confidential_note_events: 'confidentialNoteEvents',
  job_events: 'jobEvents',
  pipeline_events: 'pipelineEvents',
  wiki_page_events: 'wikiPageEvents',
  repository_update_events: 'repositoryUpdateEvents',
  enable_ssl_verification: 'enableSslVerification',
} as const;

/** What every hook answers: where it delivers, what it asks for, whether it is left alone for failing (`now`). */
function presentFlags(hook: WebHook, now: Date) {
  const disabled = hook.disabledUntil && hook.disabledUntil > now ? hook.disabledUntil : null;
  return {
    id: hook.id,
    url: hook.url,
    push_events: hook.pushEvents,
    push_events_branch_filter: hook.pushEventsBranchFilter ?? null,
    tag_push_events: hook.tagPushEvents,
    issues_events: hook.issuesEvents,
    confidential_issues_events: hook.confidentialIssuesEvents,
    merge_requests_events: hook.mergeRequestsEvents,
    note_events: hook.noteEvents,
    confidential_note_events: hook.confidentialNoteEvents,
    job_events: hook.jobEvents,
    pipeline_events: hook.pipelineEvents,
    wiki_page_events: hook.wikiPageEvents,
    repository_update_events: hook.repositoryUpdateEvents,
    enable_ssl_verification: hook.enableSslVerification,
    alert_status: disabled ? ('temporarily_disabled' as const) : ('executable' as const),
    disabled_until: disabled?.toISOString() ?? null,
    created_at: hook.createdAt.toISOString(),
  };
}

export const presentProjectHook = (hook: WebHook, now: Date): ProjectHook => ({
  ...presentFlags(hook, now),
  project_id: keyOf(hook.project!),
});
const presentGroupHook = (hook: WebHook, now: Date): GroupHook => ({ ...presentFlags(hook, now), group_id: keyOf(hook.group!) });

function presentSystemHook(hook: WebHook, now: Date): SystemHook {
  const { id, url, push_events, tag_push_events, merge_requests_events, repository_update_events, enable_ssl_verification, created_at } =
    presentFlags(hook, now);
  return { id, url, push_events, tag_push_events, merge_requests_events, repository_update_events, enable_ssl_verification, created_at };
}

/** A delivery's record as later versions' hook events list answers it. */
function presentHookEvent(log: WebHookLog): HookEvent {
  return {
    id: log.id,
    url: log.url,
    trigger: log.trigger,
    request_headers: log.requestHeaders,
    request_data: log.requestData,
    response_headers: log.responseHeaders ?? {},
    response_body: log.responseBody ?? '',
    execution_duration: Number(log.executionDuration ?? 0),
    response_status: log.responseStatus ?? 'pending',
    status: log.status,
    attempts: log.attempts,
    created_at: log.createdAt.toISOString(),
  };
}

/** Which recorded deliveries `hosting.hooks.deliveries` lists: all, or a hook's, a project's hooks', a trigger's. */
export interface DeliveryFilter {
  hook_id?: number;
  /** The deliveries of the project's own hooks. */
  project_id?: number;
  /** `push_hooks`, `issue_hooks`, `merge_request_hooks`, `note_hooks`, `system_hooks`, ... */
  trigger?: string;
}

/** A recorded delivery, with its hook, as the in-process API lists them (the published HookEvent, without TypeBox). */
export type RecordedDelivery = PublishedHookEvent & { hook_id: number };

/** The recorded deliveries a filter takes, oldest first (the record keeps two days). */
export async function recordedDeliveries(em: EntityManager, filter: DeliveryFilter = {}): Promise<RecordedDelivery[]> {
  const where: FilterQuery<WebHookLog> = {};
  if (filter.hook_id !== undefined) where.hook = filter.hook_id;
  if (filter.project_id !== undefined)
    where.hook = { ...(filter.hook_id === undefined ? {} : { id: filter.hook_id }), project: filter.project_id };
  if (filter.trigger !== undefined) where.trigger = filter.trigger;
  const logs = await em.find(WebHookLog, where, { orderBy: { id: 'asc' } });
  return logs.map((log) => ({ ...presentHookEvent(log), hook_id: keyOf(log.hook) }));
}

/** The response statuses a `status` filter of the hook events list names (undefined: any). */
function responseStatuses(status: ListHookEventsQuery['status']): string[] | undefined {
  if (status === undefined) return undefined;
  if (typeof status === 'number') return [String(status)];
  const codes = (from: number) => Array.from({ length: 100 }, (_, index) => String(from + index));
  if (status === 'successful') return codes(200);
  if (status === 'client_failure') return codes(400);
  return [...codes(500), 'internal error'];
}

/** What a hook's input may set: a project's or group's flags, and a system hook's. */
type HookInput = UpdateProjectHookInput & { repository_update_events?: boolean };

/** Where a kind of hooks belongs: to a project, to a group, or to the instance. */
type HookOwner = { type: 'ProjectHook'; project: number } | { type: 'GroupHook'; group: number } | { type: 'SystemHook' };

/**
 * What every kind of hooks does alike: listed oldest first, read, made and changed with their URL checked as the
 * original checks it, deleted with the record of their deliveries; the record listed and sent again.
 */
abstract class HooksService<Scoped, Shape> extends Service {
  protected abstract ownerOf(scoped: Scoped): HookOwner;
  protected abstract present(hook: WebHook): Shape;

  async list(scoped: Scoped, query: PageQuery): Promise<Page<Shape>> {
    const page = await findPage(this.em, WebHook, this.ownerOf(scoped) as FilterQuery<WebHook>, { id: 'asc' }, query);
    return { ...page, items: page.items.map((hook) => this.present(hook)) };
  }

  async get(scoped: Scoped, hookId: number): Promise<Shape> {
    return this.present(await this.hookOf(scoped, hookId));
  }

  /** 201 with the hook; 400 naming what is wrong with its URL. */
  async create(scoped: Scoped, input: HookInput & { url: string }): Promise<Shape> {
    await this.checkUrl(input.url);
    const hook = this.em.create(WebHook, { ...this.ownerOf(scoped), url: input.url });
    // A system hook hears of repository updates, not of pushes, unless told otherwise (the original's defaults).
    if (hook.type === 'SystemHook') Object.assign(hook, { repositoryUpdateEvents: true, pushEvents: false });
    this.apply(hook, input);
    await this.em.flush();
    // The first hook: the deliveries' consumer hears of every event committed after it (its cursor placed now).
    await placeCursor(this.em, HOOKS_CONSUMER);
    this.ctx.afterCommit(async () => this.ctx.env.hooksExist());
    return this.present(hook);
  }

  /** What is given changes (the URL too, checked again); the rest stays. */
  async update(scoped: Scoped, hookId: number, input: UpdateProjectHookInput): Promise<Shape> {
    const hook = await this.hookOf(scoped, hookId);
    if (input.url !== undefined && input.url !== hook.url) {
      await this.checkUrl(input.url);
      hook.url = input.url;
    }
    this.apply(hook, input);
    await this.em.flush();
    return this.present(hook);
  }

  /** Its deliveries' records go with it. */
  async delete(scoped: Scoped, hookId: number): Promise<void> {
    const hook = await this.hookOf(scoped, hookId);
    await this.em.nativeDelete(WebHook, { id: hook.id });
  }

  /** The record of the hook's deliveries, newest first (later versions' hook events); `status` by the response's. */
  async events(scoped: Scoped, hookId: number, query: ListHookEventsQuery & PageQuery): Promise<Page<HookEvent>> {
    const hook = await this.hookOf(scoped, hookId);
    const statuses = responseStatuses(query.status);
    const where = statuses ? { hook: hook.id, responseStatus: { $in: statuses } } : { hook: hook.id };
    const page = await findPage(this.em, WebHookLog, where, { id: 'desc' }, query);
    return { ...page, items: page.items.map(presentHookEvent) };
  }

  /** A recorded delivery sent again, at once, as recorded; recorded anew. Answers the receiver's status. */
  async resend(scoped: Scoped, hookId: number, logId: number): Promise<{ response_status: number | string }> {
    const hook = await this.hookOf(scoped, hookId);
    const log = await this.em.findOne(WebHookLog, { id: logId, hook: hook.id });
    if (!log) throw new NotFoundError('Web Hook Log');
    const request = { trigger: log.trigger, url: hook.url, headers: log.requestHeaders, body: JSON.stringify(log.requestData) };
    const response = await this.send(hook, request);
    return { response_status: response.status ?? 'internal error' };
  }

  /** Sends a delivery at once and records it (a test, a delivery sent again). */
  protected async send(hook: WebHook, request: { trigger: string; url: string; headers: Record<string, string>; body: string }) {
    const target = { id: hook.id, token_sealed: hook.tokenSealed ?? null, enable_ssl_verification: hook.enableSslVerification };
    const response = await sendToHook(this.sendEnvironment(), target, request);
    await recordSent(this.em, hook.id, request, response, this.ctx.now());
    return response;
  }

  private sendEnvironment(): SendEnvironment {
    const { testDouble } = this.ctx.env;
    return {
      secrets: this.ctx.env.secrets,
      // A test double's faults meet a test delivery as they meet the others.
      faults: () => (testDouble?.enabled ? testDouble.faults : undefined),
      localRequestsAllowed: async () => {
        const settings = await this.ctx.settings();
        return settings.allow_local_requests_from_web_hooks_and_services || this.ctx.env.allowLocalRequests;
      },
    };
  }

  private apply(hook: WebHook, input: HookInput): void {
    for (const [attribute, column] of Object.entries(FLAGS)) {
      const value = input[attribute as keyof HookInput];
      if (typeof value === 'boolean') hook[column] = value;
    }
    if (input.push_events_branch_filter !== undefined) hook.pushEventsBranchFilter = input.push_events_branch_filter || null;
    // An empty token is none, as the original keeps it.
    if (input.token !== undefined) hook.tokenSealed = input.token ? this.ctx.env.secrets.seal(input.token) : null;
  }

  private async checkUrl(url: string): Promise<void> {
    const { allowLocalRequests } = this.ctx.env;
    const allowLocal = (await this.ctx.settings()).allow_local_requests_from_web_hooks_and_services || allowLocalRequests;
    // A host that does not resolve (yet) is taken, as the original takes it: its deliveries fail until it does.
    const problem = await remoteUrlProblem(url, allowLocal, { unresolvable: true });
    if (problem) throw BadRequestError.invalid('url', problem);
  }

  protected async hookOf(scoped: Scoped, hookId: number): Promise<WebHook> {
    const hook = await this.em.findOne(WebHook, { id: hookId, ...this.ownerOf(scoped) } as FilterQuery<WebHook>);
    if (!hook) throw notFound();
    return hook;
  }

  /** The headers of a delivery of this trigger. */
  protected headers(event: string): Record<string, string> {
    return { 'Content-Type': 'application/json', 'X-Gitlab-Event': event, 'User-Agent': `GitLab/${API_VERSION}` };
  }
}

/** A project's hooks (`/projects/:id/hooks`), managed by its maintainers (`admin_project`). */
export class ProjectHooksService extends HooksService<ProjectInScope, ProjectHook> {
  protected ownerOf(scoped: ProjectInScope): HookOwner {
    return { type: 'ProjectHook', project: scoped.project.id };
  }

  protected present(hook: WebHook): ProjectHook {
    return presentProjectHook(hook, this.ctx.now());
  }

  /**
   * POST /projects/:id/hooks/:hook_id/test/:trigger (later versions): a sample of the trigger's kind, made from the
   * project's latest, sent at once; 201 when the receiver took it, else 422 with why.
   */
  async test(scoped: ProjectInScope, hookId: number, trigger: HookTestTrigger): Promise<HookTestResult> {
    const hook = await this.hookOf(scoped, hookId);
    const settings = await this.ctx.settings();
    const context = payloadContext(this.ctx.env.repositories, this.ctx.baseUrl, settings.avatarsvc_enabled);
    const project = (await hookProject(this.em, scoped.project.id, this.ctx.baseUrl))!;
    const payload = await samplePayload(this.em, trigger, project, this.ctx.currentUser.id, context, this.ctx.now());
    if (typeof payload === 'string') throw new UnprocessableEntityError(payload);
    const { event, trigger: recordedAs } = TEST_TRIGGERS[trigger];
    const request = { trigger: recordedAs, url: hook.url, headers: this.headers(event), body: JSON.stringify(payload) };
    const response = await this.send(hook, request);
    if (!delivered(response)) throw new UnprocessableEntityError(response.error ?? `Response status: ${response.status}`);
    return { message: '201 Created' };
  }
}

/** A group's hooks (`/groups/:id/hooks`, later versions): every project of the group and its subgroups, its owners'. */
export class GroupHooksService extends HooksService<GroupInScope, GroupHook> {
  protected ownerOf(scoped: GroupInScope): HookOwner {
    return { type: 'GroupHook', group: scoped.group.id };
  }

  protected present(hook: WebHook): GroupHook {
    return presentGroupHook(hook, this.ctx.now());
  }
}

/** The instance's system hooks (`/hooks`), administrators'. */
export class SystemHooksService extends HooksService<null, SystemHook> {
  protected ownerOf(): HookOwner {
    return { type: 'SystemHook' };
  }

  protected present(hook: WebHook): SystemHook {
    return presentSystemHook(hook, this.ctx.now());
  }

  listAll(query: PageQuery): Promise<Page<SystemHook>> {
    return this.list(null, query);
  }

  add(input: CreateSystemHookInput): Promise<SystemHook> {
    return this.create(null, input);
  }

  remove(hookId: number): Promise<void> {
    return this.delete(null, hookId);
  }

  /**
   * GET /hooks/:hook_id: the original's test, sent at once: a made-up `project_create`, answered as sent (whatever the
   * receiver made of it).
   */
  async test(hookId: number): Promise<SystemHookTest> {
    const hook = await this.hookOf(null, hookId);
    const data = {
      project_id: 1,
      owner_email: 'example@gitlabhq.com',
      owner_name: 'Someone',
      name: 'Ruby',
      path: 'ruby',
      event_name: 'project_create',
    };
    await this.send(hook, { trigger: 'system_hooks', url: hook.url, headers: this.headers('System Hook'), body: JSON.stringify(data) });
    return data;
  }
}
