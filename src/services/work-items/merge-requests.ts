import { closeIssue, findIssueInScope, findMergeRequestInScope, type MergeRequestTarget } from './work-item-scopes.js';
import { can, mergesToBranch, pushesToBranch, type ProjectInScope } from '../../auth/abilities.js';
import { visibleMergeRequestsSql } from '../../auth/access-levels.js';
import type { Namespace } from '../../db/entities/index.js';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  MethodNotAllowedError,
  NotAcceptableError,
  NotFoundError,
  NotModifiedError,
  UnauthorizedError,
} from '../../errors.js';
import { commitsBetween, mergeBase } from '../../git/ancestry.js';
import { changesBetween } from '../../git/diff.js';
import { MergeConflictError } from '../../git/errors.js';
import { mergeTrees } from '../../git/merge.js';
import { BRANCH_PREFIX, type Repository, type Signature } from '../../git/repository.js';
import { copyMissingObjects } from '../../git/transfer.js';
import type { Commit } from '../../schemas/commits.js';
import type { IssueBasic } from '../../schemas/issues.js';
import type {
  CreateMergeRequestInput,
  GetMergeRequestQuery,
  ListMergeRequestsQuery,
  MergeInput,
  MergeRequest,
  MergeRequestBasic,
  MergeRequestChanges,
  MergeRequestSimple,
  UpdateMergeRequestInput,
} from '../../schemas/merge-requests.js';
import { pageRequest, type Page, type PageQuery } from '../pagination.js';
import { presentCommit } from '../present/commits.js';
import { presentIssueBasic } from '../present/issues.js';
import { presentMergeRequest, presentMergeRequestBasic, presentMergeRequestSimple, type ReferenceBase } from '../present/merge-requests.js';
import { projectWebUrl } from '../present/projects.js';
import { lastPipelineOf } from '../repository/status-store.js';
import { type ReferenceUpdate, writeRepository } from '../repository/writes.js';
import { Service } from '../service.js';
import { issueRow, nextIid, participatesIn, setSubscription, subscriptionChoice } from './issue-store.js';
import { labelIdsOf, setLabelLinks } from './label-store.js';
import {
  DRAFT_TITLE,
  insertMergeRequest,
  mergeRequestPage,
  mergeRequestRow,
  openMergeRequestIid,
  setMergeRequestAssignees,
  keepWorkedOut,
  updateMergeRequest,
  type MergeRequestColumns,
  type MergeRequestFilter,
  type MergeRequestRow,
} from './merge-request-store.js';
import { findUsableMilestone } from './milestone-store.js';
import { insertNote } from './note-store.js';
import { closingIssueReferencesIn } from './references.js';
import { lockNote, statusNote } from './system-notes.js';
import {
  assigneeIdsOf,
  checkTitle,
  checkUpdate,
  finishUpdate,
  NO_PEOPLE_OR_LABELS,
  milestoneChange,
  peopleAndLabelChanges,
  textChanges,
} from './work-item-changes.js';
import { existingUserIds } from './issue-store.js';
import { recordWorkItemEvent } from './work-item-events.js';
import { workItemFilter } from './work-item-filters.js';
import { projectProtections, protectionOf } from '../repository/branch-protection.js';
import { DiffService } from '../repository/diffs.js';
import { ProjectsService } from '../projects/projects.js';

/** Whose merge requests a list shows: one project's, the projects of a group and its subgroups, or every project's. */
type MergeRequestsSource = { project: ProjectInScope } | { groupId: number; groupPath: string } | { all: true };

/** The original's refusal of a request from a branch into itself. */
const SAME_BRANCH = { validate_branches: ["You can't use same project/branch for source and target"] };

/** SPEC.md's refusals of an accepting call. */
const MERGE_REFUSALS = {
  cannotBeMerged: 'Branch cannot be merged',
  notOpen: 'Method Not Allowed',
  shaMismatch: 'SHA does not match HEAD of source branch',
};

/**
 * Merge requests: from a branch of a project into another of the same project or of its upstream (from a fork);
 * listed with the work items' filters, read with their commits and changes from the merge base, changed, closed,
 * reopened, merged by a real merge commit, deleted; the issues they close.
 */
export class MergeRequestsService extends Service {
  /** The merge request a path names by iid in the project (the nested scope of `/merge_requests/:merge_request_iid`); null for none. */
  findInScope(project: ProjectInScope, iid: string | number): Promise<MergeRequestTarget | null> {
    return findMergeRequestInScope(this.ctx, project, iid);
  }

  /** GET /merge_requests: of every project the caller may read; its own (`created-by-me`) unless another scope is asked. */
  listAll(query: ListMergeRequestsQuery & PageQuery): Promise<Page<MergeRequestBasic | MergeRequestSimple>> {
    return this.list({ all: true }, query, 'created-by-me');
  }

  /** GET /groups/:id/merge_requests: of the group's projects and its subgroups'. */
  listForGroup(
    group: { group: Namespace },
    query: ListMergeRequestsQuery & PageQuery,
  ): Promise<Page<MergeRequestBasic | MergeRequestSimple>> {
    return this.list({ groupId: group.group.id, groupPath: group.group.fullPath }, query, 'all');
  }

  /** GET /projects/:id/merge_requests. */
  listForProject(
    project: ProjectInScope,
    query: ListMergeRequestsQuery & PageQuery,
  ): Promise<Page<MergeRequestBasic | MergeRequestSimple>> {
    return this.list({ project }, query, 'all');
  }

  private async list(source: MergeRequestsSource, query: ListMergeRequestsQuery & PageQuery, defaultScope: 'created-by-me' | 'all') {
    const view = await this.ctx.view();
    const window = pageRequest(query);
    if ('project' in source && !can(this.ctx.caller, 'read_merge_requests', source.project))
      return { items: [], total: 0, page: window.page, perPage: window.perPage };
    const filter = this.filterOf(source, query, defaultScope);
    const { total, rows } = await mergeRequestPage(
      view.rows,
      filter,
      { orderBy: query.order_by ?? 'created_at', sort: query.sort ?? 'desc' },
      { limit: window.perPage, offset: window.offset },
    );
    const from: ReferenceBase =
      'project' in source ? { projectId: source.project.project.id } : 'groupId' in source ? { groupPath: source.groupPath } : null;
    const items = rows.map((row) =>
      query.view === 'simple' ? presentMergeRequestSimple(row, view) : presentMergeRequestBasic(row, view, from),
    );
    return { items, total, page: window.page, perPage: window.perPage };
  }

  /** The list's filters as conditions; visibility always, in SQL. */
  private filterOf(source: MergeRequestsSource, query: ListMergeRequestsQuery, defaultScope: 'created-by-me' | 'all'): MergeRequestFilter {
    const where =
      'project' in source
        ? { projectId: source.project.project.id, visible: visibleMergeRequestsSql(this.ctx.caller, this.ctx.today(), { inProject: true }) }
        : {
            groupId: 'groupId' in source ? source.groupId : undefined,
            visible: visibleMergeRequestsSql(this.ctx.caller, this.ctx.today()),
          };
    const filter: MergeRequestFilter = workItemFilter(query, where, this.ctx.currentUser.id, defaultScope);
    if (query.source_branch !== undefined) filter.sourceBranch = query.source_branch;
    if (query.target_branch !== undefined) filter.targetBranch = query.target_branch;
    if (query.wip !== undefined) filter.draft = query.wip === 'yes';
    return filter;
  }

  /**
   * GET /projects/:id/merge_requests/:merge_request_iid: with its merge base and merge status worked out when the
   * branches moved; `diverged_commits_count` and `rebase_in_progress` when asked, as later clients ask.
   */
  async get(scoped: MergeRequestTarget, query: GetMergeRequestQuery = {}): Promise<MergeRequest> {
    return this.present(scoped, query);
  }

  /** The merge request as single answers show it, for the caller. */
  async present(scoped: MergeRequestTarget, query: GetMergeRequestQuery = {}): Promise<MergeRequest> {
    const view = await this.ctx.view();
    const row = await this.current(scoped);
    const changes = row.base_sha !== null && row.head_sha !== null ? await this.changedFiles(scoped, row) : null;
    const pipeline = await this.headPipeline(row);
    const source =
      pipeline && row.source_project_id !== scoped.project.project.id
        ? await new ProjectsService(this.ctx).findInScope(row.source_project_id!)
        : scoped.project;
    return presentMergeRequest(
      row,
      {
        subscribed: await this.subscribed(scoped.id),
        canMerge: row.state === 'opened' && (await this.mayMerge(scoped, row.target_branch)),
        changesCount: changes?.count ?? null,
        changesOverflow: changes?.overflow ?? false,
        pipeline:
          pipeline && source
            ? { ...pipeline, web_url: `${projectWebUrl(source.project, source.namespace, this.ctx.baseUrl)}/pipelines/${pipeline.id}` }
            : null,
        divergedCommitsCount: query.include_diverged_commits_count ? await this.divergedCommits(scoped, row) : undefined,
        rebaseInProgress: query.include_rebase_in_progress ? false : undefined,
      },
      view,
    );
  }

  /** GET .../commits: the commits of the source branch the target branch lacks, newest first. */
  async commits(scoped: MergeRequestTarget, query: PageQuery): Promise<Page<Commit>> {
    const row = await this.current(scoped);
    const window = pageRequest(query);
    if (!row.head_sha) return { items: [], total: 0, page: window.page, perPage: window.perPage };
    const repo = this.ctx.repositoryOf(scoped.project.project);
    const oids = (row.start_sha ? await commitsBetween(repo, row.start_sha, row.head_sha) : [row.head_sha]).reverse();
    const projectUrl = projectWebUrl(scoped.project.project, scoped.project.namespace, this.ctx.baseUrl);
    const items = await Promise.all(
      oids.slice(window.offset, window.offset + window.perPage).map(async (oid) => presentCommit(await repo.readCommit(oid), projectUrl)),
    );
    return { items, total: oids.length, page: window.page, perPage: window.perPage };
  }

  /** GET .../changes: the merge request with the files changed from the merge base to the source branch's head. */
  async changes(scoped: MergeRequestTarget): Promise<MergeRequestChanges> {
    const shown = await this.present(scoped);
    const row = await this.current(scoped);
    if (!row.head_sha) return { ...shown, changes: [], overflow: false };
    const { diffs, overflow } = await new DiffService(this.ctx).boundedDiffs(
      this.ctx.repositoryOf(scoped.project.project),
      row.base_sha,
      row.head_sha,
    );
    return { ...shown, changes: diffs, overflow };
  }

  /**
   * The merge request's row, its merge base and merge status worked out if the branches moved since (an open one
   * only: a merged or closed request keeps what it had). What is worked out is kept for the two heads it was worked
   * out from, unless they moved meanwhile.
   */
  private async current(scoped: MergeRequestTarget): Promise<MergeRequestRow> {
    const em = (await this.ctx.view()).rows;
    const row = (await mergeRequestRow(em, scoped.id))!;
    if (row.state !== 'opened' || !row.head_sha || !row.start_sha || (row.base_sha !== null && row.merge_status !== 'unchecked'))
      return row;
    const repo = this.ctx.repositoryOf(scoped.project.project);
    await this.sourceObjectsIn(row, repo);
    // A fork deleted before its new commits were brought over: nothing to work out from.
    if ((await repo.objectType(row.head_sha)) !== 'commit' || (await repo.objectType(row.start_sha)) !== 'commit') return row;
    const base = row.base_sha ?? (await mergeBase(repo, row.start_sha, row.head_sha));
    const mergeable = await mergesCleanly(repo, base, row.start_sha, row.head_sha);
    const worked = { base_sha: base, merge_status: mergeable ? ('can_be_merged' as const) : ('cannot_be_merged' as const) };
    await keepWorkedOut(this.ctx.em, row, worked);
    return { ...row, ...worked };
  }

  /** How many commits the target branch has that the source branch lacks. */
  private async divergedCommits(scoped: MergeRequestTarget, row: MergeRequestRow): Promise<number> {
    if (!row.head_sha || !row.start_sha) return 0;
    const repo = this.ctx.repositoryOf(scoped.project.project);
    if ((await repo.objectType(row.head_sha)) !== 'commit') return 0;
    return (await commitsBetween(repo, row.head_sha, row.start_sha)).length;
  }

  /** How many files the request changes from its merge base (no more than the limit of its changes). */
  private async changedFiles(scoped: MergeRequestTarget, row: MergeRequestRow): Promise<{ count: number; overflow: boolean }> {
    const repo = this.ctx.repositoryOf(scoped.project.project);
    const baseTree = row.base_sha ? (await repo.readCommit(row.base_sha)).tree : null;
    const changes = await changesBetween(repo, baseTree, (await repo.readCommit(row.head_sha!)).tree);
    return { count: Math.min(changes.length, CHANGES_LIMIT), overflow: changes.length > CHANGES_LIMIT };
  }

  /** A fork's commits brought into the target's repository, where the request is compared and merged. */
  private async sourceObjectsIn(
    row: Pick<MergeRequestRow, 'source_project_id' | 'project_id' | 'head_sha'>,
    repo: Repository,
  ): Promise<void> {
    if (row.source_project_id === row.project_id || row.source_project_id === null || !row.head_sha) return;
    const source = await new ProjectsService(this.ctx).findInScope(row.source_project_id);
    if (!source) return;
    await copyMissingObjects(this.ctx.repositoryOf(source.project), repo, row.head_sha);
  }

  /** Whether the caller may merge into the branch of the request's project: push to it, or merge as its protection allows. */
  private async mayMerge(scoped: MergeRequestTarget, branch: string): Promise<boolean> {
    const protection = protectionOf(await projectProtections(this.ctx, scoped.project.project.id), branch);
    return mergesToBranch(this.ctx.caller, scoped.project, protection);
  }

  /** Whether the caller hears of the merge request: its own choice, or else whether it takes part in it. */
  private async subscribed(id: number): Promise<boolean> {
    const user = this.ctx.caller.user;
    if (!user) return false;
    const rows = (await this.ctx.view()).rows;
    return (await subscriptionChoice(rows, 'MergeRequest', id, user.id)) ?? (await participatesIn(rows, 'MergeRequest', id, user.id));
  }

  /**
   * POST /projects/:id/merge_requests: a request from a branch of this project into a branch of this project or,
   * from a fork, of its upstream (`target_project_id`). 400 for a branch that does not exist or the same branch of
   * the same project; 409 while an open request from the same source branch into the same target branch exists.
   */
  async create(source: ProjectInScope, input: CreateMergeRequestInput): Promise<MergeRequest> {
    checkTitle(input.title);
    const em = this.ctx.em;
    const now = this.ctx.now();
    if (!can(this.ctx.caller, 'create_merge_request_from', source)) throw new ForbiddenError();
    const target = await this.targetOf(source, input.target_project_id);
    const sourceRepo = this.ctx.repositoryOf(source.project);
    const targetRepo = this.ctx.repositoryOf(target.project);
    if (target.project.id === source.project.id && input.source_branch === input.target_branch) {
      throw new BadRequestError(SAME_BRANCH);
    }
    const [head, start] = await Promise.all([sourceRepo.branch(input.source_branch), targetRepo.branch(input.target_branch)]);
    if (!head) throw BadRequestError.invalid('source_branch', 'does not exist');
    if (!start) throw BadRequestError.invalid('target_branch', 'does not exist');
    const manages = can(this.ctx.caller, 'admin_merge_request', target);
    const columns: MergeRequestColumns = {
      title: input.title,
      description: input.description ?? null,
      head_sha: head,
      start_sha: start,
      force_remove_source_branch: input.remove_source_branch ?? false,
    };
    if (manages && input.milestone_id)
      columns.milestone_id = (await findUsableMilestone(em, target.project.id, input.milestone_id))?.id ?? null;
    const pair = {
      sourceProjectId: source.project.id,
      sourceBranch: input.source_branch,
      projectId: target.project.id,
      targetBranch: input.target_branch,
    };
    const iid = await nextIid(em, 'merge_requests', { projectId: target.project.id });
    const id = await insertMergeRequest(em, { ...pair, iid, authorId: this.ctx.currentUser.id, now, ...columns });
    if (id === null) throw this.duplicate(await openMergeRequestIid(em, pair));
    if (manages) {
      const assignees = assigneeIdsOf(input);
      if (assignees?.length) await setMergeRequestAssignees(em, id, await existingUserIds(em, assignees));
      if (input.labels?.length)
        await setLabelLinks(
          em,
          'MergeRequest',
          id,
          (await labelIdsOf(em, target.project.id, input.labels, now)).map((label) => label.id),
          now,
        );
    }
    await this.sourceObjectsIn({ source_project_id: source.project.id, project_id: target.project.id, head_sha: head }, targetRepo);
    await recordWorkItemEvent(this.ctx, 'merge_request.opened', { id, iid, title: input.title, projectId: target.project.id }, {});
    return this.present({
      id,
      iid,
      project: target,
      mergeRequest: { authorId: this.ctx.currentUser.id, assigneeIds: [], discussionLocked: false },
    });
  }

  /** The project a new request goes into: the source itself, or its upstream, where the caller may open one. */
  private async targetOf(source: ProjectInScope, targetProjectId: number | undefined): Promise<ProjectInScope> {
    if (targetProjectId === undefined || targetProjectId === source.project.id) {
      if (!can(this.ctx.caller, 'create_merge_request_in', source)) throw new ForbiddenError();
      return source;
    }
    const target = await new ProjectsService(this.ctx).findInScope(targetProjectId);
    if (!target || !can(this.ctx.caller, 'read_project', target)) throw new NotFoundError('Project');
    const upstream = source.project.forkedFrom
      ? typeof source.project.forkedFrom === 'object'
        ? source.project.forkedFrom.id
        : source.project.forkedFrom
      : null;
    if (upstream !== target.project.id)
      throw new BadRequestError({ validate_fork: ['Source project is not a fork of the target project'] });
    if (!can(this.ctx.caller, 'create_merge_request_in', target)) throw new ForbiddenError();
    return target;
  }

  private duplicate(iid: number | undefined): ConflictError {
    return new ConflictError(`Another open merge request already exists for this source branch: !${iid ?? ''}`);
  }

  /**
   * PUT /projects/:id/merge_requests/:merge_request_iid: the attributes given changed (at least one, else 400), each
   * change recorded in a system note; `state_event` closes or reopens (a merged one neither).
   */
  async update(scoped: MergeRequestTarget, input: UpdateMergeRequestInput): Promise<MergeRequest> {
    checkUpdate(
      input,
      'target_branch, title, assignee_id, assignee_ids, description, state_event, labels, add_labels, ' +
        'remove_labels, milestone_id, remove_source_branch, discussion_locked',
    );
    const em = this.ctx.em;
    const now = this.ctx.now();
    const project = scoped.project;
    const before = (await mergeRequestRow(em, scoped.id))!;
    const manages = can(this.ctx.caller, 'admin_merge_request', project);
    const text = textChanges(before, input);
    const columns: MergeRequestColumns = text.columns;
    const notes = text.notes;
    if (input.target_branch !== undefined && input.target_branch !== before.target_branch) {
      if (before.state === 'merged') throw BadRequestError.invalid('target_branch', 'cannot be changed once merged');
      if (before.source_project_id === project.project.id && input.target_branch === before.source_branch) {
        throw new BadRequestError(SAME_BRANCH);
      }
      const start = await this.ctx.repositoryOf(project.project).branch(input.target_branch);
      if (!start) throw BadRequestError.invalid('target_branch', 'does not exist');
      const pair = {
        sourceProjectId: before.source_project_id ?? 0,
        sourceBranch: before.source_branch,
        projectId: project.project.id,
        targetBranch: input.target_branch,
      };
      if (before.state === 'opened' && (await openMergeRequestIid(em, pair, scoped.id)) !== undefined)
        throw this.duplicate(await openMergeRequestIid(em, pair, scoped.id));
      Object.assign(columns, {
        target_branch: input.target_branch,
        start_sha: start,
        base_sha: null,
        merge_status: 'unchecked',
      } satisfies MergeRequestColumns);
      notes.push(`changed target branch from \`${before.target_branch}\` to \`${input.target_branch}\``);
    }
    if (input.remove_source_branch !== undefined && input.remove_source_branch !== before.force_remove_source_branch)
      columns.force_remove_source_branch = input.remove_source_branch;
    if (manages) {
      const milestone =
        input.milestone_id !== undefined ? await milestoneChange(em, project.project.id, before.milestone, input.milestone_id) : null;
      if (milestone) {
        columns.milestone_id = milestone.milestone_id;
        notes.push(milestone.note);
      }
      if (input.discussion_locked !== undefined && input.discussion_locked !== before.discussion_locked) {
        columns.discussion_locked = input.discussion_locked;
        notes.push(lockNote(input.discussion_locked, 'merge request'));
      }
    }
    if (input.state_event === 'close' && before.state === 'opened') {
      Object.assign(columns, {
        state: 'closed',
        closed_at: now,
        closed_by_id: this.ctx.currentUser.id,
        merge_when_pipeline_succeeds: false,
      } satisfies MergeRequestColumns);
      notes.push(statusNote('closed'));
    } else if (input.state_event === 'reopen' && before.state === 'closed') {
      const targetBranch = columns.target_branch ?? before.target_branch;
      const pair = {
        sourceProjectId: before.source_project_id ?? 0,
        sourceBranch: before.source_branch,
        projectId: project.project.id,
        targetBranch,
      };
      const open = await openMergeRequestIid(em, pair, scoped.id);
      if (open !== undefined) throw this.duplicate(open);
      const heads = await this.headsOf(project, before.source_project_id, before.source_branch, targetBranch);
      Object.assign(columns, {
        state: 'opened',
        closed_at: null,
        closed_by_id: null,
        ...heads,
        base_sha: null,
        merge_status: 'unchecked',
      } satisfies MergeRequestColumns);
      notes.push(statusNote('reopened'));
    }
    const people = manages
      ? await peopleAndLabelChanges(em, { kind: 'MergeRequest', id: scoped.id, projectId: project.project.id }, before, input, now)
      : NO_PEOPLE_OR_LABELS;
    const item = { id: scoped.id, iid: before.iid, title: before.title, projectId: project.project.id };
    const change = { columns, ...people, before, notes, now };
    await finishUpdate(this.ctx, 'MergeRequest', item, change, (written) => updateMergeRequest(em, scoped.id, written));
    return this.present(scoped);
  }

  /** The two branches' heads now (a reopened request takes them up again); a branch gone leaves what was kept. */
  private async headsOf(
    target: ProjectInScope,
    sourceProjectId: number | null,
    sourceBranch: string,
    targetBranch: string,
  ): Promise<MergeRequestColumns> {
    const source =
      sourceProjectId === target.project.id
        ? target
        : sourceProjectId === null
          ? null
          : await new ProjectsService(this.ctx).findInScope(sourceProjectId);
    const [head, start] = await Promise.all([
      source ? this.ctx.repositoryOf(source.project).branch(sourceBranch) : null,
      this.ctx.repositoryOf(target.project).branch(targetBranch),
    ]);
    return { ...(head ? { head_sha: head } : {}), ...(start ? { start_sha: start } : {}) };
  }

  /** A system note on the merge request, by the caller. */
  private systemNote(projectId: number, id: number, body: string, now: Date): Promise<number> {
    return insertNote(this.ctx.em, {
      projectId,
      kind: 'MergeRequest',
      targetId: id,
      authorId: this.ctx.currentUser.id,
      body,
      system: true,
      createdAt: now,
    });
  }

  /**
   * DELETE /projects/:id/merge_requests/:merge_request_iid: administrators and project owners; it leaves every list, its iid stays taken.
   */
  async delete(scoped: MergeRequestTarget): Promise<void> {
    const row = (await mergeRequestRow(this.ctx.em, scoped.id))!;
    await updateMergeRequest(this.ctx.em, scoped.id, { deleted_at: this.ctx.now(), merge_when_pipeline_succeeds: false });
    const item = { id: row.id, iid: row.iid, title: row.title, projectId: row.project_id };
    await recordWorkItemEvent(this.ctx, 'merge_request.deleted', item, {});
  }

  /**
   * PUT .../merge: a merge commit of the target branch's head and the source branch's (two parents), moved onto the
   * target branch from the head it was made on, under the repository's lock; from a fork, the fork's commits are
   * brought into the target's repository first. 401 without the right to merge into the target branch, 406 when the
   * request is not open, 405 when it cannot be merged (a conflict, a draft, a branch gone), 409 when `sha` is not the
   * source branch's head. The source branch is removed when asked (now or when the request was opened) and the
   * caller may. Merging into the default branch closes the issues the request closes.
   */
  async merge(scoped: MergeRequestTarget, input: MergeInput): Promise<MergeRequest> {
    const em = this.ctx.em;
    const target = scoped.project;
    if (input.merge_when_pipeline_succeeds && (await this.mergeWhenPipelineSucceeds(scoped, input))) return this.present(scoped);
    const merged = await writeRepository(this.ctx, target, async (repo) => {
      // Read under the lock: a merge that took it first has committed.
      const row = (await mergeRequestRow(em, scoped.id))!;
      await this.checkMergeable(scoped, row);
      const pipeline = row.head_sha ? await this.headPipeline(row) : null;
      // As the original of the era: without a pipeline the requirement holds; with one, it must have succeeded.
      if (target.project.onlyAllowMergeIfPipelineSucceeds && pipeline && pipeline.status !== 'success' && pipeline.status !== 'skipped') {
        throw new MethodNotAllowedError(MERGE_REFUSALS.cannotBeMerged);
      }
      const sourceScoped =
        row.source_project_id === target.project.id
          ? target
          : row.source_project_id === null
            ? null
            : await new ProjectsService(this.ctx).findInScope(row.source_project_id);
      const sourceRepo = sourceScoped ? this.ctx.repositoryOf(sourceScoped.project) : null;
      const [head, start] = await Promise.all([sourceRepo ? sourceRepo.branch(row.source_branch) : null, repo.branch(row.target_branch)]);
      if (!head || !start) throw new MethodNotAllowedError(MERGE_REFUSALS.cannotBeMerged);
      if (input.sha !== undefined && input.sha !== head) throw new ConflictError(MERGE_REFUSALS.shaMismatch);
      if (sourceRepo && sourceRepo !== repo) await copyMissingObjects(sourceRepo, repo, head);
      const base = await mergeBase(repo, start, head);
      const removeSource = input.should_remove_source_branch ?? (row.force_remove_source_branch || null);
      const shouldRemove = input.should_remove_source_branch ?? row.should_remove_source_branch;
      // The target has the source's head already (a merge cut short after its commit moved the branch, or one made
      // elsewhere): merged as it is, without a second merge commit.
      const commit = base === head ? null : await this.mergeCommit(repo, scoped, row, { base, start, head }, input);
      const mergedAt = new Date(Math.floor(this.ctx.now().getTime() / 1000) * 1000);
      await this.markMerged(row, { commit, head, start, base, mergedAt, shouldRemoveSourceBranch: shouldRemove });
      const updates: ReferenceUpdate[] = commit ? [{ name: BRANCH_PREFIX + row.target_branch, old: start, new: commit }] : [];
      // The source branch of the same project goes with the same move; a fork's, by a write of its own below.
      const removesHere = removeSource === true && sourceScoped === target && (await this.mayRemoveSource(target, repo, row.source_branch));
      if (removesHere) updates.push({ name: BRANCH_PREFIX + row.source_branch, old: head, new: null });
      return {
        updates,
        result: {
          row,
          head,
          removeSource: removeSource === true && !removesHere && sourceScoped !== null && sourceScoped !== target ? sourceScoped : null,
        },
      };
    });
    if (
      merged.removeSource &&
      (await this.mayRemoveSource(merged.removeSource, this.ctx.repositoryOf(merged.removeSource.project), merged.row.source_branch))
    ) {
      await writeRepository(this.ctx, merged.removeSource, async (repo) => {
        const current = await repo.branch(merged.row.source_branch);
        // Only the head that was merged: a branch that moved since keeps its new commits.
        return {
          updates: current === merged.head ? [{ name: BRANCH_PREFIX + merged.row.source_branch, old: current, new: null }] : [],
          result: undefined,
        };
      });
    }
    return this.present(scoped);
  }

  /** The merge commit of the target's head and the source's (two parents), by the caller, its tree merged from their base. */
  private async mergeCommit(
    repo: Repository,
    scoped: MergeRequestTarget,
    row: MergeRequestRow,
    heads: { base: string | null; start: string; head: string },
    input: MergeInput,
  ): Promise<string> {
    const user = this.ctx.currentUser;
    const [baseTree, ours, theirs] = await Promise.all([
      heads.base ? repo.readCommit(heads.base).then((commit) => commit.tree) : null,
      repo.readCommit(heads.start),
      repo.readCommit(heads.head),
    ]);
    let tree: string;
    try {
      tree = await mergeTrees(repo, baseTree, ours.tree, theirs.tree);
    } catch (error) {
      if (error instanceof MergeConflictError) throw new MethodNotAllowedError(MERGE_REFUSALS.cannotBeMerged);
      throw error;
    }
    const signature: Signature = {
      name: user.name,
      email: user.email,
      timestamp: Math.floor(this.ctx.now().getTime() / 1000),
      offsetMinutes: 0,
    };
    const message = input.merge_commit_message || (await this.defaultMergeMessage(scoped, row));
    return repo.writeCommit({ tree, parents: [heads.start, heads.head], message, author: signature, committer: signature });
  }

  /**
   * The request merged by the caller, as the original's post-merge step does it: its state and the heads it was merged
   * at, a system note, and the `merge_request.merged` event, whose rule closes the issues it closes when its target is
   * the default branch. `commit` is null when the target had the source's head already.
   */
  async markMerged(
    row: Pick<MergeRequestRow, 'id' | 'iid' | 'title' | 'project_id'>,
    merge: {
      commit: string | null;
      head: string;
      start: string;
      base: string | null;
      mergedAt: Date;
      shouldRemoveSourceBranch?: boolean | null;
    },
  ): Promise<void> {
    await updateMergeRequest(this.ctx.em, row.id, {
      state: 'merged',
      merge_commit_sha: merge.commit,
      merged_by_id: this.ctx.currentUser.id,
      merged_at: merge.mergedAt,
      merge_status: 'can_be_merged',
      head_sha: merge.head,
      start_sha: merge.start,
      base_sha: merge.base,
      merge_when_pipeline_succeeds: false,
      should_remove_source_branch: merge.shouldRemoveSourceBranch ?? undefined,
      updated_at: this.ctx.now(),
    });
    await this.systemNote(row.project_id, row.id, 'merged', this.ctx.now());
    const item = { id: row.id, iid: row.iid, title: row.title, projectId: row.project_id };
    await recordWorkItemEvent(this.ctx, 'merge_request.merged', item, { merge_commit_sha: merge.commit });
  }

  /**
   * 401 without the right to merge into the target branch, 406 unless open, 405 for a draft or unresolved threads the project requires
   * resolved.
   */
  private async checkMergeable(scoped: MergeRequestTarget, row: MergeRequestRow): Promise<void> {
    if (!(await this.mayMerge(scoped, row.target_branch))) throw new UnauthorizedError();
    if (row.state !== 'opened') throw new NotAcceptableError(MERGE_REFUSALS.notOpen);
    if (DRAFT_TITLE.test(row.title)) throw new MethodNotAllowedError(MERGE_REFUSALS.cannotBeMerged);
    if (!row.blocking_discussions_resolved) throw new MethodNotAllowedError(MERGE_REFUSALS.cannotBeMerged);
  }

  /**
   * `merge_when_pipeline_succeeds`: while the head's pipeline runs (created, pending, running), the request is set
   * to merge by itself, as the caller and with its parameters, once a status turns the pipeline to success (a
   * durable job: src/jobs/merge-jobs.ts); true when set. Without a running pipeline it merges now.
   */
  private async mergeWhenPipelineSucceeds(scoped: MergeRequestTarget, input: MergeInput): Promise<boolean> {
    const em = this.ctx.em;
    const row = (await mergeRequestRow(em, scoped.id))!;
    await this.checkMergeable(scoped, row);
    if (input.sha !== undefined && input.sha !== row.head_sha) throw new ConflictError(MERGE_REFUSALS.shaMismatch);
    const pipeline = row.head_sha ? await this.headPipeline(row) : null;
    if (!pipeline || !RUNNING_PIPELINE.has(pipeline.status)) return false;
    const now = this.ctx.now();
    await updateMergeRequest(em, scoped.id, {
      merge_when_pipeline_succeeds: true,
      merge_user_id: this.ctx.currentUser.id,
      merge_commit_message: input.merge_commit_message ?? null,
      should_remove_source_branch: input.should_remove_source_branch ?? row.should_remove_source_branch,
      updated_at: now,
    });
    await this.systemNote(
      scoped.project.project.id,
      scoped.id,
      `enabled an automatic merge when the pipeline for ${row.head_sha} succeeds`,
      now,
    );
    return true;
  }

  /**
   * PUT (SPEC.md) or POST (later clients) .../cancel_merge_when_pipeline_succeeds: 401 without the right to merge,
   * 405 when merged or closed, 406 when not set to merge by itself.
   */
  async cancelMergeWhenPipelineSucceeds(scoped: MergeRequestTarget): Promise<MergeRequest> {
    const em = this.ctx.em;
    const row = (await mergeRequestRow(em, scoped.id))!;
    if (!(await this.mayMerge(scoped, row.target_branch))) throw new UnauthorizedError();
    if (row.state !== 'opened') throw new MethodNotAllowedError();
    if (!row.merge_when_pipeline_succeeds) throw new NotAcceptableError();
    const now = this.ctx.now();
    await updateMergeRequest(em, scoped.id, {
      merge_when_pipeline_succeeds: false,
      merge_user_id: null,
      merge_commit_message: null,
      updated_at: now,
    });
    await this.systemNote(scoped.project.project.id, scoped.id, 'canceled the automatic merge', now);
    return this.present(scoped);
  }

  /** The latest pipeline of the source project for the request's head; null for none. */
  private async headPipeline(row: Pick<MergeRequestRow, 'source_project_id' | 'head_sha'>) {
    if (row.source_project_id === null || !row.head_sha) return null;
    return lastPipelineOf((await this.ctx.view()).rows, row.source_project_id, row.head_sha);
  }

  /** Whether the source branch may go after the merge: the caller pushes to it, and it is not its project's default branch. */
  private async mayRemoveSource(source: ProjectInScope, repo: Repository, branch: string): Promise<boolean> {
    if (branch === (await repo.headBranch())) return false;
    const protection = protectionOf(await projectProtections(this.ctx, source.project.id), branch);
    return pushesToBranch(this.ctx.caller, source, protection);
  }

  /** The original's merge commit message: the branches, the title, the issues it closes, the request. */
  private async defaultMergeMessage(scoped: MergeRequestTarget, row: MergeRequestRow): Promise<string> {
    const closes = await this.closingReferences(scoped, row);
    const lines = [`Merge branch '${row.source_branch}' into '${row.target_branch}'`, '', row.title];
    if (closes.length) {
      const references = closes.map((issue) =>
        issue.project_path === row.project_path ? `#${issue.iid}` : `${issue.project_path}#${issue.iid}`,
      );
      lines.push('', `Closes ${sentence(references)}`);
    }
    lines.push('', `See merge request ${row.project_path}!${row.iid}`);
    return lines.join('\n');
  }

  /** GET .../closes_issues: the open issues the request closes once merged that the caller may read. */
  async closesIssues(scoped: MergeRequestTarget, query: PageQuery): Promise<Page<IssueBasic>> {
    const view = await this.ctx.view();
    const row = await this.current(scoped);
    const issues = await this.closingReferences(scoped, row);
    const window = pageRequest(query);
    const items = issues.slice(window.offset, window.offset + window.perPage).map((issue) => presentIssueBasic(issue, view));
    return { items, total: issues.length, page: window.page, perPage: window.perPage };
  }

  /**
   * The open issues the request's description and commit messages name with a closing pattern (`Closes #1`), as
   * the original reads them, that the caller may read.
   */
  private async closingReferences(scoped: MergeRequestTarget, row: MergeRequestRow) {
    const context = { projectPath: row.project_path, baseUrl: this.ctx.baseUrl };
    const texts = [row.title, row.description ?? ''];
    if (row.head_sha) {
      const repo = this.ctx.repositoryOf(scoped.project.project);
      const oids = row.start_sha ? await commitsBetween(repo, row.start_sha, row.head_sha) : [row.head_sha];
      for (const oid of oids.slice(-MAX_CLOSING_COMMITS)) texts.push((await repo.readCommit(oid)).message);
    }
    const references = closingIssueReferencesIn(texts.join('\n'), context).slice(0, MAX_CLOSED_ISSUES);
    const found = [];
    const em = (await this.ctx.view()).rows;
    for (const reference of references) {
      const project =
        reference.projectPath.toLowerCase() === row.project_path.toLowerCase()
          ? scoped.project
          : await new ProjectsService(this.ctx).findInScope(reference.projectPath);
      const issue = project && (await findIssueInScope(this.ctx, project, reference.iid));
      if (!issue || !can(this.ctx.caller, 'read_issue', issue)) continue;
      const issueRowFound = await issueRow(em, issue.id);
      if (issueRowFound && issueRowFound.state === 'opened') found.push(issueRowFound);
    }
    return found;
  }

  /** Closes an open request by the caller, with the system note and the event a close through the API makes. */
  async close(request: Pick<MergeRequestRow, 'id' | 'iid' | 'title' | 'project_id'>): Promise<void> {
    const now = this.ctx.now();
    await updateMergeRequest(this.ctx.em, request.id, {
      state: 'closed',
      closed_at: now,
      closed_by_id: this.ctx.currentUser.id,
      merge_when_pipeline_succeeds: false,
      updated_at: now,
    });
    await this.systemNote(request.project_id, request.id, statusNote('closed'), now);
    const item = { id: request.id, iid: request.iid, title: request.title, projectId: request.project_id };
    await recordWorkItemEvent(this.ctx, 'merge_request.closed', item, {});
  }

  /**
   * The issues a request merged into its project's default branch closes, closed by the caller with a system note
   * naming it (the rule of `merge_request.merged`).
   */
  async closeIssuesOnMerge(mergeRequestId: number): Promise<void> {
    const row = (await mergeRequestRow(this.ctx.em, mergeRequestId))!;
    const project = await new ProjectsService(this.ctx).findInScope(row.project_id);
    if (!project || row.target_branch !== (await this.ctx.repositoryOf(project.project).headBranch())) return;
    const scoped = (await this.findInScope(project, row.iid))!;
    for (const issue of await this.closingReferences(scoped, row)) {
      const reference = issue.project_id === row.project_id ? `!${row.iid}` : `${row.project_path}!${row.iid}`;
      await closeIssue(this.ctx, issue, `closed via merge request ${reference}`);
    }
  }

  /** POST .../subscribe: the caller hears of the merge request (304 when it did already). */
  subscribe(scoped: MergeRequestTarget): Promise<MergeRequest> {
    return this.choose(scoped, true);
  }

  /** POST .../unsubscribe. */
  unsubscribe(scoped: MergeRequestTarget): Promise<MergeRequest> {
    return this.choose(scoped, false);
  }

  private async choose(scoped: MergeRequestTarget, subscribed: boolean): Promise<MergeRequest> {
    if ((await this.subscribed(scoped.id)) === subscribed) throw new NotModifiedError();
    await setSubscription(this.ctx.em, 'MergeRequest', scoped.id, this.ctx.currentUser.id, subscribed, this.ctx.now());
    return this.present(scoped);
  }
}

/** The states of a pipeline still under way: what an automatic merge waits for. */
const RUNNING_PIPELINE = new Set(['created', 'pending', 'running']);

/** The most files a request's `changes_count` counts: past it, `"1000+"`. */
const CHANGES_LIMIT = 1000;
/** The newest commits of a request read for closing patterns, and the most issues one closes. */
const MAX_CLOSING_COMMITS = 1000;
const MAX_CLOSED_ISSUES = 100;

/** Whether the two heads merge without conflict from their base. */
async function mergesCleanly(repo: Repository, base: string | null, ours: string, theirs: string): Promise<boolean> {
  const [baseTree, oursTree, theirsTree] = await Promise.all([
    base ? repo.readCommit(base).then((commit) => commit.tree) : null,
    repo.readCommit(ours).then((commit) => commit.tree),
    repo.readCommit(theirs).then((commit) => commit.tree),
  ]);
  try {
    await mergeTrees(repo, baseTree, oursTree, theirsTree);
    return true;
  } catch (error) {
    if (error instanceof MergeConflictError) return false;
    throw error;
  }
}

/** `a`, `a and b`, `a, b and c`, as the original lists the issues a merge closes. */
function sentence(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export type { MergeRequestTarget };
