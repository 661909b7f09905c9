import { CommitDetail, CommitListItem, CommitWithStats, CreateCommitInput, FILE_WRITE_BODY_LIMIT, GetCommitQuery, ListCommitsQuery } from '../schemas/commits.js';
import { defineRoute } from './route.js';

export const commits = {
  list: defineRoute({
    method: 'GET', path: '/projects/:id/repository/commits', summary: 'The commits of a ref (the default branch by default), newest first; by date and path', auth: 'public',
    scope: 'project', ability: 'download_code', input: ListCommitsQuery, list: CommitListItem,
    run: (ctx, { project }, input) => ctx.commits.list(project, input),
  }),
  create: defineRoute({
    method: 'POST', path: '/projects/:id/repository/commits', summary: 'Commit several file actions at once to a branch: all of them or none (developers)', auth: 'user',
    scope: 'project', ability: 'push_code', input: CreateCommitInput, response: CommitWithStats, bodyLimit: FILE_WRITE_BODY_LIMIT,
    run: (ctx, { project }, input) => ctx.commits.create(project, input),
  }),
  get: defineRoute({
    method: 'GET', path: '/projects/:id/repository/commits/:sha', summary: 'A commit by hash, branch or tag, with its stats, status and last pipeline', auth: 'public',
    scope: 'project', ability: 'download_code', input: GetCommitQuery, response: CommitDetail,
    run: (ctx, { project, sha }, input) => ctx.commits.get(project, sha, input),
  }),
};
