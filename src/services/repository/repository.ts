import type { ProjectInScope } from '../../auth/abilities.js';
import { BadRequestError, NotFoundError, TooManyRequestsError } from '../../errors.js';
import { MAX_ARCHIVE_BYTES, type ArchiveFormat as FileFormat } from '../../git/archive.js';
import { ARCHIVE_RETRY_AFTER, ArchivesBusyError, ArchiveTooLargeError, makeArchive } from '../../git/archive-pool.js';
import type { BlobStream } from '../../git/blob-stream.js';
import { MergeConflictError } from '../../git/errors.js';
import { mergeTrees } from '../../git/merge.js';
import { withoutFinalNewlines } from '../../git/objects.js';
import type { TreeEntry } from '../../git/repository.js';
import type { Commit } from '../../schemas/commits.js';
import type { StreamedFile } from '../../schemas/common.js';
import type {
  ArchiveFile,
  ArchiveFormat,
  ArchiveWithFormatQuery,
  CherryPickInput,
  ListTreeQuery,
  RepositoryBlob,
  TreeObject,
} from '../../schemas/repository.js';
import { pageOf, type Page, type PageQuery } from '../pagination.js';
import { presentCommit } from '../present/commits.js';
import { projectWebUrl } from '../present/projects.js';
import { REFUSALS } from './refusals.js';
import { Service } from '../service.js';

const FULL_OID = /^[0-9a-f]{40}$/;

/** What a tree listing shows of an entry: its mode padded to six digits, as the original writes `040000`. */
const treeObject = (entry: TreeEntry, path: string): TreeObject => ({ id: entry.oid, name: entry.name, type: entry.type, path, mode: entry.mode.padStart(6, '0') });

/** A blob as a raw route answers it: text as `text/plain`, anything else as `application/octet-stream`. */
export const streamedFile = (blob: BlobStream): StreamedFile => ({
  content_type: blob.binary ? 'application/octet-stream' : 'text/plain; charset=utf-8',
  size: blob.size,
  data: blob.stream,
});

/** The file name an archive is downloaded as: its extension by format (`tgz` and `gz` are `tar.gz`), as the original names it. */
const FILE_FORMATS: Record<ArchiveFormat, FileFormat> = { 'tar.gz': 'tar.gz', tgz: 'tar.gz', gz: 'tar.gz', tar: 'tar', zip: 'zip' };

export class RepositoryService extends Service {
  private projectUrl(scoped: ProjectInScope): string {
    return projectWebUrl(scoped.project, scoped.namespace, this.ctx.baseUrl);
  }

  /**
   * POST /projects/:id/repository/commits/:sha/cherry_pick: the commit's changes (against its first parent, a
   * merge's too) applied to the branch by a three-way merge, in a new commit with the picked commit's author
   * and message (or `message`). A conflict, or nothing left to change, is the original's 400; `dry_run` (a later
   * version's check without a commit) is refused rather than taken for a pick.
   */
  async cherryPick(scoped: ProjectInScope, revision: string, input: CherryPickInput): Promise<Commit> {
    // A client asking only for a check must not get a commit.
    if (input.dry_run) throw BadRequestError.invalid('dry_run', 'is not supported');
    const repo = this.ctx.repositoryOf(scoped.project);
    const picked = await this.ctx.commits.commitOf(repo, revision);
    if ((await repo.branch(input.branch)) === null) throw new NotFoundError('Branch');
    const baseTree = picked.parents.length ? (await repo.readCommit(picked.parents[0])).tree : null;
    const made = await this.ctx.commits.commit(scoped, {
      branch: input.branch,
      // As `git cherry-pick -x` writes it (the original adds the same line).
      message: input.message || `${withoutFinalNewlines(picked.message)}\n\n(cherry picked from commit ${picked.oid})`,
      author: picked.author,
      tree: async (repository, head) => {
        // The branch went away since it was found.
        if (!head) throw new NotFoundError('Branch');
        const tree = await mergeTrees(repository, baseTree, head.tree, picked.tree).catch((error: unknown) => {
          throw error instanceof MergeConflictError ? new BadRequestError(REFUSALS.cherryPickFailed) : error;
        });
        if (tree === head.tree) throw new BadRequestError(REFUSALS.cherryPickFailed);
        return tree;
      },
    });
    return presentCommit(made, this.projectUrl(scoped));
  }

  /**
   * GET /projects/:id/repository/tree: the entries of a directory at a ref (everything below it with
   * `recursive`), directories first, then files, then submodules, each in git's order; 404 `Tree Not Found`
   * for a ref or a directory that is not there.
   */
  async tree(scoped: ProjectInScope, query: ListTreeQuery & PageQuery): Promise<Page<TreeObject>> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const revision = query.ref ?? (await repo.headBranch());
    const oid = revision ? await repo.resolveCommit(revision) : null;
    if (!oid) throw new NotFoundError('Tree');
    const parts = (query.path ?? '').split('/').filter(Boolean);
    const directory = await repo.entryAt((await repo.readCommit(oid)).tree, parts.join('/'));
    if (!directory || directory.type !== 'tree') throw new NotFoundError('Tree');
    const walked: TreeObject[] = [];
    const walk = async (tree: string, prefix: string): Promise<void> => {
      for (const entry of await repo.readTree(tree)) {
        walked.push(treeObject(entry, prefix + entry.name));
        if (query.recursive && entry.type === 'tree') await walk(entry.oid, `${prefix}${entry.name}/`);
      }
    };
    await walk(directory.oid, parts.length ? `${parts.join('/')}/` : '');
    const sorted = (['tree', 'blob', 'commit'] as const).flatMap((type) => walked.filter((entry) => entry.type === type));
    return pageOf(sorted, query);
  }

  /** A blob by its full object ID, or 404 `Blob Not Found` (another kind of object too). */
  private async findBlob(scoped: ProjectInScope, sha: string): Promise<{ oid: string; content: Uint8Array }> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const oid = sha.toLowerCase();
    if (!FULL_OID.test(oid) || (await repo.objectType(oid)) !== 'blob') throw new NotFoundError('Blob');
    return { oid, content: await repo.readBlob(oid) };
  }

  /** GET /projects/:id/repository/blobs/:sha: the content in Base64. */
  async blob(scoped: ProjectInScope, sha: string): Promise<RepositoryBlob> {
    const { oid, content } = await this.findBlob(scoped, sha);
    return { size: content.byteLength, encoding: 'base64', content: Buffer.from(content).toString('base64'), sha: oid };
  }

  /** GET .../blobs/:sha/raw: the bytes as they are, streamed, typed as the file raw endpoint types them. */
  async rawBlob(scoped: ProjectInScope, sha: string): Promise<StreamedFile> {
    const oid = sha.toLowerCase();
    const blob = FULL_OID.test(oid) ? await this.ctx.repositoryOf(scoped.project).openBlob(oid) : null;
    if (!blob) throw new NotFoundError('Blob');
    return streamedFile(blob);
  }

  /**
   * GET /projects/:id/repository/archive[.format]: the files of a ref (the default branch by default) in a
   * tar.gz, tar or zip archive whose top directory, and file name, is `<project path>-<ref>-<commit>`; 404
   * `File Not Found` for a ref that names no commit, as the original answers any failure. The archive is made
   * by a worker thread as it is read (src/git/archive-pool.ts): past the workers and the requests that may wait
   * for one, 429 with Retry-After; past MAX_ARCHIVE_BYTES of content, 400 before a byte is made.
   */
  async archive(scoped: ProjectInScope, format: ArchiveFormat | undefined, query: ArchiveWithFormatQuery): Promise<ArchiveFile> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const ref = query.sha ?? (await repo.headBranch());
    const oid = ref ? await repo.resolveCommit(ref) : null;
    if (!ref || !oid) throw new NotFoundError('File');
    const commit = await repo.readCommit(oid);
    const fileFormat = FILE_FORMATS[format ?? 'tar.gz'];
    const prefix = `${scoped.project.path}-${ref.replace(/\//g, '-')}-${oid}`;
    const data = await makeArchive(repo.gitdir, { commit: oid, tree: commit.tree, time: commit.committer.timestamp, prefix, format: fileFormat }).catch((error: unknown) => {
      if (error instanceof ArchiveTooLargeError) {
        throw new BadRequestError(`400 (Bad request) archive too large: the files at ${ref} hold more than ${MAX_ARCHIVE_BYTES / 1024 / 1024} MB; clone the repository instead`);
      }
      if (error instanceof ArchivesBusyError) throw new TooManyRequestsError(ARCHIVE_RETRY_AFTER);
      throw error;
    });
    return { content_type: fileFormat === 'zip' ? 'application/zip' : 'application/octet-stream', file_name: `${prefix}.${fileFormat}`, data };
  }
}
