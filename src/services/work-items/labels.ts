import { can, type ProjectInScope } from '../../auth/abilities.js';
import { visibleIssuesSql } from '../../auth/access-levels.js';
import { BadRequestError, ConflictError, NotFoundError, NotModifiedError, type ValidationMessages } from '../../errors.js';
import { INT32_MAX } from '../../schemas/common.js';
import type {
  CreateLabelInput,
  DeleteLabelInput,
  Label,
  ListLabelsQuery,
  UpdateLabelByNameInput,
  UpdateLabelInput,
} from '../../schemas/work-items.js';
import { pageRequest, type Page, type PageQuery } from '../pagination.js';
import { presentLabel } from '../present/labels.js';
import { likePattern } from '../search.js';
import { Service } from '../service.js';
import { setSubscription } from './issue-store.js';
import { normalizeLabelColor, strip } from './label-colors.js';
import {
  deleteLabel,
  existingLabelIds,
  findLabel,
  insertLabel,
  labelPage,
  updateLabel,
  type LabelRow,
  type LabelViewer,
} from './label-store.js';

/** What Label's validations say of a label's colour and title, in the order the original runs them (the colour first). */
interface LabelChecks {
  /** The colour given, made hex; null when it is none; undefined when none was given. */
  color?: string | null;
  /** The title to be kept (stripped; blank when none is left). */
  title?: string;
  titleTaken?: boolean;
}

function labelProblems(checks: LabelChecks): ValidationMessages {
  const problems: ValidationMessages = {};
  if (checks.color === null) problems.color = ['must be a valid color code'];
  if (checks.title !== undefined) {
    const title: string[] = [];
    // A blank title is not written (Label#title=): it is missing, and "" does not match the format either.
    if (checks.title === '') title.push("can't be blank");
    if (!/^[^,]+$/.test(checks.title)) title.push('is invalid');
    if (checks.titleTaken) title.push('has already been taken');
    if (title.length) problems.title = title;
  }
  return problems;
}

/**
 * A project's labels (the original's Labels API of the era, and the path forms later clients call): listed with
 * their counts, created, changed, deleted, subscribed to. Reading takes `read_label`, writing `admin_label`.
 */
export class LabelsService extends Service {
  /** The caller as a label's counts and subscription see it: the issues and merge requests of the project it may read. */
  private viewer(scoped: ProjectInScope): LabelViewer {
    const caller = this.ctx.caller;
    return {
      userId: caller.user?.id ?? null,
      visibleIssues: visibleIssuesSql(caller, this.ctx.today(), { readsConfidential: can(caller, 'read_confidential_issues', scoped) }),
      readsMergeRequests: can(caller, 'read_merge_requests', scoped),
    };
  }

  /** GET /projects/:id/labels: by name, with the counts of open and closed issues (`with_counts` is accepted: they are always there). */
  async list(scoped: ProjectInScope, query: ListLabelsQuery & PageQuery): Promise<Page<Label>> {
    const window = pageRequest(query);
    const search = query.search ? likePattern(query.search) : undefined;
    const { total, rows } = await labelPage((await this.ctx.view()).rows, scoped.project.id, this.viewer(scoped), search, {
      limit: window.perPage,
      offset: window.offset,
    });
    return { items: rows.map(presentLabel), total, page: window.page, perPage: window.perPage };
  }

  /** GET /projects/:id/labels/:label_id: one label by ID or name, as later clients read it. */
  async get(scoped: ProjectInScope, labelId: number | string): Promise<Label> {
    return presentLabel(await this.labelOf(scoped, labelId));
  }

  /**
   * POST /projects/:id/labels: a name the project has already, exactly as given, is 409 `Label already exists`;
   * otherwise Label's validations decide (400 with their messages): a colour `#RGB`, `#RRGGBB` or a CSS colour name
   * (kept as its hex), a title without commas, unique once stripped.
   */
  async create(scoped: ProjectInScope, input: CreateLabelInput): Promise<Label> {
    const em = this.ctx.em;
    const projectId = scoped.project.id;
    if ((await existingLabelIds(em, projectId, [input.name])).length) throw new ConflictError('Label already exists');
    const title = strip(input.name);
    const color = normalizeLabelColor(input.color);
    const titleTaken = title !== '' && title !== input.name && (await existingLabelIds(em, projectId, [title])).length > 0;
    const problems = labelProblems({ color, title, titleTaken });
    if (Object.keys(problems).length) throw new BadRequestError(problems);
    const id = await insertLabel(em, {
      projectId,
      title,
      color: color!,
      description: input.description ?? null,
      priority: input.priority ?? null,
      now: this.ctx.now(),
    });
    if (id === undefined) throw new BadRequestError(labelProblems({ title, titleTaken: true }));
    return this.present(scoped, { id });
  }

  /** PUT /projects/:id/labels/:label_id: the label (by ID or name) changed, as later clients change it; 404 `Label Not Found`. */
  async update(scoped: ProjectInScope, labelId: number | string, input: UpdateLabelInput): Promise<Label> {
    requireChanges(input);
    return this.change(scoped, await this.labelOf(scoped, labelId), input);
  }

  /** PUT /projects/:id/labels: the label named `name` changed (SPEC.md's era); 404 `Label not found` as the original words it. */
  async updateByName(scoped: ProjectInScope, input: UpdateLabelByNameInput): Promise<Label> {
    requireChanges(input);
    const { name, ...changes } = input;
    return this.change(scoped, await this.labelOf(scoped, { title: name }, new NotFoundError('Label not found')), changes);
  }

  /**
   * The label's name (`new_name`), colour, description and priority changed, those given; a blank `new_name` is no
   * name (Label#title= writes none), a null priority takes the priority away. 400 with Label's validation messages.
   */
  private async change(scoped: ProjectInScope, label: LabelRow, input: UpdateLabelInput): Promise<Label> {
    const em = this.ctx.em;
    const title = input.new_name === undefined ? undefined : strip(input.new_name) || undefined;
    const color = input.color === undefined ? undefined : normalizeLabelColor(input.color);
    const titleTaken = title !== undefined && title !== label.title && (await existingLabelIds(em, scoped.project.id, [title])).length > 0;
    const problems = labelProblems({ color, title, titleTaken });
    if (Object.keys(problems).length) throw new BadRequestError(problems);
    await updateLabel(
      em,
      label.id,
      { title, color: color ?? undefined, description: input.description, priority: input.priority },
      this.ctx.now(),
    );
    return this.present(scoped, { id: label.id });
  }

  /** DELETE /projects/:id/labels/:label_id: the label (by ID or name) deleted, and its links; 404 `Label Not Found`. */
  async delete(scoped: ProjectInScope, labelId: number | string): Promise<void> {
    await deleteLabel(this.ctx.em, (await this.labelOf(scoped, labelId)).id);
  }

  /** DELETE /projects/:id/labels with `name` (SPEC.md's era). */
  async deleteByName(scoped: ProjectInScope, input: DeleteLabelInput): Promise<void> {
    await deleteLabel(this.ctx.em, (await this.labelOf(scoped, { title: input.name })).id);
  }

  /** POST /projects/:id/labels/:label_id/subscribe: the caller hears of the label's issues (304 when it did already). */
  subscribe(scoped: ProjectInScope, labelId: number | string): Promise<Label> {
    return this.choose(scoped, labelId, true);
  }

  /** POST /projects/:id/labels/:label_id/unsubscribe: it no longer does (304 when it did not). */
  unsubscribe(scoped: ProjectInScope, labelId: number | string): Promise<Label> {
    return this.choose(scoped, labelId, false);
  }

  private async choose(scoped: ProjectInScope, labelId: number | string, subscribed: boolean): Promise<Label> {
    const label = await this.labelOf(scoped, labelId);
    if ((label.subscribed ?? false) === subscribed) throw new NotModifiedError();
    await setSubscription(this.ctx.em, 'Label', label.id, this.ctx.currentUser.id, subscribed, this.ctx.now());
    return this.present(scoped, { id: label.id });
  }

  private async present(scoped: ProjectInScope, by: { id: number }): Promise<Label> {
    return presentLabel((await findLabel((await this.ctx.view()).rows, scoped.project.id, by, this.viewer(scoped)))!);
  }

  /**
   * A label of the project by ID or else by name (the original's find_label: an ID first, then a title, so a label
   * named `12` is found by its name when no label has the ID 12); `notFound` when there is none.
   */
  private async labelOf(
    scoped: ProjectInScope,
    label: number | string | { title: string },
    notFound = new NotFoundError('Label'),
  ): Promise<LabelRow> {
    const rows = (await this.ctx.view()).rows;
    const viewer = this.viewer(scoped);
    const projectId = scoped.project.id;
    const title = typeof label === 'object' ? label.title : String(label);
    const id = typeof label === 'number' ? label : typeof label === 'string' && /^\d{1,10}$/.test(label) ? Number(label) : undefined;
    const found =
      (id !== undefined && id <= INT32_MAX ? await findLabel(rows, projectId, { id }, viewer) : undefined) ??
      (await findLabel(rows, projectId, { title }, viewer));
    if (!found) throw notFound;
    return found;
  }
}

/** The original's `at_least_one_of :new_name, :color, :description, :priority`: a null counts as given. */
function requireChanges(input: UpdateLabelInput): void {
  if (input.new_name === undefined && input.color === undefined && input.description === undefined && input.priority === undefined) {
    throw new BadRequestError(
      '400 (Bad request) "new_name, color, description, priority" are missing, at least one parameter must be provided',
    );
  }
}
