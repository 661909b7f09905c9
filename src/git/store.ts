import { createHash, randomBytes } from 'node:crypto';
import { copyFile, link, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { RepositoryMissingError } from './errors.js';
import { gitFs, isoGit as git } from './fs.js';
import { housekeep, type HousekeepingOptions, type HousekeepingResult } from './housekeeping.js';
import { historyOf } from './history.js';
import { LruMap } from './lru.js';
import { fetchMirror } from './fetch.js';
import { type PackedCommits, PackIndexError } from './index-pack.js';
import { BlockedRemoteError, createRemoteHttp, RemoteTooLargeError } from './remote-http.js';
import { PackCache } from './object-reader.js';
import { Repository } from './repository.js';

/** HEAD's branch in a new repository when none is asked for. */
export const DEFAULT_BRANCH = 'master';

/** Bounds of one import: the remote must send the whole repository within them. */
export interface ImportOptions {
  /** Gives up after this long (default: 10 minutes). */
  timeoutMs?: number;
  /** The most bytes the remote may send (default: 256 MiB; the pack's indexer holds it in memory). */
  maxBytes?: number;
  /** HEAD's branch should the remote repository be empty (default: DEFAULT_BRANCH). */
  defaultBranch?: string;
  /** Stops the import (the hosting instance closing): it rejects with the signal's reason and leaves nothing. */
  signal?: AbortSignal;
  /** Loopback, private, link-local and other local addresses may be reached (default: refused, as the original does). */
  allowLocalRequests?: boolean;
}

/** How many repositories keep what they read (each up to its own bound of commits and trees). */
const OPEN_REPOSITORIES = 64;
/** What all repositories keep of their packs, in bytes (git's core.deltaBaseCacheLimit alone is 96 MiB per process). */
const PACK_CACHE_BYTES = 32 * 1024 * 1024;

const IMPORT_TIMEOUT_MS = 10 * 60 * 1000;
const IMPORT_MAX_BYTES = 256 * 1024 * 1024;
const MAX_IMPORT_URL_LENGTH = 2048;

/**
 * An import that failed, saying why in words fit for the project's `import_error`: never the URL, whose
 * credentials would go with it.
 */
export class RepositoryImportError extends Error {
  override readonly name = 'RepositoryImportError';
}

/**
 * Loads isomorphic-git (annotated tags written, short IDs expanded) as a service opens: compiling it holds the
 * event loop for about 90 ms, which the first such call while serving would otherwise wait for.
 */
export async function loadGit(): Promise<void> {
  await git();
}

/**
 * Every project's bare repository, in hashed storage under the named storage roots: the path comes from the
 * project's ID, never its name, so that renaming or moving a project moves nothing on disk.
 */
export class RepositoryStore {
  /** What is read of packs (windows of their bytes, delta bases), shared by every repository. */
  private readonly packCache = new PackCache(PACK_CACHE_BYTES);
  /** The repositories read lately, each with the commits and trees it keeps and its packs open. */
  private readonly opened = new LruMap<string, Repository>(OPEN_REPOSITORIES, (repository) => repository.release());

  constructor(private readonly storages: Record<string, string>) {}

  /** A project's repository, to read and write. */
  open(storage: string, projectId: number): Repository {
    const gitdir = this.path(storage, projectId);
    let repository = this.opened.get(gitdir);
    if (!repository) this.opened.set(gitdir, (repository = new Repository(gitdir, this.packCache)));
    return repository;
  }

  /** Forgets every repository read so far (an instance reset or closed): their packs are let go. */
  forgetAll(): void {
    for (const repository of this.opened.clear()) repository.release();
  }

  /** Forgets what was read of a repository that is replaced or removed: its packs are closed, its objects read anew. */
  private forget(gitdir: string): void {
    this.opened.delete(gitdir)?.release();
  }

  /** `@hashed/6b/86/6b86b2…4b.git`: the SHA-256 of the project's ID. */
  static relativePath(projectId: number): string {
    const hash = createHash('sha256').update(String(projectId)).digest('hex');
    return join('@hashed', hash.slice(0, 2), hash.slice(2, 4), `${hash}.git`);
  }

  path(storage: string, projectId: number): string {
    const root = this.storages[storage];
    // A storage the database names and this instance was not given: its repositories are missing here.
    if (root === undefined) throw new RepositoryMissingError(`of project ${projectId} (this instance has no storage ${storage})`);
    return join(root, RepositoryStore.relativePath(projectId));
  }

  /** A new, empty bare repository. */
  async create(storage: string, projectId: number, defaultBranch: string): Promise<void> {
    const gitdir = this.path(storage, projectId);
    await initBare(gitdir, defaultBranch);
  }

  /**
   * What the repository holds: its commits reachable from HEAD (a walk kept for that HEAD), and its size on disk
   * in bytes; nothing for a repository missing from its storage (reported at start), so that a list of projects
   * still answers.
   */
  async statistics(storage: string, projectId: number): Promise<{ commitCount: number; repositorySize: number }> {
    try {
      const repository = this.open(storage, projectId);
      const head = await repository.resolveCommit('HEAD');
      return { commitCount: head ? (await historyOf(repository, head)).length : 0, repositorySize: await sizeOf(repository.gitdir) };
    } catch (error) {
      if (error instanceof RepositoryMissingError) return { commitCount: 0, repositorySize: 0 };
      throw error;
    }
  }

  /** The repository's size on disk in bytes; 0 when it is not there. */
  async size(storage: string, projectId: number): Promise<number> {
    if (this.storages[storage] === undefined) return 0;
    return sizeOf(this.path(storage, projectId)).catch((error: { code?: string }) => {
      if (error.code === 'ENOENT') return 0;
      throw error;
    });
  }

  /**
   * The projects among `projects` whose repository is not in its storage (or whose storage this instance
   * lacks), each with where it was looked for: what a start reports.
   */
  async missing<P extends { id: number; storage: string }>(projects: P[]): Promise<(P & { path: string })[]> {
    const missing: (P & { path: string })[] = [];
    // A few at a time: thousands of projects must not open thousands of files at once.
    for (let start = 0; start < projects.length; start += 64) {
      const batch = projects.slice(start, start + 64);
      const present = await Promise.all(
        batch.map((project) => {
          if (this.storages[project.storage] === undefined) return false;
          return stat(join(this.path(project.storage, project.id), 'HEAD')).then(
            () => true,
            () => false,
          );
        }),
      );
      batch.forEach((project, index) => {
        if (!present[index])
          missing.push({
            ...project,
            path: this.storages[project.storage] === undefined ? `(no storage ${project.storage})` : this.path(project.storage, project.id),
          });
      });
    }
    return missing;
  }

  /**
   * The repository of `toProjectId` becomes a copy of `fromProjectId`'s, every reference and object (a fork).
   * It is built beside its place and renamed into it, replacing whatever an interrupted attempt left there.
   */
  async copy(
    fromStorage: string,
    fromProjectId: number,
    toStorage: string,
    toProjectId: number,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const source = this.path(fromStorage, fromProjectId);
    await this.replace(
      this.path(toStorage, toProjectId),
      async (directory) => {
        await copyRepository(source, directory, options.signal);
        await indexCommits(directory);
      },
      options.signal,
    );
  }

  /**
   * The repository of `projectId` becomes a bare mirror of the one at `url` (http or https; credentials in
   * it are sent as basic authentication and kept nowhere): every branch and tag, and HEAD as the remote has
   * it. Fetched beside its place and renamed into it. The remote's host is resolved and checked again here,
   * and only the addresses checked are connected to (src/git/remote-http.ts): local ones are refused unless
   * `allowLocalRequests`. Failures reject with a RepositoryImportError.
   */
  async importFrom(storage: string, projectId: number, url: string, options: ImportOptions = {}): Promise<void> {
    const { remote, authorization } = remoteOf(url);
    const timeout = AbortSignal.timeout(options.timeoutMs ?? IMPORT_TIMEOUT_MS);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const maxBytes = options.maxBytes ?? IMPORT_MAX_BYTES;
    await this.replace(
      this.path(storage, projectId),
      async (gitdir) => {
        await initBare(gitdir, options.defaultBranch ?? DEFAULT_BRANCH);
        const http = createRemoteHttp({ signal, maxBytes, allowLocalRequests: options.allowLocalRequests === true });
        try {
          // The pack stored as received, indexed in a worker; branches, tags and HEAD as the remote has them.
          const commits = await fetchMirror(gitdir, http, remote, authorization ? { authorization } : {}, signal);
          const cut = http.failure();
          if (cut) throw cut.error;
          await indexCommits(gitdir, commits);
        } catch (error) {
          if (options.signal?.aborted) throw options.signal.reason;
          // A body cut short is the cause of whatever the fetch made of it.
          throw importFailure(http.failure()?.error ?? error, timeout.aborted, options.timeoutMs ?? IMPORT_TIMEOUT_MS);
        } finally {
          http.close();
        }
      },
      options.signal,
    );
  }

  /**
   * `target` replaced by a directory that `fill` writes: made beside it (on the same file system) under a
   * name of its own, then renamed into place once whole, unless `signal` was aborted meanwhile. What earlier
   * interrupted attempts left beside it is removed first.
   */
  private async replace(target: string, fill: (directory: string) => Promise<void>, signal?: AbortSignal): Promise<void> {
    const parent = dirname(target);
    const name = basename(target);
    await mkdir(parent, { recursive: true });
    for (const entry of await readdir(parent)) {
      if (entry.startsWith(`${name}.tmp-`)) await rm(join(parent, entry), { recursive: true, force: true });
    }
    const temporary = join(parent, `${name}.tmp-new-${randomBytes(6).toString('hex')}`);
    const replaced = join(parent, `${name}.tmp-old-${randomBytes(6).toString('hex')}`);
    try {
      await fill(temporary);
      signal?.throwIfAborted();
      // A directory is not renamed over another: the old one moves aside first.
      const hadOne = await rename(target, replaced).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return false;
          throw error;
        },
      );
      await rename(temporary, target);
      this.forget(target);
      if (hadOne) await rm(replaced, { recursive: true, force: true });
    } finally {
      await rm(temporary, { recursive: true, force: true });
    }
  }

  /**
   * Packs the repository's objects, prunes what no reference reaches past the grace period and writes its
   * commit-graph (src/git/housekeeping.ts); what this store kept of it is read anew, from the new pack.
   */
  async housekeep(storage: string, projectId: number, options: HousekeepingOptions = {}): Promise<HousekeepingResult> {
    const gitdir = this.path(storage, projectId);
    const repository = new Repository(gitdir);
    try {
      return await housekeep(repository, options);
    } finally {
      repository.release();
      this.forget(gitdir);
    }
  }

  /** The repository removed, if it is there. */
  async remove(storage: string, projectId: number): Promise<void> {
    const gitdir = this.path(storage, projectId);
    this.forget(gitdir);
    await rm(gitdir, { recursive: true, force: true });
  }
}

/** A new repository's commit-graph, so that the first walks of its history read no commit object. */
async function indexCommits(gitdir: string, known?: PackedCommits): Promise<void> {
  const repository = new Repository(gitdir);
  try {
    await repository.writeCommitGraph(known);
  } finally {
    repository.release();
  }
}

/**
 * An empty bare repository as `git init --bare` makes it, written directly (isomorphic-git's init probes the file
 * system it is given, tens of milliseconds of the event loop): what a new project and an import start from.
 */
async function initBare(gitdir: string, defaultBranch: string): Promise<void> {
  for (const directory of ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags'])
    await mkdir(join(gitdir, directory), { recursive: true });
  await gitFs.promises.writeFile(join(gitdir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n');
  await gitFs.promises.writeFile(join(gitdir, 'HEAD'), `ref: refs/heads/${defaultBranch}\n`);
}

/** The bytes of every file under `directory`. */
async function sizeOf(directory: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/**
 * Copies a bare repository: its directories, then its references, then the rest. A write to the source
 * meanwhile writes objects before it moves a reference, so every reference copied finds its objects.
 *
 * Objects (loose ones and packs) are hard links, as `git clone --local` makes them: git and forgekit never change
 * an object's file (they write a new file and rename it into place, and delete files whole), so the two
 * repositories can share them. A fork then costs a link per file rather than the repository's size in disk writes,
 * which would take libuv's few threads from every other call's file access for as long as the copy lasts. Where
 * no link can be made (storages on other file systems), the files are copied.
 */
async function copyRepository(source: string, target: string, signal?: AbortSignal): Promise<void> {
  const entries = await readdir(source, { withFileTypes: true, recursive: true });
  const files: string[] = [];
  await mkdir(target, { recursive: true });
  for (const entry of entries) {
    const path = relative(source, join(entry.parentPath, entry.name));
    if (entry.isDirectory()) await mkdir(join(target, path), { recursive: true });
    // A lock is a write under way in the source; the copy would hold it for ever.
    else if (entry.isFile() && !entry.name.endsWith('.lock')) files.push(path);
  }
  const isReference = (path: string) => path === 'HEAD' || path === 'packed-refs' || path.startsWith('refs/');
  let linking = true;
  for (const path of [...files.filter(isReference), ...files.filter((path) => !isReference(path))]) {
    signal?.throwIfAborted();
    if (linking && isObjectFile(path)) {
      try {
        await link(join(source, path), join(target, path));
        continue;
      } catch (error) {
        if (!LINK_REFUSED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
        linking = false;
      }
    }
    await copyFile(join(source, path), join(target, path));
  }
}

/** Why a file system makes no hard link: another device, none supported, too many links to one file. */
export const LINK_REFUSED = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK']);

/**
 * A loose object (`objects/ab/cdef…`) or a pack's file (`objects/pack/…`), by its path in a repository (or in a
 * directory of repositories): never changed once written.
 */
export const isObjectFile = (path: string) =>
  /(?:^|[\\/])objects[\\/](?:[0-9a-f]{2}[\\/][0-9a-f]{38}|pack[\\/]pack-[0-9a-f]+\.(?:pack|idx|rev|bitmap|keep|mtimes))$/.test(path);

/** The remote's URL without credentials, and the credentials as a basic authorization header. */
function remoteOf(url: string): { remote: string; authorization?: string } {
  if (url.length > MAX_IMPORT_URL_LENGTH) throw new RepositoryImportError('The import URL is too long');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RepositoryImportError('The import URL is not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new RepositoryImportError('Only http and https URLs can be imported');
  const { username, password } = parsed;
  parsed.username = '';
  parsed.password = '';
  parsed.hash = '';
  // The fetch appends the service's path (`/info/refs`, ...) to the URL as written.
  const remote = parsed.toString().replace(/\/+$/, '');
  if (!username && !password) return { remote };
  let credentials: string;
  try {
    credentials = `${decodeURIComponent(username)}:${decodeURIComponent(password)}`;
  } catch {
    throw new RepositoryImportError('The import URL is not a valid URL');
  }
  return { remote, authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/**
 * What any failure of the remote itself says in import_error: one message for a refused or reset connection, an
 * HTTP error, an answer that is not git's, so that an import cannot tell a closed port from an open one or a
 * live service (the original's import errors were a port scanner's oracle too).
 */
export const REMOTE_FAILED = 'The repository could not be imported: the remote could not be reached or is not a git repository';

/** A failed fetch as import_error says it: never the URL, the network's error codes or the remote's status. */
function importFailure(error: unknown, timedOut: boolean, timeoutMs: number): RepositoryImportError {
  if (error instanceof RepositoryImportError) return error;
  if (error instanceof BlockedRemoteError) {
    return new RepositoryImportError(
      `${error.redirected ? 'The remote redirected to a blocked URL' : 'The import URL is blocked'}: ${error.reason}`,
    );
  }
  if (error instanceof RemoteTooLargeError)
    return new RepositoryImportError(`The remote repository is larger than ${error.maxBytes} bytes`);
  if (timedOut) return new RepositoryImportError(`The import timed out after ${timeoutMs / 1000} seconds`);
  if (error instanceof PackIndexError)
    return new RepositoryImportError(`The repository could not be imported: the remote sent a pack that cannot be used (${error.message})`);
  return new RepositoryImportError(REMOTE_FAILED);
}
