import { COMMENT_BODY_LIMIT, CommitComment, CommitStatus, CreateCommitCommentInput, CreateCommitStatusInput, ListCommitStatusesQuery } from '../schemas/commit-statuses.js';
import { defineRoute } from './route.js';

export const commitStatuses = {
  list: defineRoute({
    method: 'GET', path: '/projects/:id/repository/commits/:sha/statuses', summary: 'The statuses of a commit: the latest of each name in each of its pipelines, or all of them; by ref, stage and name', auth: 'public',
    scope: 'project', ability: 'download_code', input: ListCommitStatusesQuery, list: CommitStatus,
    run: (ctx, { project, sha }, input) => ctx.commitStatuses.list(project, sha, input),
  }),
  create: defineRoute({
    method: 'POST', path: '/projects/:id/statuses/:sha', summary: 'Post a commit’s status for a ref: a new one, or the same name’s still pending or running one updated; the pipeline’s status follows (developers)', auth: 'user',
    scope: 'project', ability: 'create_commit_status', input: CreateCommitStatusInput, response: CommitStatus,
    run: (ctx, { project, sha }, input) => ctx.commitStatuses.create(project, sha, input),
  }),
};

export const commitComments = {
  list: defineRoute({
    method: 'GET', path: '/projects/:id/repository/commits/:sha/comments', summary: 'The comments on a commit, oldest first', auth: 'public',
    scope: 'project', ability: 'download_code', list: CommitComment,
    run: (ctx, { project, sha }, input) => ctx.commitComments.list(project, sha, input),
  }),
  create: defineRoute({
    method: 'POST', path: '/projects/:id/repository/commits/:sha/comments', summary: 'Comment on a commit, or on a line it adds or removes (otherwise the comment goes on the commit itself)', auth: 'user',
    scope: 'project', ability: 'create_note', input: CreateCommitCommentInput, response: CommitComment, bodyLimit: COMMENT_BODY_LIMIT,
    run: (ctx, { project, sha }, input) => ctx.commitComments.create(project, sha, input),
  }),
};
