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
import { Discussion, ResolveDiscussionInput, WORK_ITEM_BODY_LIMIT } from '../schemas/work-items.js';
import { mergeRequestTarget } from '../services/work-items/work-item-target.js';
import { defineRoute } from './route.js';
import { groupRoute, projectRoute } from './scoped.js';
import { DiscussionsService } from '../services/work-items/discussions.js';
import { MergeRequestsService } from '../services/work-items/merge-requests.js';
import { defineModule } from './module.js';
import { awardEmojiRoutes, discussionRoutes, MERGE_REQUEST, noteRoutes, timeTrackingRoutes } from './work-items.js';
import * as mergeRequestsSchemas from '../schemas/merge-requests.js';
import * as workItemsTables from '../db/entities/work-items.js';
import { workItemRules } from '../services/work-items/work-item-rules.js';

/** Merge request calls always require authentication (SPEC.md Authentication 1), reads too. */
const auth = 'user' as const;

/** A list's items: `view=simple` answers the short form. */
const listed = Type.Union([MergeRequestBasic, MergeRequestSimple]);

export const mergeRequests = {
  listAll: defineRoute({
    method: 'GET',
    path: '/merge_requests',
    summary: 'Merge requests of every project the caller may read: its own unless `scope` says otherwise',
    auth,
    input: ListMergeRequestsQuery,
    list: listed,
    run: (ctx, _params, input) => new MergeRequestsService(ctx).listAll(input),
  }),
  listForGroup: groupRoute({
    method: 'GET',
    path: '/merge_requests',
    summary: 'Merge requests of the group’s projects and its subgroups’ that the caller may read',
    auth,
    ability: 'read_group',
    input: ListMergeRequestsQuery,
    list: listed,
    run: (ctx, { group }, input) => new MergeRequestsService(ctx).listForGroup(group, input),
  }),
  list: projectRoute({
    method: 'GET',
    path: '/merge_requests',
    summary: 'The project’s merge requests (none to those who may not read its code)',
    auth,
    ability: 'read_project',
    input: ListMergeRequestsQuery,
    list: listed,
    run: (ctx, { project }, input) => new MergeRequestsService(ctx).listForProject(project, input),
  }),
  get: projectRoute({
    method: 'GET',
    path: '/merge_requests/:merge_request_iid',
    scope: 'mergeRequest',
    summary: 'One merge request, with its merge status worked out for the branches’ heads',
    auth,
    ability: 'read_merge_request',
    input: GetMergeRequestQuery,
    response: MergeRequest,
    run: (ctx, { mergeRequest }, input) => new MergeRequestsService(ctx).get(mergeRequest, input),
  }),
  commits: projectRoute({
    method: 'GET',
    path: '/merge_requests/:merge_request_iid/commits',
    scope: 'mergeRequest',
    summary: 'The commits of the source branch that the target branch lacks, newest first',
    auth,
    ability: 'read_merge_request',
    list: MergeRequestCommit,
    run: (ctx, { mergeRequest }, input) => new MergeRequestsService(ctx).commits(mergeRequest, input),
  }),
  changes: projectRoute({
    method: 'GET',
    path: '/merge_requests/:merge_request_iid/changes',
    scope: 'mergeRequest',
    summary: 'The merge request with the files it changes from the merge base',
    auth,
    ability: 'read_merge_request',
    response: MergeRequestChanges,
    run: (ctx, { mergeRequest }) => new MergeRequestsService(ctx).changes(mergeRequest),
  }),
  create: projectRoute({
    method: 'POST',
    path: '/merge_requests',
    summary: 'Open a merge request from a branch of this project into one of it or, from a fork, of its upstream (`target_project_id`)',
    ability: 'create_merge_request_from',
    input: CreateMergeRequestInput,
    response: MergeRequest,
    bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { project }, input) => new MergeRequestsService(ctx).create(project, input),
  }),
  update: projectRoute({
    method: 'PUT',
    path: '/merge_requests/:merge_request_iid',
    scope: 'mergeRequest',
    summary:
      'Change, close or reopen a merge request (its author, assignees, and developers and above); each change recorded in a system note',
    ability: 'update_merge_request',
    input: UpdateMergeRequestInput,
    response: MergeRequest,
    bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { mergeRequest }, input) => new MergeRequestsService(ctx).update(mergeRequest, input),
  }),
  delete: projectRoute({
    method: 'DELETE',
    path: '/merge_requests/:merge_request_iid',
    scope: 'mergeRequest',
    summary: 'Delete a merge request (administrators and project owners): it leaves every list',
    ability: 'destroy_merge_request',
    run: (ctx, { mergeRequest }) => new MergeRequestsService(ctx).delete(mergeRequest),
  }),
  merge: projectRoute({
    method: 'PUT',
    path: '/merge_requests/:merge_request_iid/merge',
    scope: 'mergeRequest',
    summary:
      'Merge: a merge commit on the target branch (401 without the right to merge into it, 405 on a conflict, 406 when not open, ' +
      '409 when `sha` is not the source head)',
    ability: 'read_merge_request',
    input: MergeInput,
    response: MergeRequest,
    bodyLimit: WORK_ITEM_BODY_LIMIT,
    run: (ctx, { mergeRequest }, input) => new MergeRequestsService(ctx).merge(mergeRequest, input),
  }),
  cancelMergeWhenPipelineSucceeds: projectRoute({
    method: 'PUT',
    path: '/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds',
    scope: 'mergeRequest',
    summary: 'Call off an automatic merge (401 without the right to merge, 405 when merged or closed, 406 when not set)',
    ability: 'read_merge_request',
    response: MergeRequest,
    run: (ctx, { mergeRequest }) => new MergeRequestsService(ctx).cancelMergeWhenPipelineSucceeds(mergeRequest),
  }),
  cancelMergeWhenPipelineSucceedsByPost: projectRoute({
    method: 'POST',
    path: '/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds',
    scope: 'mergeRequest',
    summary: 'Call off an automatic merge, as later clients send it (POST)',
    ability: 'read_merge_request',
    response: MergeRequest,
    status: 200,
    run: (ctx, { mergeRequest }) => new MergeRequestsService(ctx).cancelMergeWhenPipelineSucceeds(mergeRequest),
  }),
  closesIssues: projectRoute({
    method: 'GET',
    path: '/merge_requests/:merge_request_iid/closes_issues',
    scope: 'mergeRequest',
    summary: 'The open issues the merge request closes once merged (closing patterns in its description and commits)',
    auth,
    ability: 'read_merge_request',
    list: IssueBasic,
    run: (ctx, { mergeRequest }, input) => new MergeRequestsService(ctx).closesIssues(mergeRequest, input),
  }),
  subscribe: projectRoute({
    method: 'POST',
    path: '/merge_requests/:merge_request_iid/subscribe',
    scope: 'mergeRequest',
    summary: 'Hear of a merge request’s changes (304 when subscribed already)',
    ability: 'read_merge_request',
    response: MergeRequest,
    run: (ctx, { mergeRequest }) => new MergeRequestsService(ctx).subscribe(mergeRequest),
  }),
  unsubscribe: projectRoute({
    method: 'POST',
    path: '/merge_requests/:merge_request_iid/unsubscribe',
    scope: 'mergeRequest',
    summary: 'Stop hearing of a merge request (304 when not subscribed)',
    ability: 'read_merge_request',
    response: MergeRequest,
    run: (ctx, { mergeRequest }) => new MergeRequestsService(ctx).unsubscribe(mergeRequest),
  }),
  ...timeTrackingRoutes(MERGE_REQUEST),
};

export const mergeRequestNotes = noteRoutes(MERGE_REQUEST);
export const mergeRequestAwardEmoji = awardEmojiRoutes(MERGE_REQUEST);

export const mergeRequestDiscussions = {
  ...discussionRoutes(MERGE_REQUEST),
  resolve: projectRoute({
    method: 'PUT',
    path: '/merge_requests/:merge_request_iid/discussions/:discussion_id',
    scope: 'mergeRequest',
    summary: 'Resolve (or unresolve) a whole thread (the request’s author, developers and above)',
    ability: 'resolve_merge_request_discussion',
    input: ResolveDiscussionInput,
    response: Discussion,
    run: (ctx, { mergeRequest, discussion_id }, input) =>
      new DiscussionsService(ctx).resolve(mergeRequestTarget(mergeRequest), discussion_id, input.resolved),
  }),
};

export const mergeRequestsModule = defineModule({
  routes: { mergeRequests, mergeRequestNotes, mergeRequestAwardEmoji, mergeRequestDiscussions },
  descriptions: {
    mergeRequests:
      'Merge requests: from a branch into another of the same project or, from a fork, of its upstream; their ' +
      'commits and changes, merged by a real merge commit, the issues they close',
    mergeRequestNotes: 'Notes on merge requests: comments, and the system notes that record each change',
    mergeRequestAwardEmoji: 'Emoji awarded to merge requests and to notes on them',
    mergeRequestDiscussions: 'Discussions of merge requests: threads of notes, resolvable by the request’s author and developers',
  },
  schemas: { ...mergeRequestsSchemas },
  entities: [workItemsTables.MergeRequest, workItemsTables.MergeRequestAssignee],
  migrations: [() => import('../db/migrations/Migration20261126000005_merge_requests.js')],
  rules: workItemRules,
});
