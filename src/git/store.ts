import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { rm } from 'node:fs/promises';
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

  /** The repository removed, if it is there. */
  async remove(storage: string, projectId: number): Promise<void> {
    await rm(this.path(storage, projectId), { recursive: true, force: true });
  }
}
