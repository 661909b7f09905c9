import { findIssueInScope, findMergeRequestInScope, type IssueTarget } from './work-item-scopes.js';
import { can, type IssueInScope, type ProjectInScope } from '../../auth/abilities.js';
import { visibleIssuesSql } from '../../auth/access-levels.js';
import type { Namespace } from '../../db/entities/index.js';
import { BadRequestError, NotFoundError, NotModifiedError } from '../../errors.js';
import type { CreateIssueInput, Issue, IssueBasic, ListIssuesQuery, MoveIssueInput, UpdateIssueInput } from '../../schemas/issues.js';
import { pageRequest, type Page, type PageQuery } from '../pagination.js';
import { presentIssue, presentIssueBasic } from '../present/issues.js';
import { Service } from '../service.js';
import {
  existingUserIds,
  insertIssue,
  issuePage,
  issueRow,
  nextIid,
  participatesIn,
  setAssignees,
  setSubscription,
  subscriptionChoice,
  updateIssue,
  type IssueColumns,
  type IssueFilter,
} from './issue-store.js';
import { existingLabelIds, labelIdsOf, labelsOn, setLabelLinks } from './label-store.js';
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
import { findUsableMilestone, findUsableMilestoneByTitle } from './milestone-store.js';
import { mergeRequestRow } from './merge-request-store.js';
import { workItemFilter } from './work-item-filters.js';
import { recordWorkItemEvent } from './work-item-events.js';
import { copyDiscussion, insertNote, resolveNotes, unresolvedThreads } from './note-store.js';
import { confidentialityNote, dueDateNote, lockNote, movedFromNote, movedToNote, statusNote } from './system-notes.js';
import { ProjectsService } from '../projects/projects.js';

/** Whose issues a list shows: one project's, the projects of a group and its subgroups, or every project's. */
type IssuesSource = { project: ProjectInScope } | { groupId: number } | { all: true };

/** Issues: listed with the original's filters, read, opened, changed, closed and reopened, moved, deleted; who hears of them. */
export class IssuesService extends Service {
  /** The issue a path names by iid in the project (the nested scope of `/projects/:id/issues/:issue_iid`); null for none. */
  findInScope(project: ProjectInScope, iid: string | number): Promise<IssueTarget | null> {
    return findIssueInScope(this.ctx, project, iid);
  }

  /** GET /issues: the issues of every project the caller may read; its own (`created-by-me`) unless another scope is asked. */
  listAll(query: ListIssuesQuery & PageQuery): Promise<Page<IssueBasic>> {
    return this.list({ all: true }, query, 'created-by-me');
  }

  /** GET /groups/:id/issues: the issues of the group's projects and its subgroups' that the caller may read. */
  listForGroup(group: { group: Namespace }, query: ListIssuesQuery & PageQuery): Promise<Page<IssueBasic>> {
    return this.list({ groupId: group.group.id }, query, 'all');
  }

  /** GET /projects/:id/issues: the project's issues the caller may read (none while its issue tracker is disabled). */
  listForProject(project: ProjectInScope, query: ListIssuesQuery & PageQuery): Promise<Page<IssueBasic>> {
    return this.list({ project }, query, 'all');
  }

  private async list(
    source: IssuesSource,
    query: ListIssuesQuery & PageQuery,
    defaultScope: 'created-by-me' | 'all',
  ): Promise<Page<IssueBasic>> {
    const caller = this.ctx.caller;
    const view = await this.ctx.view();
    const window = pageRequest(query);
    if ('project' in source && !can(caller, 'read_issues', source.project))
      return { items: [], total: 0, page: window.page, perPage: window.perPage };
    const filter = this.filterOf(source, query, defaultScope);
    const { total, rows } = await issuePage(
      view.rows,
      filter,
      { orderBy: query.order_by ?? 'created_at', sort: query.sort ?? 'desc' },
      { limit: window.perPage, offset: window.offset },
    );
    return { items: rows.map((row) => presentIssueBasic(row, view)), total, page: window.page, perPage: window.perPage };
  }

  /** The list's filters as conditions; visibility always, in SQL. */
  private filterOf(source: IssuesSource, query: ListIssuesQuery, defaultScope: 'created-by-me' | 'all'): IssueFilter {
    const caller = this.ctx.caller;
    const where =
      'project' in source
        ? {
            projectId: source.project.project.id,
            visible: visibleIssuesSql(caller, this.ctx.today(), {
              readsConfidential: can(caller, 'read_confidential_issues', source.project),
            }),
          }
        : { groupId: 'groupId' in source ? source.groupId : undefined, visible: visibleIssuesSql(caller, this.ctx.today()) };
    const filter: IssueFilter = workItemFilter(query, where, this.ctx.currentUser.id, defaultScope);
    if (query.confidential !== undefined) filter.confidential = query.confidential;
    return filter;
  }

  /** GET /projects/:id/issues/:issue_iid. */
  async get(scoped: IssueInScope & { id: number }): Promise<Issue> {
    return this.present(scoped.id);
  }

  /** GET /issues/:id: any issue by its global ID, for those who may read it (administrators, as clients call it). */
  async getById(id: number): Promise<Issue> {
    const view = await this.ctx.view();
    const row = await issueRow(view.rows, id);
    if (!row) throw new NotFoundError('Issue');
    const project = await new ProjectsService(this.ctx).findInScope(row.project_id);
    const scoped = project && (await this.findInScope(project, row.iid));
    if (!scoped || !can(this.ctx.caller, 'read_issue', scoped)) throw new NotFoundError('Issue');
    return this.present(scoped.id);
  }

  /** The issue as single answers show it, for the caller. */
  async present(issueId: number): Promise<Issue> {
    const view = await this.ctx.view();
    const row = await issueRow(view.rows, issueId);
    if (!row) throw new NotFoundError('Issue');
    return presentIssue(row, await this.subscribed(issueId), view);
  }

  /** Whether the caller hears of the issue: its own choice, or else whether it takes part in it. */
  private async subscribed(issueId: number): Promise<boolean> {
    const user = this.ctx.caller.user;
    if (!user) return false;
    const rows = (await this.ctx.view()).rows;
    return (await subscriptionChoice(rows, 'Issue', issueId, user.id)) ?? (await participatesIn(rows, 'Issue', issueId, user.id));
  }

  /**
   * POST /projects/:id/issues: a new issue with the project's next iid. Labels, milestone, assignees and due date
   * are set by those who may manage the project's issues (reporters and above) and dropped for everyone else, as
   * the original filters them; `created_at` by administrators and owners only.
   */
  async create(scoped: ProjectInScope, input: CreateIssueInput): Promise<Issue> {
    const followUp = input.merge_request_to_resolve_discussions_of !== undefined ? await this.followUpOf(scoped, input) : null;
    const title = input.title;
    checkTitle(title);
    const em = this.ctx.em;
    const now = this.ctx.now();
    const projectId = scoped.project.id;
    const manages = can(this.ctx.caller, 'admin_issue', scoped);
    const backdates = can(this.ctx.caller, 'set_issue_timestamps', scoped);
    const createdAt = backdates && input.created_at ? new Date(input.created_at) : now;
    const columns: IssueColumns = {
      title,
      description: input.description ?? followUp?.description ?? null,
      confidential: input.confidential ?? false,
      created_at: createdAt,
      updated_at: createdAt,
    };
    if (manages) {
      if (input.due_date !== undefined) columns.due_date = input.due_date;
      if (input.discussion_locked !== undefined) columns.discussion_locked = input.discussion_locked;
      if (input.milestone_id) columns.milestone_id = (await findUsableMilestone(em, projectId, input.milestone_id))?.id ?? null;
    }
    const iid = await nextIid(em, 'issues', { projectId });
    const { id } = await insertIssue(em, { projectId, iid, authorId: this.ctx.currentUser.id, title, now, ...columns });
    if (manages) {
      const assignees = assigneeIdsOf(input);
      if (assignees?.length) await setAssignees(em, id, await existingUserIds(em, assignees));
      if (input.labels?.length)
        await setLabelLinks(
          em,
          'Issue',
          id,
          (await labelIdsOf(em, projectId, input.labels, now)).map((label) => label.id),
          now,
        );
    }
    if (followUp?.resolves)
      for (const discussionId of followUp.discussionIds) await resolveNotes(em, discussionId, this.ctx.currentUser.id, now);
    await recordWorkItemEvent(this.ctx, 'issue.opened', { id, iid, title, projectId }, {});
    return this.present(id);
  }

  /**
   * `merge_request_to_resolve_discussions_of` (and `discussion_to_resolve`): the original's follow-up issue of a merge
   * request's unresolved threads (or of one): its default description (a given description wins),
   * and the threads it resolves once made, when the caller may resolve them. A request the caller may not read is
   * not there (404).
   */
  private async followUpOf(scoped: ProjectInScope, input: CreateIssueInput) {
    const request = await findMergeRequestInScope(this.ctx, scoped, input.merge_request_to_resolve_discussions_of!);
    if (!request || !can(this.ctx.caller, 'read_merge_request', request)) throw new NotFoundError('Merge Request');
    const row = (await mergeRequestRow((await this.ctx.view()).rows, request.id))!;
    const threads = await unresolvedThreads((await this.ctx.view()).rows, request.id, input.discussion_to_resolve);
    const reference = `!${row.iid}`;
    const webUrl = `${this.ctx.baseUrl}/${row.project_path}/merge_requests/${row.iid}`;
    // The original's words, spacing included: "): " then " (+N comments)" joined with a space.
    const items = threads.map((thread) => {
      const action = thread.first ? 'started' : 'commented on';
      const others = thread.others ? ` (+${thread.others} comment${thread.others === 1 ? '' : 's'})` : '';
      const quoted = (thread.body.match(/[^\n]*\n|[^\n]+$/g) ?? []).map((line) => `    > ${line}`).join('');
      return `- [ ] @${thread.username ?? 'ghost'} ${action} a [discussion](${webUrl}#note_${thread.note_id}): ${others}\n\n${quoted}`;
    });
    const description = threads.length
      ? [`The following discussion${threads.length === 1 ? '' : 's'} from ${reference} should be addressed:`, ...items].join('\n\n')
      : `There are no unresolved discussions. Review the conversation in ${reference}`;
    return {
      description,
      discussionIds: threads.map((thread) => thread.discussion_id),
      resolves: can(this.ctx.caller, 'resolve_merge_request_discussion', request),
    };
  }

  /**
   * PUT /projects/:id/issues/:issue_iid: the attributes given changed (at least one, else 400), each change recorded
   * in a system note as the original records it; `state_event` closes (setting `closed_at` and `closed_by`) or
   * reopens. What only those who manage issues may set is dropped for the others.
   */
  async update(scoped: IssueInScope & { id: number }, input: UpdateIssueInput): Promise<Issue> {
    checkUpdate(
      input,
      'title, description, assignee_id, assignee_ids, confidential, milestone_id, labels, add_labels, ' +
        'remove_labels, state_event, updated_at, due_date, discussion_locked',
    );
    const em = this.ctx.em;
    const now = this.ctx.now();
    const project = scoped.project;
    const before = (await issueRow(em, scoped.id))!;
    const manages = can(this.ctx.caller, 'admin_issue', project);
    const text = textChanges(before, input);
    const columns: IssueColumns = text.columns;
    const notes = text.notes;
    if (input.confidential !== undefined && input.confidential !== before.confidential) {
      columns.confidential = input.confidential;
      notes.push(confidentialityNote(input.confidential));
    }
    if (manages) {
      const milestone =
        input.milestone_id !== undefined ? await milestoneChange(em, project.project.id, before.milestone, input.milestone_id) : null;
      if (milestone) {
        columns.milestone_id = milestone.milestone_id;
        notes.push(milestone.note);
      }
      if (input.due_date !== undefined && (input.due_date ?? null) !== before.due_date) {
        columns.due_date = input.due_date ?? null;
        notes.push(dueDateNote(input.due_date ?? null));
      }
      if (input.discussion_locked !== undefined && input.discussion_locked !== before.discussion_locked) {
        columns.discussion_locked = input.discussion_locked;
        notes.push(lockNote(input.discussion_locked));
      }
    }
    if (input.state_event === 'close' && before.state === 'opened') {
      Object.assign(columns, { state: 'closed', closed_at: now, closed_by_id: this.ctx.currentUser.id } satisfies IssueColumns);
      notes.push(statusNote('closed'));
    } else if (input.state_event === 'reopen' && before.state === 'closed') {
      Object.assign(columns, { state: 'opened', closed_at: null, closed_by_id: null } satisfies IssueColumns);
      notes.push(statusNote('reopened'));
    }
    const people = manages
      ? await peopleAndLabelChanges(em, { kind: 'Issue', id: scoped.id, projectId: project.project.id }, before, input, now)
      : NO_PEOPLE_OR_LABELS;
    const backdates = can(this.ctx.caller, 'set_issue_timestamps', project) && input.updated_at !== undefined;
    const item = { id: scoped.id, iid: before.iid, title: before.title, projectId: project.project.id };
    const change = {
      columns,
      ...people,
      before,
      notes,
      now,
      updatedAt: backdates ? new Date(input.updated_at!) : undefined,
    };
    await finishUpdate(this.ctx, 'Issue', item, change, (written) => updateIssue(em, scoped.id, written));
    return this.present(scoped.id);
  }

  /** A system note on the issue, by the caller. */
  private systemNote(projectId: number, issueId: number, body: string, now: Date): Promise<number> {
    return insertNote(this.ctx.em, {
      projectId,
      kind: 'Issue',
      targetId: issueId,
      authorId: this.ctx.currentUser.id,
      body,
      system: true,
      createdAt: now,
    });
  }

  /** DELETE /projects/:id/issues/:issue_iid: the issue leaves every list and count; its row and iid stay taken. */
  async delete(scoped: IssueInScope & { id: number }): Promise<void> {
    const row = (await issueRow(this.ctx.em, scoped.id))!;
    await updateIssue(this.ctx.em, scoped.id, { deleted_at: this.ctx.now() });
    await recordWorkItemEvent(this.ctx, 'issue.deleted', { id: row.id, iid: row.iid, title: row.title, projectId: row.project_id }, {});
  }

  /**
   * POST /projects/:id/issues/:issue_iid/move: a new issue in the target project with the same author, text,
   * notes and award emoji, and the labels and milestone that have a same-named counterpart there; the original is
   * closed with a system note pointing at the new one (and the new one's at the original). 400 for the same
   * project, or without the right to manage issues in both.
   */
  async move(scoped: IssueInScope & { id: number }, input: MoveIssueInput): Promise<Issue> {
    const em = this.ctx.em;
    const now = this.ctx.now();
    const source = scoped.project;
    const target = await new ProjectsService(this.ctx).findInScope(input.to_project_id);
    if (target && target.project.id === source.project.id) throw new BadRequestError('Cannot move issue to project it originates from!');
    if (!target || !can(this.ctx.caller, 'admin_issue', source) || !can(this.ctx.caller, 'admin_issue', target)) {
      throw new BadRequestError('Cannot move issue due to insufficient permissions!');
    }
    const old = (await issueRow(em, scoped.id))!;
    const targetId = target.project.id;
    const milestone = old.milestone ? await findUsableMilestoneByTitle(em, targetId, old.milestone.title) : undefined;
    const iid = await nextIid(em, 'issues', { projectId: targetId });
    const { id } = await insertIssue(em, {
      projectId: targetId,
      iid,
      authorId: old.author_id ?? this.ctx.currentUser.id,
      title: old.title,
      now,
      description: old.description,
      confidential: old.confidential,
      due_date: old.due_date,
      milestone_id: milestone?.id ?? null,
      time_estimate: old.time_estimate,
      total_time_spent: old.total_time_spent,
      created_at: now,
    });
    // Only labels the target already has move along: none is made there.
    const kept = (await labelsOn(em, 'Issue', scoped.id)).map((label) => label.title);
    const labels = kept.length ? await existingLabelIds(em, targetId, kept) : [];
    if (labels.length) await setLabelLinks(em, 'Issue', id, labels, now);
    await setAssignees(
      em,
      id,
      old.assignees.map((user) => user.id),
    );
    await copyDiscussion(em, 'Issue', scoped.id, { projectId: targetId, targetId: id });
    const reference = (path: string, number: number) => `${path}#${number}`;
    const targetPath = `${target.namespace.fullPath}/${target.project.path}`;
    await this.systemNote(targetId, id, movedFromNote(reference(old.project_path, old.iid)), now);
    await updateIssue(em, scoped.id, {
      moved_to_id: id,
      ...(old.state === 'opened' ? { state: 'closed', closed_at: now, closed_by_id: this.ctx.currentUser.id } : {}),
      updated_at: now,
    });
    await this.systemNote(source.project.id, scoped.id, movedToNote(reference(targetPath, iid)), now);
    if (old.state === 'opened') await this.systemNote(source.project.id, scoped.id, statusNote('closed'), now);
    // The original closes the issue it moves, and opens the new one.
    const moved = { id: scoped.id, iid: old.iid, title: old.title, projectId: source.project.id };
    await recordWorkItemEvent(this.ctx, 'issue.moved', moved, { moved_to_id: id });
    await recordWorkItemEvent(this.ctx, 'issue.opened', { id, iid, title: old.title, projectId: targetId }, {});
    return this.present(id);
  }

  /** POST .../subscribe: the caller hears of the issue (304 when it did already). */
  async subscribe(scoped: IssueInScope & { id: number }): Promise<Issue> {
    return this.choose(scoped.id, true);
  }

  /** POST .../unsubscribe: the caller no longer hears of it (304 when it did not). */
  async unsubscribe(scoped: IssueInScope & { id: number }): Promise<Issue> {
    return this.choose(scoped.id, false);
  }

  private async choose(issueId: number, subscribed: boolean): Promise<Issue> {
    if ((await this.subscribed(issueId)) === subscribed) throw new NotModifiedError();
    await setSubscription(this.ctx.em, 'Issue', issueId, this.ctx.currentUser.id, subscribed, this.ctx.now());
    return this.present(issueId);
  }
}
