import {
  CommitDetail,
  CommitListItem,
  CommitWithStats,
  CreateCommitInput,
  FILE_WRITE_BODY_LIMIT,
  GetCommitQuery,
  ListCommitsQuery,
} from '../schemas/commits.js';
import { projectItems } from './scoped.js';
import { CommitsService } from '../services/repository/commits.js';

const commit = projectItems({ path: '/repository/commits', id: 'sha', service: (ctx) => new CommitsService(ctx) });

export const commits = {
  list: commit.list({
    summary: 'The commits of a ref (the default branch by default), newest first; by date and path',
    ability: 'download_code',
    input: ListCommitsQuery,
    list: CommitListItem,
  }),
  create: commit.create({
    summary: 'Commit several file actions at once to a branch: all of them or none (developers)',
    ability: 'push_code',
    input: CreateCommitInput,
    response: CommitWithStats,
    bodyLimit: FILE_WRITE_BODY_LIMIT,
  }),
  get: commit.get({
    summary: 'A commit by hash, branch or tag, with its stats, status and last pipeline',
    ability: 'download_code',
    input: GetCommitQuery,
    response: CommitDetail,
  }),
};
