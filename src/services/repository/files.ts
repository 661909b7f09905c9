import { createHash } from 'node:crypto';
import type { ProjectInScope } from '../../auth/abilities.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import { applyActions, filePathProblem, type FileAction } from '../../git/edit.js';
import { lastCommitChanging } from '../../git/history.js';
import type { StreamedFile } from '../../schemas/common.js';
import type { DeleteFileInput, FileWriteResult, GetFileQuery, RepositoryFile, WriteFileInput } from '../../schemas/repository-files.js';
import { decodeContent } from './commits.js';
import { streamedFile } from './repository.js';
import { REFUSALS } from './refusals.js';
import { Service } from '../service.js';
import { CommitsService } from './commits.js';

/** 400 for a path no file can have, in the original's words: `..` climbs out of the repository. */
function checkFilePath(path: string): void {
  const problem = filePathProblem(path);
  if (problem) throw new BadRequestError(problem === 'traversal' ? REFUSALS.pathTraversal : REFUSALS.invalidPath);
}

/** A file path as the original reads one: its leading slashes dropped. */
export const filePathOf = (path: string) => path.replace(/^\/+/, '');

export class RepositoryFilesService extends Service {
  /** The file at `path` in the commit `ref` names: its blob, the commit and the file's last commit; 404 for either missing. */
  private async find(scoped: ProjectInScope, path: string, ref: string) {
    checkFilePath(path);
    const repo = this.ctx.repositoryOf(scoped.project);
    const commit = await new CommitsService(this.ctx).commitOf(repo, ref);
    const entry = await repo.entryAt(commit.tree, path);
    if (entry?.type !== 'blob') throw new NotFoundError('File');
    return { repo, commit, entry };
  }

  /** GET /projects/:id/repository/files/:file_path: the file at a ref, its content in Base64. */
  async get(scoped: ProjectInScope, givenPath: string, query: GetFileQuery): Promise<RepositoryFile> {
    const path = filePathOf(givenPath);
    const { repo, commit, entry } = await this.find(scoped, path, query.ref);
    const [content, lastCommitId] = await Promise.all([repo.readBlob(entry.oid), lastCommitChanging(repo, commit.oid, path)]);
    return {
      file_name: entry.name,
      file_path: path,
      size: content.byteLength,
      encoding: 'base64',
      content: Buffer.from(content).toString('base64'),
      content_sha256: createHash('sha256').update(content).digest('hex'),
      ref: query.ref,
      blob_id: entry.oid,
      commit_id: commit.oid,
      last_commit_id: lastCommitId ?? commit.oid,
      execute_filemode: entry.mode === '100755',
    };
  }

  /** GET .../files/:file_path/raw: the bytes as they are, streamed; text as `text/plain`, anything else as `application/octet-stream`. */
  async raw(scoped: ProjectInScope, givenPath: string, query: GetFileQuery): Promise<StreamedFile> {
    const path = filePathOf(givenPath);
    const { repo, entry } = await this.find(scoped, path, query.ref);
    const blob = await repo.openBlob(entry.oid);
    // The tree names a blob its repository lacks.
    if (!blob) throw new NotFoundError('File');
    return streamedFile(blob);
  }

  /** POST .../files/:file_path: a new file, in a commit on `branch`. */
  async create(scoped: ProjectInScope, givenPath: string, input: WriteFileInput): Promise<FileWriteResult> {
    const path = filePathOf(givenPath);
    const content = decodeContent(input.content, input.encoding, 'content');
    const actions: FileAction[] = [{ action: 'create', path, content }];
    if (input.execute_filemode) actions.push({ action: 'chmod', path, executable: true });
    return this.write(scoped, path, input, actions);
  }

  /** PUT .../files/:file_path: new content for a file, unless it changed since `last_commit_id` or the content is the same. */
  async update(scoped: ProjectInScope, givenPath: string, input: WriteFileInput): Promise<FileWriteResult> {
    const path = filePathOf(givenPath);
    const content = decodeContent(input.content, input.encoding, 'content');
    const actions: FileAction[] = [{ action: 'update', path, content }];
    if (input.execute_filemode !== undefined) actions.push({ action: 'chmod', path, executable: input.execute_filemode });
    return this.write(scoped, path, input, actions);
  }

  /** DELETE .../files/:file_path */
  async delete(scoped: ProjectInScope, givenPath: string, input: DeleteFileInput): Promise<void> {
    const path = filePathOf(givenPath);
    await this.write(scoped, path, input, [{ action: 'delete', path }]);
  }

  private async write(
    scoped: ProjectInScope,
    path: string,
    input: WriteFileInput | DeleteFileInput,
    actions: FileAction[],
  ): Promise<FileWriteResult> {
    checkFilePath(path);
    const commits = new CommitsService(this.ctx);
    await commits.commit(scoped, {
      branch: input.branch,
      startBranch: input.start_branch,
      message: input.commit_message,
      author: { name: input.author_name, email: input.author_email },
      tree: async (repo, base) => {
        if (input.last_commit_id !== undefined) await commits.checkLastCommit(repo, base, path, input.last_commit_id, REFUSALS.fileChanged);
        return applyActions(repo, base?.tree ?? null, actions);
      },
    });
    return { file_name: path.slice(path.lastIndexOf('/') + 1), file_path: path, branch: input.branch };
  }
}
