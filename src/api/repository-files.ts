import { StreamedFile } from '../schemas/common.js';
import { FILE_WRITE_BODY_LIMIT } from '../schemas/commits.js';
import { DeleteFileInput, FileWriteResult, GetFileQuery, RepositoryFile, WriteFileInput } from '../schemas/repository-files.js';
import { defineRoute } from './route.js';

/** A name as a header value: as it is when printable ASCII (as the original sends it), percent-encoded otherwise (a header holds no other). */
const headerText = (text: string) => (/^[\x20-\x7e]*$/.test(text) ? text : encodeURIComponent(text));

export const repositoryFiles = {
  get: defineRoute({
    method: 'GET', path: '/projects/:id/repository/files/:file_path', summary: 'A file at a branch, tag or commit, its content in Base64 (anyone, for a public project)', auth: 'public',
    scope: 'project', ability: 'download_code', input: GetFileQuery, response: RepositoryFile, keepsJsonSuffix: true,
    run: (ctx, { project, file_path }, input) => ctx.repositoryFiles.get(project, file_path, input),
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
  raw: defineRoute({
    method: 'GET', path: '/projects/:id/repository/files/:file_path/raw', summary: 'A file’s bytes at a branch, tag or commit: text as text/plain', auth: 'public',
    scope: 'project', ability: 'download_code', input: GetFileQuery, response: StreamedFile, raw: true,
    run: (ctx, { project, file_path }, input) => ctx.repositoryFiles.raw(project, file_path, input),
  }),
  create: defineRoute({
    method: 'POST', path: '/projects/:id/repository/files/:file_path', summary: 'Create a file in a commit on a branch (developers; a protected branch asks more)', auth: 'user',
    scope: 'project', ability: 'push_code', input: WriteFileInput, response: FileWriteResult, keepsJsonSuffix: true, bodyLimit: FILE_WRITE_BODY_LIMIT,
    run: (ctx, { project, file_path }, input) => ctx.repositoryFiles.create(project, file_path, input),
  }),
  update: defineRoute({
    method: 'PUT', path: '/projects/:id/repository/files/:file_path', summary: 'Change a file in a commit on a branch; refused if it changed since `last_commit_id`', auth: 'user',
    scope: 'project', ability: 'push_code', input: WriteFileInput, response: FileWriteResult, keepsJsonSuffix: true, bodyLimit: FILE_WRITE_BODY_LIMIT,
    run: (ctx, { project, file_path }, input) => ctx.repositoryFiles.update(project, file_path, input),
  }),
  delete: defineRoute({
    method: 'DELETE', path: '/projects/:id/repository/files/:file_path', summary: 'Delete a file in a commit on a branch', auth: 'user',
    scope: 'project', ability: 'push_code', input: DeleteFileInput, keepsJsonSuffix: true,
    run: (ctx, { project, file_path }, input) => ctx.repositoryFiles.delete(project, file_path, input),
  }),
};
