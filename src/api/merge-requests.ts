import { Type } from 'typebox';
import { MergeRequestCommit } from '../schemas/merge-requests.js';
import {
  CreateMergeRequestInput,
  GetMergeRequestQuery,
  ListMergeRequestsQuery,
  MergeInput,
  MergeRequest,
  MergeRequestBasic,
  MergeRequestChanges,
  MergeRequestSimple,
  UpdateMergeRequestInput,
} from '../schemas/merge-requests.js';
import { IssueBasic } from '../schemas/issues.js';
import {
  AwardEmoji,
  CreateAwardEmojiInput,
  CreateDiscussionInput,
  Discussion,
  ReplyInput,
  ResolveDiscussionInput,
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
import { mergeRequestTarget } from '../services/work-items/work-item-target.js';
import { defineRoute } from './route.js';
import { groupRoute, projectRoute } from './scoped.js';

/** Merge request calls always require authentication (SPEC.md Authentication 1), reads too. */
const auth = 'user' as const;

/** A list's items: `view=simple` answers the short form. */
const listed = Type.Union([MergeRequestBasic, MergeRequestSimple]);

export const mergeRequests = {
  listAll: defineRoute({
    method: 'GET', path: '/merge_requests', summary: 'Merge requests of every project the caller may read: its own unless `scope` says otherwise', auth,
    input: ListMergeRequestsQuery, list: listed,
    run: (ctx, _params, input) => ctx.mergeRequests.listAll(input),
  }),
  listForGroup: groupRoute({
    method: 'GET', path: '/merge_requests', summary: 'Merge requests of the group’s projects and its subgroups’ that the caller may read', auth,
    ability: 'read_group', input: ListMergeRequestsQuery, list: listed,
    run: (ctx, { group }, input) => ctx.mergeRequests.listForGroup(group, input),
  }),
  list: projectRoute({
    method: 'GET', path: '/merge_requests', summary: 'The project’s merge requests (none to those who may not read its code)', auth,
    ability: 'read_project', input: ListMergeRequestsQuery, list: listed,
    run: (ctx, { project }, input) => ctx.mergeRequests.listForProject(project, input),
  }),
  get: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid', scope: 'mergeRequest', summary: 'One merge request, with its merge status worked out for the branches’ heads', auth,
    ability: 'read_merge_request', input: GetMergeRequestQuery, response: MergeRequest,
    run: (ctx, { mergeRequest }, input) => ctx.mergeRequests.get(mergeRequest, input),
  }),
  commits: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/commits', scope: 'mergeRequest', summary: 'The commits of the source branch that the target branch lacks, newest first', auth,
    ability: 'read_merge_request', list: MergeRequestCommit,
    run: (ctx, { mergeRequest }, input) => ctx.mergeRequests.commits(mergeRequest, input),
  }),
  changes: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/changes', scope: 'mergeRequest', summary: 'The merge request with the files it changes from the merge base', auth,
    ability: 'read_merge_request', response: MergeRequestChanges,
    run: (ctx, { mergeRequest }) => ctx.mergeRequests.changes(mergeRequest),
  }),
  create: projectRoute({
    method: 'POST', path: '/merge_requests', summary: 'Open a merge request from a branch of this project into one of it or, from a fork, of its upstream (`target_project_id`)',
    ability: 'read_project', input: CreateMergeRequestInput, response: MergeRequest, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { project }, input) => ctx.mergeRequests.create(project, input),
  }),
  update: projectRoute({
    method: 'PUT', path: '/merge_requests/:merge_request_iid', scope: 'mergeRequest', summary: 'Change, close or reopen a merge request (its author, assignees, and developers and above); each change recorded in a system note',
    ability: 'update_merge_request', input: UpdateMergeRequestInput, response: MergeRequest, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { mergeRequest }, input) => ctx.mergeRequests.update(mergeRequest, input),
  }),
  delete: projectRoute({
    method: 'DELETE', path: '/merge_requests/:merge_request_iid', scope: 'mergeRequest', summary: 'Delete a merge request (administrators and project owners): it leaves every list',
    ability: 'read_merge_request',
    run: (ctx, { mergeRequest }) => ctx.mergeRequests.delete(mergeRequest),
  }),
  merge: projectRoute({
    method: 'PUT', path: '/merge_requests/:merge_request_iid/merge', scope: 'mergeRequest',
    summary: 'Merge: a merge commit on the target branch (401 without the right to merge into it, 405 on a conflict, 406 when not open, 409 when `sha` is not the source head)',
    ability: 'read_merge_request', input: MergeInput, response: MergeRequest, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { mergeRequest }, input) => ctx.mergeRequests.merge(mergeRequest, input),
  }),
  cancelMergeWhenPipelineSucceeds: projectRoute({
    method: 'PUT', path: '/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds', scope: 'mergeRequest',
    summary: 'Call off an automatic merge (401 without the right to merge, 405 when merged or closed, 406 when not set)',
    ability: 'read_merge_request', response: MergeRequest,
    run: (ctx, { mergeRequest }) => ctx.mergeRequests.cancelMergeWhenPipelineSucceeds(mergeRequest),
  }),
  cancelMergeWhenPipelineSucceedsByPost: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds', scope: 'mergeRequest',
    summary: 'Call off an automatic merge, as later clients send it (POST)',
    ability: 'read_merge_request', response: MergeRequest, status: 200,
    run: (ctx, { mergeRequest }) => ctx.mergeRequests.cancelMergeWhenPipelineSucceeds(mergeRequest),
  }),
  closesIssues: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/closes_issues', scope: 'mergeRequest', summary: 'The open issues the merge request closes once merged (closing patterns in its description and commits)', auth,
    ability: 'read_merge_request', list: IssueBasic,
    run: (ctx, { mergeRequest }, input) => ctx.mergeRequests.closesIssues(mergeRequest, input),
  }),
  subscribe: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/subscribe', scope: 'mergeRequest', summary: 'Hear of a merge request’s changes (304 when subscribed already)',
    ability: 'read_merge_request', response: MergeRequest,
    run: (ctx, { mergeRequest }) => ctx.mergeRequests.subscribe(mergeRequest),
  }),
  unsubscribe: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/unsubscribe', scope: 'mergeRequest', summary: 'Stop hearing of a merge request (304 when not subscribed)',
    ability: 'read_merge_request', response: MergeRequest,
    run: (ctx, { mergeRequest }) => ctx.mergeRequests.unsubscribe(mergeRequest),
  }),
  timeStats: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/time_stats', scope: 'mergeRequest', summary: 'The time estimated for a merge request and spent on it', auth,
    ability: 'read_merge_request', response: TimeStats,
    run: (ctx, { mergeRequest }) => ctx.timeTracking.stats(mergeRequestTarget(mergeRequest)),
  }),
  setTimeEstimate: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/time_estimate', scope: 'mergeRequest', summary: 'Estimate the time a merge request takes (`3h30m`, `1w 2d`)',
    ability: 'update_merge_request', input: TimeEstimateInput, response: TimeStats, status: 200,
    run: (ctx, { mergeRequest }, input) => ctx.timeTracking.setEstimate(mergeRequestTarget(mergeRequest), input),
  }),
  resetTimeEstimate: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/reset_time_estimate', scope: 'mergeRequest', summary: 'Take a merge request’s estimate away',
    ability: 'update_merge_request', response: TimeStats, status: 200,
    run: (ctx, { mergeRequest }) => ctx.timeTracking.resetEstimate(mergeRequestTarget(mergeRequest)),
  }),
  addSpentTime: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/add_spent_time', scope: 'mergeRequest', summary: 'Log time spent on a merge request (negative to take some back)',
    ability: 'update_merge_request', input: SpentTimeInput, response: TimeStats,
    run: (ctx, { mergeRequest }, input) => ctx.timeTracking.addSpent(mergeRequestTarget(mergeRequest), input),
  }),
  resetSpentTime: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/reset_spent_time', scope: 'mergeRequest', summary: 'Take back all the time spent on a merge request',
    ability: 'update_merge_request', response: TimeStats, status: 200,
    run: (ctx, { mergeRequest }) => ctx.timeTracking.resetSpent(mergeRequestTarget(mergeRequest)),
  }),
};

export const mergeRequestNotes = {
  list: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/notes', scope: 'mergeRequest', summary: 'The notes on a merge request, comments and system notes, newest first unless asked otherwise', auth,
    ability: 'read_merge_request', input: ListNotesQuery, list: Note,
    run: (ctx, { mergeRequest }, input) => ctx.notes.list(mergeRequestTarget(mergeRequest), input),
  }),
  get: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/notes/:note_id', scope: 'mergeRequest', summary: 'One note on a merge request', auth,
    ability: 'read_merge_request', response: Note,
    run: (ctx, { mergeRequest, note_id }) => ctx.notes.get(mergeRequestTarget(mergeRequest), note_id),
  }),
  create: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/notes', scope: 'mergeRequest', summary: 'Comment on a merge request (while its discussion is locked, project members only)',
    ability: 'create_merge_request_note', input: CreateNoteInput, response: Note, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { mergeRequest }, input) => ctx.notes.create(mergeRequestTarget(mergeRequest), input),
  }),
  update: projectRoute({
    method: 'PUT', path: '/merge_requests/:merge_request_iid/notes/:note_id', scope: 'mergeRequest', summary: 'Change a comment (its author, maintainers)',
    ability: 'read_merge_request', input: UpdateNoteInput, response: Note, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { mergeRequest, note_id }, input) => ctx.notes.update(mergeRequestTarget(mergeRequest), note_id, input),
  }),
  delete: projectRoute({
    method: 'DELETE', path: '/merge_requests/:merge_request_iid/notes/:note_id', scope: 'mergeRequest', summary: 'Delete a comment (its author, maintainers)',
    ability: 'read_merge_request',
    run: (ctx, { mergeRequest, note_id }) => ctx.notes.delete(mergeRequestTarget(mergeRequest), note_id),
  }),
};

export const mergeRequestAwardEmoji = {
  list: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/award_emoji', scope: 'mergeRequest', summary: 'The emoji awarded to a merge request', auth,
    ability: 'read_merge_request', list: AwardEmoji,
    run: (ctx, { mergeRequest }, input) => ctx.awardEmoji.list({ target: mergeRequestTarget(mergeRequest) }, input),
  }),
  get: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/award_emoji/:award_id', scope: 'mergeRequest', summary: 'One emoji awarded to a merge request', auth,
    ability: 'read_merge_request', response: AwardEmoji,
    run: (ctx, { mergeRequest, award_id }) => ctx.awardEmoji.get({ target: mergeRequestTarget(mergeRequest) }, award_id),
  }),
  create: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/award_emoji', scope: 'mergeRequest', summary: 'Award an emoji to a merge request (`thumbsup` and `thumbsdown` count as votes, never one’s own)',
    ability: 'award_merge_request_emoji', input: CreateAwardEmojiInput, response: AwardEmoji,
    run: (ctx, { mergeRequest }, input) => ctx.awardEmoji.create({ target: mergeRequestTarget(mergeRequest) }, input),
  }),
  delete: projectRoute({
    method: 'DELETE', path: '/merge_requests/:merge_request_iid/award_emoji/:award_id', scope: 'mergeRequest', summary: 'Take back one’s emoji from a merge request (administrators: anyone’s)',
    ability: 'read_merge_request',
    run: (ctx, { mergeRequest, award_id }) => ctx.awardEmoji.delete({ target: mergeRequestTarget(mergeRequest) }, award_id),
  }),
  listForNote: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/notes/:note_id/award_emoji', scope: 'mergeRequest', summary: 'The emoji awarded to a note on a merge request', auth,
    ability: 'read_merge_request', list: AwardEmoji,
    run: (ctx, { mergeRequest, note_id }, input) => ctx.awardEmoji.list({ target: mergeRequestTarget(mergeRequest), noteId: note_id }, input),
  }),
  getForNote: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/notes/:note_id/award_emoji/:award_id', scope: 'mergeRequest', summary: 'One emoji awarded to a note on a merge request', auth,
    ability: 'read_merge_request', response: AwardEmoji,
    run: (ctx, { mergeRequest, note_id, award_id }) => ctx.awardEmoji.get({ target: mergeRequestTarget(mergeRequest), noteId: note_id }, award_id),
  }),
  createForNote: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/notes/:note_id/award_emoji', scope: 'mergeRequest', summary: 'Award an emoji to a note on a merge request',
    ability: 'award_merge_request_emoji', input: CreateAwardEmojiInput, response: AwardEmoji,
    run: (ctx, { mergeRequest, note_id }, input) => ctx.awardEmoji.create({ target: mergeRequestTarget(mergeRequest), noteId: note_id }, input),
  }),
  deleteForNote: projectRoute({
    method: 'DELETE', path: '/merge_requests/:merge_request_iid/notes/:note_id/award_emoji/:award_id', scope: 'mergeRequest', summary: 'Take back one’s emoji from a note on a merge request',
    ability: 'read_merge_request',
    run: (ctx, { mergeRequest, note_id, award_id }) => ctx.awardEmoji.delete({ target: mergeRequestTarget(mergeRequest), noteId: note_id }, award_id),
  }),
};

export const mergeRequestDiscussions = {
  list: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/discussions', scope: 'mergeRequest', summary: 'The discussions of a merge request: threads and notes of their own, in the order they began', auth,
    ability: 'read_merge_request', list: Discussion,
    run: (ctx, { mergeRequest }, input) => ctx.discussions.list(mergeRequestTarget(mergeRequest), input),
  }),
  get: projectRoute({
    method: 'GET', path: '/merge_requests/:merge_request_iid/discussions/:discussion_id', scope: 'mergeRequest', summary: 'One discussion of a merge request, with its notes', auth,
    ability: 'read_merge_request', response: Discussion,
    run: (ctx, { mergeRequest, discussion_id }) => ctx.discussions.get(mergeRequestTarget(mergeRequest), discussion_id),
  }),
  create: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/discussions', scope: 'mergeRequest', summary: 'Start a thread on a merge request',
    ability: 'create_merge_request_note', input: CreateDiscussionInput, response: Discussion, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { mergeRequest }, input) => ctx.discussions.create(mergeRequestTarget(mergeRequest), input),
  }),
  reply: projectRoute({
    method: 'POST', path: '/merge_requests/:merge_request_iid/discussions/:discussion_id/notes', scope: 'mergeRequest', summary: 'Reply in a discussion (a note of its own becomes a thread)',
    ability: 'create_merge_request_note', input: ReplyInput, response: Note, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { mergeRequest, discussion_id }, input) => ctx.discussions.reply(mergeRequestTarget(mergeRequest), discussion_id, input),
  }),
  updateNote: projectRoute({
    method: 'PUT', path: '/merge_requests/:merge_request_iid/discussions/:discussion_id/notes/:note_id', scope: 'mergeRequest', summary: 'Change a note of a discussion (`body`), or resolve it (`resolved`, a merge request’s)',
    ability: 'read_merge_request', input: UpdateDiscussionNoteInput, response: Note, bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { mergeRequest, discussion_id, note_id }, input) => ctx.discussions.updateNote(mergeRequestTarget(mergeRequest), discussion_id, note_id, input),
  }),
  deleteNote: projectRoute({
    method: 'DELETE', path: '/merge_requests/:merge_request_iid/discussions/:discussion_id/notes/:note_id', scope: 'mergeRequest', summary: 'Delete a note of a discussion (its author, maintainers)',
    ability: 'read_merge_request',
    run: (ctx, { mergeRequest, discussion_id, note_id }) => ctx.discussions.deleteNote(mergeRequestTarget(mergeRequest), discussion_id, note_id),
  }),
  resolve: projectRoute({
    method: 'PUT', path: '/merge_requests/:merge_request_iid/discussions/:discussion_id', scope: 'mergeRequest', summary: 'Resolve (or unresolve) a whole thread (the request’s author, developers and above)',
    ability: 'read_merge_request', input: ResolveDiscussionInput, response: Discussion,
    run: (ctx, { mergeRequest, discussion_id }, input) => ctx.discussions.resolve(mergeRequestTarget(mergeRequest), discussion_id, input.resolved),
  }),
};
