import { Commit } from '../schemas/commits.js';
import { StreamedFile } from '../schemas/common.js';
import {
  ArchiveFile,
  ArchiveQuery,
  ArchiveWithFormatQuery,
  CherryPickInput,
  Compare,
  CompareQuery,
  Contributor,
  Diff,
  ListContributorsQuery,
  ListTreeQuery,
  RepositoryBlob,
  TreeObject,
} from '../schemas/repository.js';
import { projectRoute } from './scoped.js';
import { DiffService } from '../services/repository/diffs.js';
import { RepositoryService } from '../services/repository/repository.js';
import { defineModule } from './module.js';
import * as repositorySchemas from '../schemas/repository.js';

/** `attachment; filename="…"`, the name percent-encoded beside it (RFC 6266) when it is not plain printable ASCII. */
function attachment(fileName: string): string {
  if (/^[\x20-\x7e]*$/.test(fileName) && !/["\\]/.test(fileName)) return `attachment; filename="${fileName}"`;
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** An archive's headers as the original's front end sends them: it is downloaded under its file name. */
const archiveHeaders = (file: ArchiveFile) => ({
  'Content-Disposition': attachment(file.file_name),
  'Content-Transfer-Encoding': 'binary',
});

export const repository = {
  tree: projectRoute({
    method: 'GET',
    path: '/repository/tree',
    summary: 'The entries of a directory at a ref (`recursive`: everything below it): directories first, then files',
    ability: 'download_code',
    input: ListTreeQuery,
    list: TreeObject,
    run: (ctx, { project }, input) => new RepositoryService(ctx).tree(project, input),
  }),
  blob: projectRoute({
    method: 'GET',
    path: '/repository/blobs/:sha',
    summary: 'A blob by its object ID, its content in Base64',
    ability: 'download_code',
    response: RepositoryBlob,
    run: (ctx, { project, sha }) => new RepositoryService(ctx).blob(project, sha),
  }),
  rawBlob: projectRoute({
    method: 'GET',
    path: '/repository/blobs/:sha/raw',
    summary: 'A blob’s bytes: text as text/plain',
    ability: 'download_code',
    response: StreamedFile,
    raw: true,
    run: (ctx, { project, sha }) => new RepositoryService(ctx).rawBlob(project, sha),
  }),
  archive: projectRoute({
    method: 'GET',
    path: '/repository/archive',
    summary: 'The files of a ref in a tar.gz archive (`format`: tar, zip, tar.bz2; any other a tar.gz), under `<project>-<ref>-<sha>/`',
    ability: 'download_code',
    input: ArchiveQuery,
    response: ArchiveFile,
    raw: true,
    run: (ctx, { project }, { format, ...query }) => new RepositoryService(ctx).archive(project, format, query),
    headers: archiveHeaders,
  }),
  archiveAs: projectRoute({
    method: 'GET',
    path: '/repository/archive.:format',
    summary: 'The same archive, its format as the path’s suffix (`archive.zip`, `archive.tar.gz`)',
    ability: 'download_code',
    input: ArchiveWithFormatQuery,
    response: ArchiveFile,
    raw: true,
    run: (ctx, { project, format }, input) => new RepositoryService(ctx).archive(project, format, input),
    headers: archiveHeaders,
  }),
  compare: projectRoute({
    method: 'GET',
    path: '/repository/compare',
    summary: 'The commits and the file changes from one ref to another (from their merge base, unless `straight`)',
    ability: 'download_code',
    input: CompareQuery,
    response: Compare,
    run: (ctx, { project }, input) => new DiffService(ctx).compare(project, input),
  }),
  contributors: projectRoute({
    method: 'GET',
    path: '/repository/contributors',
    summary:
      'The authors of the default branch’s newest 2,000 commits that are not merges, by e-mail address, ' +
      'with their commit counts (by `commits` ascending by default)',
    ability: 'download_code',
    input: ListContributorsQuery,
    list: Contributor,
    run: (ctx, { project }, input) => new RepositoryService(ctx).contributors(project, input),
  }),
  commitDiff: projectRoute({
    method: 'GET',
    path: '/repository/commits/:sha/diff',
    summary: 'The files a commit changed against its first parent, with their diffs',
    ability: 'download_code',
    list: Diff,
    run: (ctx, { project, sha }, input) => new DiffService(ctx).commitDiff(project, sha, input),
  }),
  cherryPick: projectRoute({
    method: 'POST',
    path: '/repository/commits/:sha/cherry_pick',
    summary: 'Apply a commit’s changes to a branch in a new commit, by a three-way merge (developers)',
    ability: 'push_code',
    input: CherryPickInput,
    response: Commit,
    run: (ctx, { project, sha }, input) => new RepositoryService(ctx).cherryPick(project, sha, input),
  }),
};

export const repositoryModule = defineModule({
  routes: { repository },
  descriptions: {
    repository: 'A repository read whole: its trees, blobs, archives and comparisons; a commit’s diff, and cherry-picking it onto a branch',
  },
  schemas: { ...repositorySchemas },
});
