import { CreateIssueInput, Issue, IssueBasic, ListIssuesQuery, MoveIssueInput, UpdateIssueInput } from '../schemas/issues.js';
import {
  AwardEmoji,
  CreateAwardEmojiInput,
  CreateDiscussionInput,
  Discussion,
  ReplyInput,
  UpdateDiscussionNoteInput,
  CreateNoteInput,
  ListNotesQuery,
  Note,
  SpentTimeInput,
  TimeEstimateInput,
  TimeStats,
  UpdateNoteInput,
  WORK_ITEM_BODY_LIMIT,
} from '../schemas/work-items.js';
import { issueTarget } from '../services/work-items/work-item-target.js';
import { defineRoute } from './route.js';
import { groupRoute, projectRoute } from './scoped.js';

/** Issue calls always require authentication (SPEC.md Authentication 1), reads too. */
const auth = 'user' as const;

export const issues = {
  listAll: defineRoute({
    method: 'GET', path: '/issues', summary: 'Issues of every project the caller may read: its own unless `scope` says otherwise', auth,
    input: ListIssuesQuery, list: IssueBasic,
    run: (ctx, _params, input) => ctx.issues.listAll(input),
  }),
  getById: defineRoute({
    method: 'GET', path: '/issues/:id', summary: 'Any issue by its instance-wide ID (administrators)', auth: 'admin',
    response: Issue,
    run: (ctx, { id }) => ctx.issues.getById(id),
  }),
  listForGroup: groupRoute({
    method: 'GET', path: '/issues', summary: 'Issues of the group’s projects and its subgroups’ that the caller may read', auth,
    ability: 'read_group', input: ListIssuesQuery, list: IssueBasic,
    run: (ctx, { group }, input) => ctx.issues.listForGroup(group, input),
  }),
  list: projectRoute({
    method: 'GET', path: '/issues', summary: 'The project’s issues the caller may read (confidential ones to their author, assignees and reporters and above)', auth,
    ability: 'read_project', input: ListIssuesQuery, list: IssueBasic,
    run: (ctx, { project }, input) => ctx.issues.listForProject(project, input),
  }),
  get: projectRoute({
    method: 'GET', path: '/issues/:issue_iid', scope: 'issue', summary: 'One issue, by its iid in the project', auth,
    ability: 'read_issue', response: Issue,
    run: (ctx, { issue }) => ctx.issues.get(issue),
  }),
  create: projectRoute({
    method: 'POST', path: '/issues', summary: 'Open an issue with the project’s next iid (labels, milestone, assignees and due date from reporters and above)',
    ability: 'create_issue', input: CreateIssueInput, response: Issue, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { project }, input) => ctx.issues.create(project, input),
  }),
  update: projectRoute({
    method: 'PUT', path: '/issues/:issue_iid', scope: 'issue', summary: 'Change, close or reopen an issue (its author, assignees, and reporters and above); each change recorded in a system note',
    ability: 'update_issue', input: UpdateIssueInput, response: Issue, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { issue }, input) => ctx.issues.update(issue, input),
  }),
  delete: projectRoute({
    method: 'DELETE', path: '/issues/:issue_iid', scope: 'issue', summary: 'Delete an issue (administrators and project owners): it leaves every list and count',
    ability: 'read_issue',
    run: (ctx, { issue }) => ctx.issues.delete(issue),
  }),
  move: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/move', scope: 'issue', summary: 'Move an issue to another project: a new issue there, the original closed; 400 for the same project or without permission',
    ability: 'read_issue', input: MoveIssueInput, response: Issue, status: 200,
    run: (ctx, { issue }, input) => ctx.issues.move(issue, input),
  }),
  subscribe: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/subscribe', scope: 'issue', summary: 'Hear of an issue’s changes (304 when subscribed already)',
    ability: 'read_issue', response: Issue,
    run: (ctx, { issue }) => ctx.issues.subscribe(issue),
  }),
  unsubscribe: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/unsubscribe', scope: 'issue', summary: 'Stop hearing of an issue (304 when not subscribed)',
    ability: 'read_issue', response: Issue,
    run: (ctx, { issue }) => ctx.issues.unsubscribe(issue),
  }),
  timeStats: projectRoute({
    method: 'GET', path: '/issues/:issue_iid/time_stats', scope: 'issue', summary: 'The time estimated for an issue and spent on it', auth,
    ability: 'read_issue', response: TimeStats,
    run: (ctx, { issue }) => ctx.timeTracking.stats(issueTarget(issue)),
  }),
  setTimeEstimate: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/time_estimate', scope: 'issue', summary: 'Estimate the time an issue takes (`3h30m`, `1w 2d`)',
    ability: 'update_issue', input: TimeEstimateInput, response: TimeStats, status: 200,
    run: (ctx, { issue }, input) => ctx.timeTracking.setEstimate(issueTarget(issue), input),
  }),
  resetTimeEstimate: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/reset_time_estimate', scope: 'issue', summary: 'Take an issue’s estimate away',
    ability: 'update_issue', response: TimeStats, status: 200,
    run: (ctx, { issue }) => ctx.timeTracking.resetEstimate(issueTarget(issue)),
  }),
  addSpentTime: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/add_spent_time', scope: 'issue', summary: 'Log time spent on an issue (negative to take some back)',
    ability: 'update_issue', input: SpentTimeInput, response: TimeStats,
    run: (ctx, { issue }, input) => ctx.timeTracking.addSpent(issueTarget(issue), input),
  }),
  resetSpentTime: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/reset_spent_time', scope: 'issue', summary: 'Take back all the time spent on an issue',
    ability: 'update_issue', response: TimeStats, status: 200,
    run: (ctx, { issue }) => ctx.timeTracking.resetSpent(issueTarget(issue)),
  }),
};

export const issueNotes = {
  list: projectRoute({
    method: 'GET', path: '/issues/:issue_iid/notes', scope: 'issue', summary: 'The notes on an issue, comments and system notes, newest first unless asked otherwise', auth,
    ability: 'read_issue', input: ListNotesQuery, list: Note,
    run: (ctx, { issue }, input) => ctx.notes.list(issueTarget(issue), input),
  }),
  get: projectRoute({
    method: 'GET', path: '/issues/:issue_iid/notes/:note_id', scope: 'issue', summary: 'One note on an issue', auth,
    ability: 'read_issue', response: Note,
    run: (ctx, { issue, note_id }) => ctx.notes.get(issueTarget(issue), note_id),
  }),
  create: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/notes', scope: 'issue', summary: 'Comment on an issue (while its discussion is locked, project members only)',
    ability: 'create_issue_note', input: CreateNoteInput, response: Note, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { issue }, input) => ctx.notes.create(issueTarget(issue), input),
  }),
  update: projectRoute({
    method: 'PUT', path: '/issues/:issue_iid/notes/:note_id', scope: 'issue', summary: 'Change a comment (its author, maintainers)',
    ability: 'read_issue', input: UpdateNoteInput, response: Note, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { issue, note_id }, input) => ctx.notes.update(issueTarget(issue), note_id, input),
  }),
  delete: projectRoute({
    method: 'DELETE', path: '/issues/:issue_iid/notes/:note_id', scope: 'issue', summary: 'Delete a comment (its author, maintainers)',
    ability: 'read_issue',
    run: (ctx, { issue, note_id }) => ctx.notes.delete(issueTarget(issue), note_id),
  }),
};

export const awardEmoji = {
  list: projectRoute({
    method: 'GET', path: '/issues/:issue_iid/award_emoji', scope: 'issue', summary: 'The emoji awarded to an issue', auth,
    ability: 'read_issue', list: AwardEmoji,
    run: (ctx, { issue }, input) => ctx.awardEmoji.list({ target: issueTarget(issue) }, input),
  }),
  get: projectRoute({
    method: 'GET', path: '/issues/:issue_iid/award_emoji/:award_id', scope: 'issue', summary: 'One emoji awarded to an issue', auth,
    ability: 'read_issue', response: AwardEmoji,
    run: (ctx, { issue, award_id }) => ctx.awardEmoji.get({ target: issueTarget(issue) }, award_id),
  }),
  create: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/award_emoji', scope: 'issue', summary: 'Award an emoji to an issue (`thumbsup` and `thumbsdown` count as votes, never one’s own)',
    ability: 'award_issue_emoji', input: CreateAwardEmojiInput, response: AwardEmoji,
    run: (ctx, { issue }, input) => ctx.awardEmoji.create({ target: issueTarget(issue) }, input),
  }),
  delete: projectRoute({
    method: 'DELETE', path: '/issues/:issue_iid/award_emoji/:award_id', scope: 'issue', summary: 'Take back one’s emoji from an issue (administrators: anyone’s)',
    ability: 'read_issue',
    run: (ctx, { issue, award_id }) => ctx.awardEmoji.delete({ target: issueTarget(issue) }, award_id),
  }),
  listForNote: projectRoute({
    method: 'GET', path: '/issues/:issue_iid/notes/:note_id/award_emoji', scope: 'issue', summary: 'The emoji awarded to a note on an issue', auth,
    ability: 'read_issue', list: AwardEmoji,
    run: (ctx, { issue, note_id }, input) => ctx.awardEmoji.list({ target: issueTarget(issue), noteId: note_id }, input),
  }),
  getForNote: projectRoute({
    method: 'GET', path: '/issues/:issue_iid/notes/:note_id/award_emoji/:award_id', scope: 'issue', summary: 'One emoji awarded to a note on an issue', auth,
    ability: 'read_issue', response: AwardEmoji,
    run: (ctx, { issue, note_id, award_id }) => ctx.awardEmoji.get({ target: issueTarget(issue), noteId: note_id }, award_id),
  }),
  createForNote: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/notes/:note_id/award_emoji', scope: 'issue', summary: 'Award an emoji to a note on an issue',
    ability: 'award_issue_emoji', input: CreateAwardEmojiInput, response: AwardEmoji,
    run: (ctx, { issue, note_id }, input) => ctx.awardEmoji.create({ target: issueTarget(issue), noteId: note_id }, input),
  }),
  deleteForNote: projectRoute({
    method: 'DELETE', path: '/issues/:issue_iid/notes/:note_id/award_emoji/:award_id', scope: 'issue', summary: 'Take back one’s emoji from a note',
    ability: 'read_issue',
    run: (ctx, { issue, note_id, award_id }) => ctx.awardEmoji.delete({ target: issueTarget(issue), noteId: note_id }, award_id),
  }),
};

export const issueDiscussions = {
  list: projectRoute({
    method: 'GET', path: '/issues/:issue_iid/discussions', scope: 'issue', summary: 'The discussions of an issue: threads and notes of their own, in the order they began', auth,
    ability: 'read_issue', list: Discussion,
    run: (ctx, { issue }, input) => ctx.discussions.list(issueTarget(issue), input),
  }),
  get: projectRoute({
    method: 'GET', path: '/issues/:issue_iid/discussions/:discussion_id', scope: 'issue', summary: 'One discussion of an issue, with its notes', auth,
    ability: 'read_issue', response: Discussion,
    run: (ctx, { issue, discussion_id }) => ctx.discussions.get(issueTarget(issue), discussion_id),
  }),
  create: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/discussions', scope: 'issue', summary: 'Start a thread on an issue',
    ability: 'create_issue_note', input: CreateDiscussionInput, response: Discussion, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { issue }, input) => ctx.discussions.create(issueTarget(issue), input),
  }),
  reply: projectRoute({
    method: 'POST', path: '/issues/:issue_iid/discussions/:discussion_id/notes', scope: 'issue', summary: 'Reply in a discussion (a note of its own becomes a thread)',
    ability: 'create_issue_note', input: ReplyInput, response: Note, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { issue, discussion_id }, input) => ctx.discussions.reply(issueTarget(issue), discussion_id, input),
  }),
  updateNote: projectRoute({
    method: 'PUT', path: '/issues/:issue_iid/discussions/:discussion_id/notes/:note_id', scope: 'issue', summary: 'Change a note of a discussion (`body`), or resolve it (`resolved`, a merge request’s)',
    ability: 'read_issue', input: UpdateDiscussionNoteInput, response: Note, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { issue, discussion_id, note_id }, input) => ctx.discussions.updateNote(issueTarget(issue), discussion_id, note_id, input),
  }),
  deleteNote: projectRoute({
    method: 'DELETE', path: '/issues/:issue_iid/discussions/:discussion_id/notes/:note_id', scope: 'issue', summary: 'Delete a note of a discussion (its author, maintainers)',
    ability: 'read_issue',
    run: (ctx, { issue, discussion_id, note_id }) => ctx.discussions.deleteNote(issueTarget(issue), discussion_id, note_id),
  }),
};
