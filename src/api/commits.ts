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
import { defineModule } from './module.js';
import * as commitsSchemas from '../schemas/commits.js';

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

export const commitsModule = defineModule({
  routes: { commits },
  descriptions: {
    commits: 'Commits of a project’s repository: its history, single commits, and batch commits of several file actions',
  },
  schemas: { ...commitsSchemas },
});
