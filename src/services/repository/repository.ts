import type { ProjectInScope } from '../../auth/abilities.js';
import { BadRequestError, NotFoundError, TooManyRequestsError } from '../../errors.js';
import { MAX_ARCHIVE_BYTES, type ArchiveFormat as FileFormat } from '../../git/archive.js';
import { ARCHIVE_RETRY_AFTER, ArchivesBusyError, ArchiveTooLargeError, makeArchive } from '../../git/archive-pool.js';
import type { BlobStream } from '../../git/blob-stream.js';
import { MergeConflictError } from '../../git/errors.js';
import { authorsOf, type HistoryAuthor } from '../../git/history.js';
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
  Contributor,
  ListContributorsQuery,
  ListTreeQuery,
  RepositoryBlob,
  TreeObject,
} from '../../schemas/repository.js';
import { pageOf, type Page, type PageQuery } from '../pagination.js';
import { presentCommit } from '../present/commits.js';
import { projectWebUrl } from '../present/projects.js';
import { REFUSALS } from './refusals.js';
import { Service } from '../service.js';
import { CommitsService } from './commits.js';

const FULL_OID = /^[0-9a-f]{40}$/;

/** What a tree listing shows of an entry: its mode padded to six digits, as the original writes `040000`. */
const treeObject = (entry: TreeEntry, path: string): TreeObject => ({
  id: entry.oid,
  name: entry.name,
  type: entry.type,
  path,
  mode: entry.mode.padStart(6, '0'),
});

/** A blob as a raw route answers it: text as `text/plain`, anything else as `application/octet-stream`. */
export const streamedFile = (blob: BlobStream): StreamedFile => ({
  content_type: blob.binary ? 'application/octet-stream' : 'text/plain; charset=utf-8',
  size: blob.size,
  data: blob.stream,
});

/**
 * The archive a format names, and the extension it is downloaded with, as the original names them: `tgz` and `gz`
 * are `tar.gz`; `tbz`, `tbz2`, `tb2` and `bz2` are `tar.bz2`; any other name a `tar.gz`.
 */
const FILE_FORMATS: Record<string, FileFormat> = {
  'tar.gz': 'tar.gz',
  tgz: 'tar.gz',
  gz: 'tar.gz',
  'tar.bz2': 'tar.bz2',
  tbz: 'tar.bz2',
  tbz2: 'tar.bz2',
  tb2: 'tar.bz2',
  bz2: 'tar.bz2',
  tar: 'tar',
  zip: 'zip',
};
const fileFormatOf = (format: ArchiveFormat | undefined): FileFormat =>
  format !== undefined && Object.hasOwn(FILE_FORMATS, format) ? FILE_FORMATS[format] : 'tar.gz';

/** The commits the original counts contributors in: the newest 2,000 of the default branch that are not merges. */
export const CONTRIBUTOR_COMMITS = 2000;

/** Two names or e-mail addresses as the original compares them: ignoring the case of ASCII letters. */
const caseInsensitive = (a: string, b: string) => {
  const [x, y] = [a.replace(/[A-Z]/g, (c) => c.toLowerCase()), b.replace(/[A-Z]/g, (c) => c.toLowerCase())];
  return x < y ? -1 : x > y ? 1 : 0;
};

const CONTRIBUTOR_ORDERS: Record<NonNullable<ListContributorsQuery['order_by']>, (a: HistoryAuthor, b: HistoryAuthor) => number> = {
  commits: (a, b) => a.commits - b.commits,
  name: (a, b) => caseInsensitive(a.name, b.name),
  email: (a, b) => caseInsensitive(a.email, b.email),
};

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
    const picked = await new CommitsService(this.ctx).commitOf(repo, revision);
    if ((await repo.branch(input.branch)) === null) throw new NotFoundError('Branch');
    const baseTree = picked.parents.length ? (await repo.readCommit(picked.parents[0])).tree : null;
    const made = await new CommitsService(this.ctx).commit(scoped, {
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
    if (directory?.type !== 'tree') throw new NotFoundError('Tree');
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
   * GET /projects/:id/repository/contributors: the authors of the default branch's newest CONTRIBUTOR_COMMITS
   * commits that are not merges, by e-mail address, each with the name of its newest commit and its count
   * (`additions` and `deletions` 0, as the original answers them), ordered by `order_by` (`commits` by default)
   * and `sort` (`asc` by default); authors that compare equal keep the order their newest commits have. An empty
   * repository has none. The authors are kept per head (src/git/history.ts): a page reads no commit again.
   */
  async contributors(scoped: ProjectInScope, query: ListContributorsQuery & PageQuery): Promise<Page<Contributor>> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const branch = await repo.headBranch();
    const head = branch ? await repo.branch(branch) : null;
    if (!head) return pageOf([], query);
    const order = CONTRIBUTOR_ORDERS[query.order_by ?? 'commits'];
    const direction = query.sort === 'desc' ? -1 : 1;
    // Array.prototype.sort is stable: equal authors stay in the order of their newest commits.
    const authors = [...(await authorsOf(repo, head, CONTRIBUTOR_COMMITS))].sort((a, b) => direction * order(a, b));
    return pageOf(
      authors.map((author) => ({ name: author.name, email: author.email, commits: author.commits, additions: 0, deletions: 0 })),
      query,
    );
  }

  /**
   * GET /projects/:id/repository/archive[.format]: the files of a ref (the default branch by default) in a
   * tar.gz, tar.bz2, tar or zip archive (a format it does not know: tar.gz) whose top directory, and file name, is `<project
   * path>-<ref>-<commit>`; 404 `File Not Found` for a ref that names no commit, as the original answers any failure. The archive is made
   * by a worker thread as it is read (src/git/archive-pool.ts): past the workers and the requests that may wait
   * for one, 429 with Retry-After; past MAX_ARCHIVE_BYTES of content, 400 before a byte is made.
   */
  async archive(scoped: ProjectInScope, format: ArchiveFormat | undefined, query: ArchiveWithFormatQuery): Promise<ArchiveFile> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const ref = query.sha ?? (await repo.headBranch());
    const oid = ref ? await repo.resolveCommit(ref) : null;
    if (!ref || !oid) throw new NotFoundError('File');
    const commit = await repo.readCommit(oid);
    const fileFormat = fileFormatOf(format);
    const prefix = `${scoped.project.path}-${ref.replace(/\//g, '-')}-${oid}`;
    const data = await makeArchive(repo.gitdir, {
      commit: oid,
      tree: commit.tree,
      time: commit.committer.timestamp,
      prefix,
      format: fileFormat,
    }).catch((error: unknown) => {
      if (error instanceof ArchiveTooLargeError) {
        throw new BadRequestError(
          `400 (Bad request) archive too large: the files at ${ref} hold more than ${MAX_ARCHIVE_BYTES / 1024 / 1024} MB; ` +
            `clone the repository instead`,
        );
      }
      if (error instanceof ArchivesBusyError) throw new TooManyRequestsError(ARCHIVE_RETRY_AFTER);
      throw error;
    });
    return {
      content_type: fileFormat === 'zip' ? 'application/zip' : 'application/octet-stream',
      file_name: `${prefix}.${fileFormat}`,
      data,
    };
  }
}
