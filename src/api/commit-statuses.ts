import {
  COMMENT_BODY_LIMIT,
  CommitComment,
  CommitStatus,
  CreateCommitCommentInput,
  CreateCommitStatusInput,
  ListCommitStatusesQuery,
} from '../schemas/commit-statuses.js';
import { projectItems, projectRoute } from './scoped.js';
import { CommitStatusesService } from '../services/repository/commit-statuses.js';
import { CommitCommentsService } from '../services/repository/commit-comments.js';
import { defineModule } from './module.js';
import * as commitStatusesSchemas from '../schemas/commit-statuses.js';
import * as repositoriesTables from '../db/entities/repositories.js';

const commitStatus = projectItems({ path: '/repository/commits/:sha/statuses', service: (ctx) => new CommitStatusesService(ctx) });

export const commitStatuses = {
  list: commitStatus.list({
    summary: 'The statuses of a commit: the latest of each name in each of its pipelines, or all of them; by ref, stage and name',
    ability: 'download_code',
    input: ListCommitStatusesQuery,
    list: CommitStatus,
  }),
  // Posted to a path of its own, as the original does.
  create: projectRoute({
    method: 'POST',
    path: '/statuses/:sha',
    summary:
      'Post a commit’s status for a ref: a new one, or the same name’s still pending or running one updated; ' +
      'the pipeline’s status follows (developers)',
    ability: 'create_commit_status',
    input: CreateCommitStatusInput,
    response: CommitStatus,
    run: (ctx, { project, sha }, input) => new CommitStatusesService(ctx).create(project, sha, input),
  }),
};

const commitComment = projectItems({ path: '/repository/commits/:sha/comments', service: (ctx) => new CommitCommentsService(ctx) });

export const commitComments = {
  list: commitComment.list({
    summary: 'The comments on a commit, oldest first',
    ability: 'download_code',
    list: CommitComment,
  }),
  create: commitComment.create({
    summary: 'Comment on a commit, or on a line it adds or removes (otherwise the comment goes on the commit itself)',
    ability: 'create_note',
    input: CreateCommitCommentInput,
    response: CommitComment,
    bodyLimit: COMMENT_BODY_LIMIT,
  }),
};

export const commitStatusesModule = defineModule({
  routes: { commitStatuses, commitComments },
  descriptions: {
    commitStatuses:
      'Statuses that external systems post for a commit and ref: together they make the pipeline whose status the commit shows',
    commitComments: 'Comments on a commit, or on a line it adds or removes',
  },
  schemas: { ...commitStatusesSchemas },
  entities: [repositoriesTables.Pipeline, repositoriesTables.CommitStatus, repositoriesTables.CommitNote],
});
