import { CreateIssueInput, Issue, IssueBasic, ListIssuesQuery, MoveIssueInput, UpdateIssueInput } from '../schemas/issues.js';
import { WORK_ITEM_BODY_LIMIT } from '../schemas/work-items.js';
import { defineRoute } from './route.js';
import { groupRoute, projectRoute } from './scoped.js';
import { IssuesService } from '../services/work-items/issues.js';
import { defineModule } from './module.js';
import { awardEmojiRoutes, discussionRoutes, ISSUE, noteRoutes, timeTrackingRoutes } from './work-items.js';
import * as issuesSchemas from '../schemas/issues.js';
import * as workItemsSchemas from '../schemas/work-items.js';
import * as workItemsTables from '../db/entities/work-items.js';

/** Issue calls always require authentication (SPEC.md Authentication 1), reads too. */
const auth = 'user' as const;

export const issues = {
  listAll: defineRoute({
    method: 'GET',
    path: '/issues',
    summary: 'Issues of every project the caller may read: its own unless `scope` says otherwise',
    auth,
    input: ListIssuesQuery,
    list: IssueBasic,
    run: (ctx, _params, input) => new IssuesService(ctx).listAll(input),
  }),
  getById: defineRoute({
    method: 'GET',
    path: '/issues/:id',
    summary: 'Any issue by its instance-wide ID (administrators)',
    auth: 'admin',
    response: Issue,
    run: (ctx, { id }) => new IssuesService(ctx).getById(id),
  }),
  listForGroup: groupRoute({
    method: 'GET',
    path: '/issues',
    summary: 'Issues of the group’s projects and its subgroups’ that the caller may read',
    auth,
    ability: 'read_group',
    input: ListIssuesQuery,
    list: IssueBasic,
    run: (ctx, { group }, input) => new IssuesService(ctx).listForGroup(group, input),
  }),
  list: projectRoute({
    method: 'GET',
    path: '/issues',
    summary: 'The project’s issues the caller may read (confidential ones to their author, assignees and reporters and above)',
    auth,
    ability: 'read_project',
    input: ListIssuesQuery,
    list: IssueBasic,
    run: (ctx, { project }, input) => new IssuesService(ctx).listForProject(project, input),
  }),
  get: projectRoute({
    method: 'GET',
    path: '/issues/:issue_iid',
    scope: 'issue',
    summary: 'One issue, by its iid in the project',
    auth,
    ability: 'read_issue',
    response: Issue,
    run: (ctx, { issue }) => new IssuesService(ctx).get(issue),
  }),
  create: projectRoute({
    method: 'POST',
    path: '/issues',
    summary: 'Open an issue with the project’s next iid (labels, milestone, assignees and due date from reporters and above)',
    ability: 'create_issue',
    input: CreateIssueInput,
    response: Issue,
    bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { project }, input) => new IssuesService(ctx).create(project, input),
  }),
  update: projectRoute({
    method: 'PUT',
    path: '/issues/:issue_iid',
    scope: 'issue',
    summary: 'Change, close or reopen an issue (its author, assignees, and reporters and above); each change recorded in a system note',
    ability: 'update_issue',
    input: UpdateIssueInput,
    response: Issue,
    bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { issue }, input) => new IssuesService(ctx).update(issue, input),
  }),
  delete: projectRoute({
    method: 'DELETE',
    path: '/issues/:issue_iid',
    scope: 'issue',
    summary: 'Delete an issue (administrators and project owners): it leaves every list and count',
    ability: 'destroy_issue',
    run: (ctx, { issue }) => new IssuesService(ctx).delete(issue),
  }),
  move: projectRoute({
    method: 'POST',
    path: '/issues/:issue_iid/move',
    scope: 'issue',
    summary: 'Move an issue to another project: a new issue there, the original closed; 400 for the same project or without permission',
    ability: 'read_issue',
    input: MoveIssueInput,
    response: Issue,
    status: 200,
    run: (ctx, { issue }, input) => new IssuesService(ctx).move(issue, input),
  }),
  subscribe: projectRoute({
    method: 'POST',
    path: '/issues/:issue_iid/subscribe',
    scope: 'issue',
    summary: 'Hear of an issue’s changes (304 when subscribed already)',
    ability: 'read_issue',
    response: Issue,
    run: (ctx, { issue }) => new IssuesService(ctx).subscribe(issue),
  }),
  unsubscribe: projectRoute({
    method: 'POST',
    path: '/issues/:issue_iid/unsubscribe',
    scope: 'issue',
    summary: 'Stop hearing of an issue (304 when not subscribed)',
    ability: 'read_issue',
    response: Issue,
    run: (ctx, { issue }) => new IssuesService(ctx).unsubscribe(issue),
  }),
  ...timeTrackingRoutes(ISSUE),
};

export const issueNotes = noteRoutes(ISSUE);
export const awardEmoji = awardEmojiRoutes(ISSUE);
export const issueDiscussions = discussionRoutes(ISSUE);

export const issuesModule = defineModule({
  routes: { issues, issueNotes, awardEmoji, issueDiscussions },
  descriptions: {
    issues:
      'Issues of projects: listed with filters, opened, changed, closed and reopened, moved and deleted; ' +
      'confidential ones only to those who may read them; time tracking and subscriptions',
    issueNotes: 'Notes on issues: comments, and the system notes that record each change',
    awardEmoji: 'Emoji awarded to issues and to notes on them (`thumbsup` and `thumbsdown` count as votes)',
    issueDiscussions: 'Discussions of issues: threads of notes and notes of their own',
  },
  schemas: { ...issuesSchemas, ...workItemsSchemas },
  entities: [
    workItemsTables.InternalId,
    workItemsTables.Issue,
    workItemsTables.IssueAssignee,
    workItemsTables.Note,
    workItemsTables.AwardEmoji,
    workItemsTables.Subscription,
    workItemsTables.Timelog,
  ],
  migrations: [
    () => import('../db/migrations/Migration20261126000002_work_items.js'),
    () => import('../db/migrations/Migration20261126000003_issue_search.js'),
    () => import('../db/migrations/Migration20261126000004_issue_order.js'),
    () => import('../db/migrations/Migration20261126000006_discussions.js'),
    () => import('../db/migrations/Migration20261126000007_live_work_items.js'),
  ],
});
