import type { ProjectInScope } from '../../auth/abilities.js';
import { WebHook } from '../../db/entities/hooks.js';
import { keyOf } from '../../db/rows.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import { remoteUrlProblem } from '../projects/import-url.js';
import type { CreateProjectHookInput, ProjectHook, UpdateProjectHookInput } from '../../schemas/hooks.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { Service } from '../service.js';

/** The original's `Hook Not Found` for a hook of another project, or none. */
const notFound = () => new NotFoundError('Hook');

/** The flags a project hook's input may set, by attribute, with their column. */
const PROJECT_FLAGS = {
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
  enable_ssl_verification: 'enableSslVerification',
} as const;

export function presentProjectHook(hook: WebHook): ProjectHook {
  return {
    id: hook.id,
    url: hook.url,
    project_id: keyOf(hook.project!),
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
    created_at: hook.createdAt.toISOString(),
  };
}

/** A project's hooks (`/projects/:id/hooks`), managed by its maintainers (`admin_project`). */
export class ProjectHooksService extends Service {
  /** GET /projects/:id/hooks: oldest first. */
  async list(scoped: ProjectInScope, query: PageQuery): Promise<Page<ProjectHook>> {
    const page = await findPage(this.em, WebHook, { project: scoped.project.id, type: 'ProjectHook' }, { id: 'asc' }, query);
    return { ...page, items: page.items.map(presentProjectHook) };
  }

  async get(scoped: ProjectInScope, hookId: number): Promise<ProjectHook> {
    return presentProjectHook(await this.hookOf(scoped, hookId));
  }

  /** POST /projects/:id/hooks: 201 with the hook; 400 naming what is wrong with its URL. */
  async create(scoped: ProjectInScope, input: CreateProjectHookInput): Promise<ProjectHook> {
    await this.checkUrl(input.url);
    const hook = this.em.create(WebHook, { type: 'ProjectHook', project: scoped.project.id, url: input.url });
    this.apply(hook, input);
    await this.em.flush();
    this.ctx.afterCommit(async () => this.ctx.env.hooksExist());
    return presentProjectHook(hook);
  }

  /** PUT /projects/:id/hooks/:hook_id: what is given changes (the URL too, checked again); the rest stays. */
  async update(scoped: ProjectInScope, hookId: number, input: UpdateProjectHookInput): Promise<ProjectHook> {
    const hook = await this.hookOf(scoped, hookId);
    if (input.url !== undefined && input.url !== hook.url) {
      await this.checkUrl(input.url);
      hook.url = input.url;
    }
    this.apply(hook, input);
    await this.em.flush();
    return presentProjectHook(hook);
  }

  /** DELETE /projects/:id/hooks/:hook_id: its deliveries' records go with it. */
  async delete(scoped: ProjectInScope, hookId: number): Promise<void> {
    const hook = await this.hookOf(scoped, hookId);
    await this.em.nativeDelete(WebHook, { id: hook.id });
  }

  private apply(hook: WebHook, input: UpdateProjectHookInput): void {
    for (const [attribute, column] of Object.entries(PROJECT_FLAGS)) {
      const value = input[attribute as keyof typeof PROJECT_FLAGS];
      if (value !== undefined) hook[column] = value;
    }
    if (input.push_events_branch_filter !== undefined) hook.pushEventsBranchFilter = input.push_events_branch_filter || null;
    // An empty token is none, as the original keeps it.
    if (input.token !== undefined) hook.tokenSealed = input.token ? this.ctx.env.secrets.seal(input.token) : null;
  }

  private async checkUrl(url: string): Promise<void> {
    const settings = await this.ctx.settings();
    const allowLocal = settings.allow_local_requests_from_web_hooks_and_services || this.ctx.env.allowLocalRequests;
    // A host that does not resolve (yet) is taken, as the original takes it: its deliveries fail until it does.
    const problem = await remoteUrlProblem(url, allowLocal, { unresolvable: true });
    if (problem) throw BadRequestError.invalid('url', problem);
  }

  private async hookOf(scoped: ProjectInScope, hookId: number): Promise<WebHook> {
    const hook = await this.em.findOne(WebHook, { id: hookId, project: scoped.project.id, type: 'ProjectHook' });
    if (!hook) throw notFound();
    return hook;
  }
}
