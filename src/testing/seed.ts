import { rm } from 'node:fs/promises';
import { EVENT_RULES } from '../api/modules.js';
import { runWrite } from '../api/invoke.js';
import { parseInput } from '../api/validation.js';
import { authenticate } from '../auth/caller.js';
import { belowInherited } from '../auth/levels.js';
import { tokenDigest } from '../auth/secrets.js';
import type { EntityManager } from '../db/orm.js';
import { ApiError, BadRequestError, type ValidationMessages } from '../errors.js';
import type { EventBus, NewEvent, RecordedEvent } from '../events/bus.js';
import { eventAction, type EventKind } from '../events/kinds.js';
import { applyActions, type FileAction } from '../git/edit.js';
import type { CreateSystemHookInput } from '../schemas/hooks.js';
import type { RunnerRegistration, UpdateRunnerInput } from '../schemas/runners.js';
import {
  type SeedDescription,
  SeedDescription as SeedDescriptionSchema,
  type SeedNote,
  type SeedResult,
  type SeededItem,
  type SeededProject,
  type SeededWorkItem,
} from '../schemas/seed.js';
import type { Context, Environment } from '../services/context.js';
import { instanceRegistrationToken } from '../services/ci/runner-store.js';
import { RunnersService } from '../services/ci/runners.js';
import { GroupHooksService, ProjectHooksService, SystemHooksService } from '../services/hooks/hooks.js';
import { findGroupInScope } from '../services/projects/namespace-store.js';
import { ProjectsService } from '../services/projects/projects.js';
import { BranchesService } from '../services/repository/branches.js';
import { CommitsService, decodeContent } from '../services/repository/commits.js';
import { TagsService } from '../services/repository/tags.js';
import { strip } from '../services/work-items/label-colors.js';
import { setLabelLinks } from '../services/work-items/label-store.js';
import {
  insertMergeRequest,
  openMergeRequestIid,
  setMergeRequestAssignees,
  updateMergeRequest,
} from '../services/work-items/merge-request-store.js';
import { MergeRequestsService } from '../services/work-items/merge-requests.js';
import { nextIid } from '../services/work-items/issue-store.js';
import { newDiscussionId } from '../services/work-items/note-store.js';
import type { ControlRoute } from './control.js';
import { labelNames, planSeed, type PlannedProject, type SeedPlan } from './seed-plan.js';
import {
  defaultBranches,
  insertIssueAssignees,
  insertIssueLabelLinks,
  insertIssues,
  insertLabels,
  insertMemberships,
  insertMilestones,
  insertNamespaces,
  insertNotes,
  insertProjects,
  insertTokens,
  insertUsers,
  membershipsBelowInherited,
  reserveIds,
  setIidCounters,
} from './seed-store.js';

// A test double's seeds (docs/testing.md "Seeds"): the description (src/schemas/seed.ts) checked whole first
// (src/testing/seed-plan.ts), then made in one transaction as root: users, namespaces, groups, projects, memberships,
// labels, milestones, issues and notes a table at a time (src/testing/seed-store.ts); repositories, merge requests,
// hooks and runners through the services, as the API makes them. A seed records no events: what it makes is the
// instance's first state, not activity (no hook hears of it, the Events API starts empty); the rules that commit with a
// write run all the same (a first branch becomes the default branch and is protected, merge requests take their heads).
// Should it fail, its transaction rolls back and the repositories it made are removed. Its state becomes the test
// double's baseline, which `reset()` returns to.

/** The most items a seed makes in all (each of its lists is bounded too). */
export const SEED_ITEMS_MAX = 100_000;

/** Repositories made at once: each is a few directories and files. */
const REPOSITORIES_AT_ONCE = 64;

/**
 * `hosting.seed(description)`: makes what the description says, answers what it made, and makes that state the test
 * double's baseline. Throws outside the test-double mode; a description that is invalid, names what is not there or
 * takes what is taken is a BadRequestError naming the attribute (`projects[3][namespace]`), and leaves nothing behind.
 */
export async function seed(env: Environment, description: unknown, baseUrl = env.baseUrl ?? 'http://localhost'): Promise<SeedResult> {
  if (!env.testDouble) throw new Error('forgekit: not a test double: start it with testDouble: true (docs/testing.md)');
  return env.testDouble.seed(async () => {
    checkItemCount(description);
    const input = parseInput<SeedDescription>(SeedDescriptionSchema, structuredClone(description ?? {}));
    const caller = await authenticate(env.db.rows, env.tokens, 1, env.clock);
    return runWrite(unrecordedEnvironment(env), caller, baseUrl, undefined, async (ctx) =>
      new SeedWriter(ctx, input, await planSeed(ctx, input)).write(),
    );
  });
}

/** `POST /-/forgekit/seed`: 201 with what the seed made. */
export const seedRoutes: ControlRoute[] = [
  {
    method: 'POST',
    path: 'seed',
    run: async ({ env, baseUrl, body }) => ({ status: 201, body: await seed(env, body, baseUrl) }),
  },
];

/** 400 past SEED_ITEMS_MAX items, counted before anything is validated (lists within lists multiply). */
function checkItemCount(description: unknown): void {
  let count = 0;
  const walk = (value: unknown, depth: number): void => {
    // The schema nests no deeper; what is deeper it refuses.
    if (depth > 8 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) count += value.length;
    if (count > SEED_ITEMS_MAX) throw BadRequestError.invalid('base', `is too large (at most ${SEED_ITEMS_MAX} items in all)`);
    for (const item of Array.isArray(value) ? value : Object.values(value)) walk(item, depth + 1);
  };
  walk(description, 0);
}

/**
 * The environment a seed writes in: the record's rules run as for any write, but no event is recorded nor heard of.
 * (The bus is the instance's: this is a view of it that only overrides `record`.)
 */
function unrecordedEnvironment(env: Environment): Environment {
  const events = Object.create(env.events) as EventBus<Context>;
  events.record = async <K extends EventKind>(scope: Context, _em: EntityManager, event: NewEvent<K>): Promise<RecordedEvent<K>> => {
    const target = event.target ?? null;
    const recorded = {
      id: 0,
      kind: event.kind,
      action: eventAction(event.kind, event.data),
      author_id: event.authorId,
      project_id: event.projectId ?? null,
      group_id: event.groupId ?? null,
      target_type: target?.type ?? null,
      target_id: target?.id ?? null,
      target_iid: target?.iid ?? null,
      target_title: target?.title ?? null,
      issue_id: event.issueId ?? null,
      merge_request_id: event.mergeRequestId ?? null,
      data: event.data,
      created_at: scope.now().toISOString(),
    } as RecordedEvent<K>;
    for (const { kinds, run } of EVENT_RULES) if (kinds.includes(event.kind)) await run(scope, recorded as RecordedEvent);
    return recorded;
  };
  return { ...env, events };
}

/** An error of the API met making the item at `path`, as the seed's 400 naming that item's attributes. */
function namedAt(path: string, error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error instanceof BadRequestError && typeof error.messages === 'object') {
    const named = (name: string) => (name.startsWith(`${path}[`) ? name : `${path}[${name}]`);
    return new BadRequestError(Object.fromEntries(Object.entries(error.messages).map(([name, list]) => [named(name), list])));
  }
  return BadRequestError.invalid(path, error.message);
}

/** `work`, its API errors named at `path`. */
async function makingAt<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw namedAt(path, error);
  }
}

/** A comment to write on an issue or a merge request. */
interface PlannedNote {
  projectId: number;
  kind: 'Issue' | 'MergeRequest';
  item: SeededWorkItem;
  note: SeedNote;
}

/** A checked seed, written as root in one transaction (`ctx`). */
class SeedWriter {
  private readonly now: Date;
  private readonly notes: PlannedNote[] = [];
  private repositoriesMade?: Promise<void>;

  constructor(
    private readonly ctx: Context,
    private readonly input: SeedDescription,
    private readonly plan: SeedPlan,
  ) {
    this.now = ctx.now();
  }

  private get em(): EntityManager {
    return this.ctx.em;
  }

  async write(): Promise<SeedResult> {
    await this.writeUsers();
    await this.writeGroups();
    await this.writeProjects();
    await this.checkInheritedLevels();
    await this.writeLabelsAndMilestones();
    await this.repositoriesMade;
    const commits = await this.fillRepositories();
    const issues = await this.writeIssues();
    const mergeRequests = await this.openMergeRequests();
    await this.writeNotes();
    return this.hooksRunnersAndAnswer(commits, issues, mergeRequests);
  }

  private async writeUsers(): Promise<void> {
    const users = this.plan.users;
    await insertUsers(
      this.em,
      users.map((user) => ({
        id: user.id,
        username: user.username,
        username_lower: user.username.toLowerCase(),
        name: user.name,
        email: user.email,
        password_hash: user.passwordHash,
        admin: user.admin,
        external: user.external,
        projects_limit: user.projectsLimit,
        can_create_group: !user.external,
      })),
      this.now,
    );
    await insertNamespaces(
      this.em,
      users.map(({ namespace }) => ({
        id: namespace.id,
        kind: 'user',
        name: namespace.fullPath,
        path: namespace.fullPath,
        full_path: namespace.fullPath,
        full_name: namespace.fullName,
        owner_id: namespace.ownerId,
        traversal_ids: namespace.traversalIds,
      })),
      this.now,
    );
    await insertTokens(
      this.em,
      users.map((user) => ({ user_id: user.id, digest: tokenDigest(user.token), scopes: user.scopes })),
      this.now,
    );
  }

  private async writeGroups(): Promise<void> {
    const { groups } = this.plan;
    await insertNamespaces(
      this.em,
      groups.map((group) => ({
        id: group.ref.id,
        kind: 'group',
        name: group.name,
        path: group.input.path,
        full_path: group.ref.fullPath,
        full_name: group.ref.fullName,
        parent_id: group.parentId,
        traversal_ids: group.ref.traversalIds,
        description: group.input.description ?? '',
        visibility: group.ref.visibility,
        // Its token for registering runners, as a project's: sealed, with its digest.
        runners_token_sealed: this.ctx.env.secrets.seal(group.token),
        runners_token_digest: tokenDigest(group.token),
      })),
      this.now,
    );
    const members = groups.flatMap((group) =>
      group.members.map((member) => ({ source_id: group.ref.id, user_id: member.userId, access_level: member.accessLevel })),
    );
    await insertMemberships(this.em, 'group', members, this.now);
  }

  private async writeProjects(): Promise<void> {
    const { projects } = this.plan;
    const secrets = this.ctx.env.secrets;
    await insertProjects(
      this.em,
      projects.map((project) => ({
        id: project.id,
        name: project.name,
        path: project.path,
        namespace_id: project.namespace.id,
        creator_id: project.creatorId,
        description: project.input.description ?? null,
        visibility: project.visibility,
        storage: project.storage,
        sealed: secrets.seal(project.runnersToken),
        digest: tokenDigest(project.runnersToken),
      })),
      this.now,
    );
    const members = projects.flatMap((project) =>
      project.members.map((member) => ({ source_id: project.id, user_id: member.userId, access_level: member.accessLevel })),
    );
    await insertMemberships(this.em, 'project', members, this.now);
    // The repositories are made while the rows are written; their contents wait for them (fillRepositories).
    this.repositoriesMade = this.makeRepositories(projects);
    this.repositoriesMade.catch(() => {});
  }

  private async makeRepositories(projects: PlannedProject[]): Promise<void> {
    const repositories = this.ctx.env.repositories;
    // Should the seed fail, its repositories go: their projects' IDs may be given again after a reset.
    this.ctx.onFailure(async () => {
      await this.repositoriesMade?.catch(() => {});
      await Promise.all(projects.map((project) => rm(repositories.path(project.storage, project.id), { recursive: true, force: true })));
    });
    for (let start = 0; start < projects.length; start += REPOSITORIES_AT_ONCE) {
      const batch = projects.slice(start, start + REPOSITORIES_AT_ONCE);
      await Promise.all(batch.map((project) => repositories.create(project.storage, project.id, project.headBranch)));
    }
  }

  /** No membership below what its user has from a group above (the members API's rule), once every one is written. */
  private async checkInheritedLevels(): Promise<void> {
    const groupIds = this.plan.groups.map((group) => group.ref.id);
    const projectIds = this.plan.projects.map((project) => project.id);
    if (!groupIds.length && !projectIds.length) return;
    const refusals = await membershipsBelowInherited(this.em, groupIds, projectIds);
    if (!refusals.length) return;
    const messages: ValidationMessages = {};
    // Each refused for the highest level it inherits, as the members API refuses one.
    for (const row of refusals.sort((a, b) => Number(b.inherited) - Number(a.inherited))) {
      const path = `${this.plan.memberPath(row.kind as 'group' | 'project', Number(row.source_id), Number(row.user_id))}[access_level]`;
      const inherited = { access_level: Number(row.inherited), source_name: String(row.source_name) };
      messages[path] ??= [belowInherited(Number(row.access_level), inherited)!];
    }
    throw new BadRequestError(messages);
  }

  private async writeLabelsAndMilestones(): Promise<void> {
    const { projects } = this.plan;
    const labels = projects.flatMap((project) => [...project.labels].map(([title, label]) => ({ project, title, label })));
    const labelIds = await reserveIds(this.em, 'labels', labels.length);
    for (const [index, entry] of labels.entries()) entry.label.id = labelIds[index];
    await insertLabels(
      this.em,
      labels.map(({ project, title, label }) => ({ project_id: project.id, title, ...label })),
      this.now,
    );
    const milestones = projects.flatMap((project) => [...project.milestones].map(([title, milestone]) => ({ project, title, milestone })));
    const milestoneIds = await reserveIds(this.em, 'milestones', milestones.length);
    for (const [index, entry] of milestones.entries()) entry.milestone.id = milestoneIds[index];
    await insertMilestones(
      this.em,
      milestones.map(({ project, title, milestone }) => ({
        id: milestone.id,
        iid: milestone.iid,
        project_id: project.id,
        title,
        description: milestone.input.description ?? null,
        state: milestone.input.state ?? 'active',
        due_date: milestone.input.due_date ?? null,
        start_date: milestone.input.start_date ?? null,
      })),
      this.now,
    );
    await setIidCounters(
      this.em,
      'milestones',
      projects.map((project) => ({ project_id: project.id, last: project.milestones.size })),
    );
  }

  /** Each project's commits in order, then its branches and tags, through the repository's services: their SHAs by project. */
  private async fillRepositories(): Promise<Map<number, string[]>> {
    const commitsBy = new Map<number, string[]>();
    for (const project of this.plan.projects) {
      const { commits = [], branches = [], tags = [] } = project.input;
      if (!commits.length && !branches.length && !tags.length) continue;
      const at = `projects[${project.index}]`;
      const scoped = (await new ProjectsService(this.ctx).findInScope(project.id))!;
      const made: string[] = [];
      for (const [number, commit] of commits.entries()) {
        const path = `${at}[commits][${number}]`;
        const author = this.plan.user(commit.author);
        const written = await makingAt(path, () =>
          new CommitsService(this.ctx).commit(scoped, {
            branch: commit.branch,
            startBranch: commit.start_branch,
            message: commit.message,
            committer: { name: author.name, email: author.email },
            // Each file made, or changed where the branch has it.
            tree: async (repo, base) => {
              const actions: FileAction[] = [];
              for (const [file, given] of commit.files.entries()) {
                const content = decodeContent(given.content, given.encoding, `${path}[files][${file}][content]`);
                const exists = base !== null && (await repo.entryAt(base.tree, given.path))?.type === 'blob';
                actions.push({ action: exists ? 'update' : 'create', path: given.path, content });
              }
              return applyActions(repo, base?.tree ?? null, actions);
            },
          }),
        );
        made.push(written.oid);
      }
      commitsBy.set(project.id, made);
      for (const [number, branch] of branches.entries())
        await makingAt(`${at}[branches][${number}]`, () => new BranchesService(this.ctx).create(scoped, branch));
      for (const [number, tag] of tags.entries())
        await makingAt(`${at}[tags][${number}]`, () => new TagsService(this.ctx).create(scoped, tag));
    }
    return commitsBy;
  }

  /** Every project's issues at once, their iids in the order given; closed ones closed by root. */
  private async writeIssues(): Promise<Map<number, SeededWorkItem[]>> {
    const entries = this.plan.projects.flatMap((project) =>
      (project.input.issues ?? []).map((issue, index) => ({ project, issue, index })),
    );
    const made = new Map<number, SeededWorkItem[]>();
    const ids = await reserveIds(this.em, 'issues', entries.length);
    const rows = entries.map(({ project, issue, index }, position) => {
      const closed = issue.state === 'closed';
      const item: SeededWorkItem = {
        id: ids[position],
        iid: index + 1,
        web_url: `${this.projectUrl(project)}/issues/${index + 1}`,
        notes: [],
      };
      made.set(project.id, [...(made.get(project.id) ?? []), item]);
      this.notesOf(project, 'Issue', item, issue.notes);
      return {
        id: item.id,
        project_id: project.id,
        iid: item.iid,
        title: issue.title,
        description: issue.description ?? null,
        state: closed ? 'closed' : 'opened',
        author_id: this.plan.userId(issue.author),
        confidential: issue.confidential ?? false,
        discussion_locked: issue.discussion_locked ?? false,
        due_date: issue.due_date ?? null,
        milestone_id: issue.milestone === undefined ? null : project.milestones.get(strip(issue.milestone))!.id,
        closed_at: closed ? this.now.toISOString() : null,
        closed_by_id: closed ? this.ctx.currentUser.id : null,
      };
    });
    await insertIssues(this.em, rows, this.now);
    await insertIssueAssignees(
      this.em,
      entries.flatMap(({ issue }, position) =>
        this.plan.userIds(issue.assignees).map((userId) => ({ issue_id: ids[position], user_id: userId })),
      ),
    );
    await insertIssueLabelLinks(
      this.em,
      entries.flatMap(({ project, issue }, position) =>
        labelNames(issue.labels).map((name) => ({ label_id: project.labels.get(name)!.id, target_id: ids[position] })),
      ),
      this.now,
    );
    await setIidCounters(
      this.em,
      'issues',
      this.plan.projects.map((project) => ({ project_id: project.id, last: project.input.issues?.length ?? 0 })),
    );
    return made;
  }

  /**
   * Each merge request as the merge requests API opens one (the project's next iid, its branches' heads, then its merge
   * base and merge status worked out), then closed when the seed says so.
   */
  private async openMergeRequests(): Promise<Map<number, SeededWorkItem[]>> {
    const made = new Map<number, SeededWorkItem[]>();
    for (const project of this.plan.projects) {
      const requests = project.input.merge_requests ?? [];
      if (!requests.length) continue;
      const scoped = (await new ProjectsService(this.ctx).findInScope(project.id))!;
      const repo = this.ctx.repositoryOf(scoped.project);
      const service = new MergeRequestsService(this.ctx);
      const items: SeededWorkItem[] = [];
      for (const [number, request] of requests.entries()) {
        const at = `projects[${project.index}][merge_requests][${number}]`;
        const targetBranch = request.target_branch ?? (await repo.headBranch()) ?? project.headBranch;
        const [head, start] = await Promise.all([repo.branch(request.source_branch), repo.branch(targetBranch)]);
        if (!head) throw BadRequestError.invalid(`${at}[source_branch]`, 'does not exist');
        if (!start) throw BadRequestError.invalid(`${at}[target_branch]`, 'does not exist');
        if (request.source_branch === targetBranch)
          throw BadRequestError.invalid(`${at}[target_branch]`, "You can't use same project/branch for source and target");
        const pair = { sourceProjectId: project.id, sourceBranch: request.source_branch, projectId: project.id, targetBranch };
        const iid = await nextIid(this.em, 'merge_requests', { projectId: project.id });
        const id = await insertMergeRequest(this.em, {
          ...pair,
          iid,
          authorId: this.plan.userId(request.author),
          now: this.now,
          title: request.title,
          description: request.description ?? null,
          head_sha: head,
          start_sha: start,
          force_remove_source_branch: request.remove_source_branch ?? false,
          discussion_locked: request.discussion_locked ?? false,
          milestone_id: request.milestone === undefined ? null : project.milestones.get(strip(request.milestone))!.id,
        });
        if (id === null) {
          const open = await openMergeRequestIid(this.em, pair);
          throw BadRequestError.invalid(
            `${at}[source_branch]`,
            `Another open merge request already exists for this source branch: !${open}`,
          );
        }
        const assignees = this.plan.userIds(request.assignees);
        if (assignees.length) await setMergeRequestAssignees(this.em, id, assignees);
        const labels = labelNames(request.labels).map((name) => project.labels.get(name)!.id);
        if (labels.length) await setLabelLinks(this.em, 'MergeRequest', id, labels, this.now);
        // Read as the API reads it: its merge base and merge status are worked out and kept.
        await service.get((await service.findInScope(scoped, iid))!);
        if (request.state === 'closed') {
          await updateMergeRequest(this.em, id, {
            state: 'closed',
            closed_at: this.now,
            closed_by_id: this.ctx.currentUser.id,
            merge_when_pipeline_succeeds: false,
          });
        }
        const item: SeededWorkItem = { id, iid, web_url: `${this.projectUrl(project)}/merge_requests/${iid}`, notes: [] };
        items.push(item);
        this.notesOf(project, 'MergeRequest', item, request.notes);
      }
      made.set(project.id, items);
    }
    return made;
  }

  private notesOf(project: PlannedProject, kind: 'Issue' | 'MergeRequest', item: SeededWorkItem, notes: SeedNote[] | undefined): void {
    for (const note of notes ?? []) this.notes.push({ projectId: project.id, kind, item, note });
  }

  private async writeNotes(): Promise<void> {
    const ids = await reserveIds(this.em, 'notes', this.notes.length);
    for (const [index, planned] of this.notes.entries()) planned.item.notes.push({ id: ids[index] });
    await insertNotes(
      this.em,
      this.notes.map((planned, index) => ({
        id: ids[index],
        project_id: planned.projectId,
        target_kind: planned.kind,
        target_id: planned.item.id,
        author_id: this.plan.userId(planned.note.author),
        body: planned.note.body,
        discussion_id: newDiscussionId(),
      })),
      this.now,
    );
  }

  /** The hooks and runners, through their services, and what the seed made. */
  private async hooksRunnersAndAnswer(
    commits: Map<number, string[]>,
    issues: Map<number, SeededWorkItem[]>,
    mergeRequests: Map<number, SeededWorkItem[]>,
  ): Promise<SeedResult> {
    const baseUrl = this.ctx.baseUrl;
    const users = this.plan.users.map((user) => ({
      id: user.id,
      username: user.username,
      web_url: `${baseUrl}/${user.username}`,
      token: user.token,
    }));
    const groups = [];
    for (const group of this.plan.groups) {
      const at = `groups[${group.index}]`;
      const scoped = group.input.hooks?.length ? (await findGroupInScope(this.ctx, group.ref.id))! : undefined;
      const hooks = await this.hooks(group.input.hooks, `${at}[hooks]`, (hook) => new GroupHooksService(this.ctx).create(scoped!, hook));
      groups.push({
        id: group.ref.id,
        full_path: group.ref.fullPath,
        web_url: `${baseUrl}/groups/${group.ref.fullPath}`,
        runners_token: group.token,
        hooks,
        runners: await this.runners(group.input.runners, group.token, `${at}[runners]`),
      });
    }
    const branches = await defaultBranches(
      this.em,
      this.plan.projects.map((project) => project.id),
    );
    const projects: SeededProject[] = [];
    for (const project of this.plan.projects) {
      const at = `projects[${project.index}]`;
      const webUrl = this.projectUrl(project);
      const scoped = project.input.hooks?.length ? (await new ProjectsService(this.ctx).findInScope(project.id))! : undefined;
      projects.push({
        id: project.id,
        path_with_namespace: `${project.namespace.fullPath}/${project.path}`,
        web_url: webUrl,
        http_url_to_repo: `${webUrl}.git`,
        runners_token: project.runnersToken,
        default_branch: branches.get(project.id) ?? null,
        labels: [...project.labels].map(([name, label]) => ({ id: label.id, name })),
        milestones: [...project.milestones].map(([title, milestone]) => ({ id: milestone.id, iid: milestone.iid, title })),
        commits: (commits.get(project.id) ?? []).map((id) => ({ id })),
        issues: issues.get(project.id) ?? [],
        merge_requests: mergeRequests.get(project.id) ?? [],
        hooks: await this.hooks(project.input.hooks, `${at}[hooks]`, (hook) => new ProjectHooksService(this.ctx).create(scoped!, hook)),
        runners: await this.runners(project.input.runners, project.runnersToken, `${at}[runners]`),
      });
    }
    const instanceToken = this.input.runners?.length ? this.ctx.env.secrets.open(await instanceRegistrationToken(this.em)) : '';
    return {
      users,
      groups,
      projects,
      runners: await this.runners(this.input.runners, instanceToken, 'runners'),
      hooks: await this.hooks(this.input.hooks, 'hooks', (hook: CreateSystemHookInput) =>
        new SystemHooksService(this.ctx).create(null, hook),
      ),
    };
  }

  private async hooks<H>(list: H[] | undefined, path: string, create: (hook: H) => Promise<{ id: number }>): Promise<SeededItem[]> {
    const made: SeededItem[] = [];
    for (const [index, hook] of (list ?? []).entries()) made.push({ id: (await makingAt(`${path}[${index}]`, () => create(hook))).id });
    return made;
  }

  /** Runners registered with a registration token, as a runner registers itself. */
  private async runners(list: UpdateRunnerInput[] | undefined, token: string, path: string): Promise<RunnerRegistration[]> {
    const made: RunnerRegistration[] = [];
    for (const [index, runner] of (list ?? []).entries())
      made.push(await makingAt(`${path}[${index}]`, () => new RunnersService(this.ctx).register({ ...runner, token })));
    return made;
  }

  private projectUrl(project: PlannedProject): string {
    return `${this.ctx.baseUrl}/${project.namespace.fullPath}/${project.path}`;
  }
}
