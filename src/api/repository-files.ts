import { StreamedFile } from '../schemas/common.js';
import { FILE_WRITE_BODY_LIMIT } from '../schemas/commits.js';
import { DeleteFileInput, FileWriteResult, GetFileQuery, RepositoryFile, WriteFileInput } from '../schemas/repository-files.js';
import { projectItems, projectRoute } from './scoped.js';
import { RepositoryFilesService } from '../services/repository/files.js';
import { defineModule } from './module.js';
import * as repositoryFilesSchemas from '../schemas/repository-files.js';

/**
 * A name as a header value: as it is when printable ASCII (as the original sends it), percent-encoded otherwise (a header holds no other).
 */
const headerText = (text: string) => (/^[\x20-\x7e]*$/.test(text) ? text : encodeURIComponent(text));

const repositoryFile = projectItems({ path: '/repository/files', id: 'file_path', service: (ctx) => new RepositoryFilesService(ctx) });

export const repositoryFiles = {
  get: repositoryFile.get({
    summary: 'A file at a branch, tag or commit, its content in Base64 (anyone, for a public project)',
    ability: 'download_code',
    input: GetFileQuery,
    response: RepositoryFile,
    keepsJsonSuffix: true,
    // The metadata in headers too, as the original sends them: a HEAD request (go-gitlab's GetFileMetaData) reads only these.
    headers: (file) => ({
      'X-Gitlab-Blob-Id': file.blob_id,
      'X-Gitlab-Commit-Id': file.commit_id,
      'X-Gitlab-Content-Sha256': file.content_sha256,
      'X-Gitlab-Encoding': file.encoding,
      'X-Gitlab-File-Name': headerText(file.file_name),
      'X-Gitlab-File-Path': headerText(file.file_path),
      'X-Gitlab-Last-Commit-Id': file.last_commit_id,
      'X-Gitlab-Ref': headerText(file.ref),
      'X-Gitlab-Size': String(file.size),
      'X-Gitlab-Execute-Filemode': String(file.execute_filemode),
    }),
  }),
  raw: projectRoute({
    method: 'GET',
    path: '/repository/files/:file_path/raw',
    summary: 'A file’s bytes at a branch, tag or commit: text as text/plain',
    ability: 'download_code',
    input: GetFileQuery,
    response: StreamedFile,
    raw: true,
    run: (ctx, { project, file_path }, input) => new RepositoryFilesService(ctx).raw(project, file_path, input),
  }),
  // Created at its own path, as the original does.
  create: projectRoute({
    method: 'POST',
    path: '/repository/files/:file_path',
    summary: 'Create a file in a commit on a branch (developers; a protected branch asks more)',
    ability: 'push_code',
    input: WriteFileInput,
    response: FileWriteResult,
    keepsJsonSuffix: true,
    bodyLimit: FILE_WRITE_BODY_LIMIT,
    run: (ctx, { project, file_path }, input) => new RepositoryFilesService(ctx).create(project, file_path, input),
  }),
  update: repositoryFile.update({
    summary: 'Change a file in a commit on a branch; refused if it changed since `last_commit_id`',
    ability: 'push_code',
    input: WriteFileInput,
    response: FileWriteResult,
    keepsJsonSuffix: true,
    bodyLimit: FILE_WRITE_BODY_LIMIT,
  }),
  delete: repositoryFile.delete({
    summary: 'Delete a file in a commit on a branch',
    ability: 'push_code',
    input: DeleteFileInput,
    keepsJsonSuffix: true,
  }),
};

export const repositoryFilesModule = defineModule({
  routes: { repositoryFiles },
  descriptions: {
    repositoryFiles: 'Files of a project’s repository: read at any ref, and written in commits on a branch',
  },
  schemas: { ...repositoryFilesSchemas },
});
