import { can, type GroupInScope, type ProjectInScope } from '../../auth/abilities.js';
import { visibleIssuesSql, visibleMergeRequestsSql } from '../../auth/access-levels.js';
import { BadRequestError, NotFoundError, type ValidationMessages } from '../../errors.js';
import type { IssueBasic } from '../../schemas/issues.js';
import type { MergeRequestBasic } from '../../schemas/merge-requests.js';
import type { CreateMilestoneInput, ListMilestonesQuery, Milestone, UpdateMilestoneInput } from '../../schemas/work-items.js';
import { pageRequest, type Page, type PageQuery } from '../pagination.js';
import { presentIssueBasic, presentMilestone } from '../present/issues.js';
import { presentMergeRequestBasic } from '../present/merge-requests.js';
import { likePattern } from '../search.js';
import { Service } from '../service.js';
import { issuePage, nextIid, type IssueFilter, type MilestoneRow } from './issue-store.js';
import { strip } from './label-colors.js';
import { mergeRequestPage, type MergeRequestFilter } from './merge-request-store.js';
import {
  deleteMilestone,
  findMilestone,
  insertMilestone,
  milestonePage,
  milestoneTitleTaken,
  updateMilestone,
  type MilestoneOwner,
} from './milestone-store.js';
import { milestoneNote } from './system-notes.js';

/** Whose milestones a route names: a project's (`/projects/:id/milestones`) or a group's (`/groups/:id/milestones`). */
export type MilestoneParent = ProjectInScope | GroupInScope;

const ownerOf = (parent: MilestoneParent): MilestoneOwner =>
  'project' in parent ? { projectId: parent.project.id } : { groupId: parent.group.id };

/** `parent.milestones.find(id)` missing: the original's answer to ActiveRecord::RecordNotFound. */
const notFound = () => new NotFoundError('404 Not found', { verbatim: true });

/** Messages as Ruby's Hash#inspect writes them (`{:title=>["..."]}`), which the original puts in its 400's text. */
const rubyInspect = (messages: ValidationMessages) =>
  `{${Object.entries(messages)
    .map(([name, texts]) => `:${name}=>[${(Array.isArray(texts) ? texts : [texts]).map((text) => JSON.stringify(text)).join(', ')}]`)
    .join(', ')}}`;

const TITLE_TAKEN = 'already being used for another group or project milestone.';

/** Milestone's validations of a title and dates, in the order the original runs them. */
function milestoneProblems(checks: {
  title?: string;
  titleTaken?: boolean;
  startDate: string | null;
  dueDate: string | null;
}): ValidationMessages {
  const problems: ValidationMessages = {};
  // A blank title is never written (Milestone#title=); the original then fails on its column, answered here as a validation.
  if (checks.title === '') problems.title = ["can't be blank"];
  else if (checks.titleTaken) problems.title = [TITLE_TAKEN];
  if (checks.startDate && checks.dueDate && checks.dueDate <= checks.startDate) problems.due_date = ['must be greater than start date'];
  return problems;
}

/**
 * Milestones of projects and of groups (the original's ProjectMilestones and GroupMilestones APIs): listed, read,
 * created with their owner's next `iid`, changed, closed and activated, deleted; and the issues that have one.
 * A project's take `read_milestone` and `admin_milestone`; a group's `read_group` and `admin_milestones`.
 */
export class MilestonesService extends Service {
  /** GET .../milestones: newest first; by `state` (all by default), `iids`, exact `title`, `search` in the title and description. */
  async list(parent: MilestoneParent, query: ListMilestonesQuery & PageQuery): Promise<Page<Milestone>> {
    const view = await this.ctx.view();
    const window = pageRequest(query);
    const filter = {
      state: query.state === 'all' ? undefined : query.state,
      iids: query.iids?.length ? query.iids : undefined,
      title: query.title,
      search: query.search ? likePattern(query.search) : undefined,
    };
    const { total, rows } = await milestonePage(view.rows, ownerOf(parent), filter, { limit: window.perPage, offset: window.offset });
    return { items: rows.map((row) => presentMilestone(row, view)), total, page: window.page, perPage: window.perPage };
  }

  /** GET .../milestones/:milestone_id: one of the owner's milestones by ID; `404 Not found` for any other. */
  async get(parent: MilestoneParent, milestoneId: number): Promise<Milestone> {
    return presentMilestone(await this.milestoneOf(parent, milestoneId), await this.ctx.view());
  }

  /**
   * POST .../milestones: a milestone with the owner's next `iid`. Its title is stripped and must be free among the
   * owner's milestones and its neighbours' (Milestone#uniqueness_of_title); its due date must come after its start
   * date. A refusal is the original's 400 `Failed to create milestone {...}`.
   */
  async create(parent: MilestoneParent, input: CreateMilestoneInput): Promise<Milestone> {
    const em = this.ctx.em;
    const owner = ownerOf(parent);
    const title = strip(input.title);
    const dates = { startDate: input.start_date ?? null, dueDate: input.due_date ?? null };
    const titleTaken = title !== '' && (await milestoneTitleTaken(em, owner, title));
    const problems = milestoneProblems({ title, titleTaken, ...dates });
    if (Object.keys(problems).length) throw new BadRequestError(`Failed to create milestone ${rubyInspect(problems)}`);
    const iid =
      'projectId' in owner
        ? await nextIid(em, 'milestones', { projectId: owner.projectId })
        : await nextIid(em, 'group_milestones', { namespaceId: owner.groupId });
    const id = await insertMilestone(em, owner, { iid, title, description: input.description ?? null, ...dates, now: this.ctx.now() });
    // Another writer took the title since the check: the same refusal.
    if (id === undefined) throw new BadRequestError(`Failed to create milestone ${rubyInspect({ title: [TITLE_TAKEN] })}`);
    await this.recordEvent('milestone.created', owner, { id, iid, title });
    return this.get(parent, id);
  }

  /**
   * PUT .../milestones/:milestone_id: the attributes given changed (at least one, else 400); `state_event` closes or
   * activates it (a milestone already so stays). A blank title is none (Milestone#title= writes none). A refusal is
   * the original's 400 `Failed to update milestone {...}`.
   */
  async update(parent: MilestoneParent, milestoneId: number, input: UpdateMilestoneInput): Promise<Milestone> {
    if ([input.title, input.description, input.start_date, input.due_date, input.state_event].every((value) => value === undefined)) {
      throw new BadRequestError(
        '400 (Bad request) "title, description, start_date, due_date, state_event" are missing, at least one parameter must be provided',
      );
    }
    const em = this.ctx.em;
    const owner = ownerOf(parent);
    const before = await this.milestoneOf(parent, milestoneId);
    const stripped = input.title === undefined ? undefined : strip(input.title);
    const title = stripped && stripped !== before.title ? stripped : undefined;
    const dates = {
      startDate: input.start_date === undefined ? before.start_date : input.start_date,
      dueDate: input.due_date === undefined ? before.due_date : input.due_date,
    };
    const titleTaken = title !== undefined && (await milestoneTitleTaken(em, owner, title, before.id));
    const problems = milestoneProblems({ title, titleTaken, ...dates });
    if (Object.keys(problems).length) throw new BadRequestError(`Failed to update milestone ${rubyInspect(problems)}`);
    const state = input.state_event === 'close' ? 'closed' : input.state_event === 'activate' ? 'active' : undefined;
    await updateMilestone(
      em,
      before.id,
      { title, description: input.description, state, dueDate: input.due_date, startDate: input.start_date },
      this.ctx.now(),
    );
    if (state && state !== before.state) {
      await this.recordEvent(state === 'closed' ? 'milestone.closed' : 'milestone.reopened', owner, {
        ...before,
        title: title ?? before.title,
      });
    }
    return this.get(parent, before.id);
  }

  /**
   * DELETE .../milestones/:milestone_id (later clients): the milestone's issues lose it, each with the system note
   * `removed milestone`, as the original's DestroyService updates them; then it is gone.
   */
  async delete(parent: MilestoneParent, milestoneId: number): Promise<void> {
    const milestone = await this.milestoneOf(parent, milestoneId);
    await deleteMilestone(this.ctx.em, milestone.id, { authorId: this.ctx.currentUser.id, note: milestoneNote(null), now: this.ctx.now() });
    await this.recordEvent('milestone.destroyed', ownerOf(parent), milestone);
  }

  /** An event of a milestone of a project or of a group, by the caller. */
  private recordEvent(
    kind: 'milestone.created' | 'milestone.closed' | 'milestone.reopened' | 'milestone.destroyed',
    owner: ReturnType<typeof ownerOf>,
    milestone: { id: number; iid: number; title: string },
  ): Promise<unknown> {
    return this.ctx.record({
      kind,
      authorId: this.ctx.currentUser.id,
      ...('projectId' in owner ? { projectId: owner.projectId } : { groupId: owner.groupId }),
      target: { type: 'Milestone', id: milestone.id, iid: milestone.iid, title: milestone.title },
      data: {},
    });
  }

  /**
   * GET .../milestones/:milestone_id/issues: the issues that have the milestone and that the caller may read (a
   * group's: in the projects of the group and of its subgroups), by their labels' priority as the original sorts them.
   */
  async issues(parent: MilestoneParent, milestoneId: number, query: PageQuery): Promise<Page<IssueBasic>> {
    const milestone = await this.milestoneOf(parent, milestoneId);
    const caller = this.ctx.caller;
    const view = await this.ctx.view();
    const window = pageRequest(query);
    const filter: IssueFilter =
      'project' in parent
        ? {
            projectId: parent.project.id,
            visible: visibleIssuesSql(caller, this.ctx.today(), { readsConfidential: can(caller, 'read_confidential_issues', parent) }),
            milestoneId: milestone.id,
          }
        : { groupId: parent.group.id, visible: visibleIssuesSql(caller, this.ctx.today()), milestoneId: milestone.id };
    const { total, rows } = await issuePage(
      view.rows,
      filter,
      { orderBy: 'priority', sort: 'asc' },
      { limit: window.perPage, offset: window.offset },
    );
    return { items: rows.map((row) => presentIssueBasic(row, view)), total, page: window.page, perPage: window.perPage };
  }

  /**
   * GET .../milestones/:milestone_id/merge_requests: the merge requests that have the milestone and that the caller
   * may read (a group's: in the projects of the group and of its subgroups), newest first.
   */
  async mergeRequests(parent: MilestoneParent, milestoneId: number, query: PageQuery): Promise<Page<MergeRequestBasic>> {
    const milestone = await this.milestoneOf(parent, milestoneId);
    const view = await this.ctx.view();
    const window = pageRequest(query);
    if ('project' in parent && !can(this.ctx.caller, 'read_merge_requests', parent))
      return { items: [], total: 0, page: window.page, perPage: window.perPage };
    const filter: MergeRequestFilter =
      'project' in parent
        ? {
            projectId: parent.project.id,
            visible: visibleMergeRequestsSql(this.ctx.caller, this.ctx.today(), { inProject: true }),
            milestoneId: milestone.id,
          }
        : { groupId: parent.group.id, visible: visibleMergeRequestsSql(this.ctx.caller, this.ctx.today()), milestoneId: milestone.id };
    const { total, rows } = await mergeRequestPage(
      view.rows,
      filter,
      { orderBy: 'created_at', sort: 'desc' },
      { limit: window.perPage, offset: window.offset },
    );
    return { items: rows.map((row) => presentMergeRequestBasic(row, view)), total, page: window.page, perPage: window.perPage };
  }

  private async milestoneOf(parent: MilestoneParent, milestoneId: number): Promise<MilestoneRow> {
    const milestone = await findMilestone((await this.ctx.view()).rows, ownerOf(parent), milestoneId);
    if (!milestone) throw notFound();
    return milestone;
  }
}
