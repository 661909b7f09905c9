import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** isomorphic-git, loaded when a repository is first touched: importing forgekit stays fast. */
const git = () => import('isomorphic-git');

/**
 * Every project's bare repository, in hashed storage under the named storage roots: the path comes from the
 * project's ID, never its name, so that renaming or moving a project moves nothing on disk.
 */
export class RepositoryStore {
  constructor(private readonly storages: Record<string, string>) {}

  /** `@hashed/6b/86/6b86b2…4b.git`: the SHA-256 of the project's ID. */
  static relativePath(projectId: number): string {
    const hash = createHash('sha256').update(String(projectId)).digest('hex');
    return join('@hashed', hash.slice(0, 2), hash.slice(2, 4), `${hash}.git`);
  }

  path(storage: string, projectId: number): string {
    const root = this.storages[storage];
    if (root === undefined) throw new Error(`unknown repository storage: ${storage}`);
    return join(root, RepositoryStore.relativePath(projectId));
  }

  /** A new, empty bare repository. */
  async create(storage: string, projectId: number, defaultBranch: string): Promise<void> {
    const gitdir = this.path(storage, projectId);
    await (await git()).init({ fs, dir: gitdir, gitdir, bare: true, defaultBranch });
  }

  /** What the repository holds: its commits reachable from HEAD, and its size on disk in bytes. */
  async statistics(storage: string, projectId: number): Promise<{ commitCount: number; repositorySize: number }> {
    const gitdir = this.path(storage, projectId);
    const commits = await (await git()).log({ fs, dir: gitdir, gitdir, ref: 'HEAD' }).catch((error: { code?: string }) => {
      // An empty repository: HEAD names a branch that has no commit yet.
      if (error.code === 'NotFoundError') return [];
      throw error;
    });
    return { commitCount: commits.length, repositorySize: await sizeOf(gitdir) };
  }

  /** The repository's size on disk in bytes; 0 when it is not there. */
  async size(storage: string, projectId: number): Promise<number> {
    return sizeOf(this.path(storage, projectId)).catch((error: { code?: string }) => {
      if (error.code === 'ENOENT') return 0;
      throw error;
    });
  }

  /** The repository removed, if it is there. */
  async remove(storage: string, projectId: number): Promise<void> {
    await rm(this.path(storage, projectId), { recursive: true, force: true });
  }
}

/** The bytes of every file under `directory`. */
async function sizeOf(directory: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}
