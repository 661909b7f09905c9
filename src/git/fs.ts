import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** isomorphic-git, loaded when a repository is first touched: importing forgekit stays fast. */
export const isoGit = () => import('isomorphic-git');

/**
 * A file written beside its place, under the name native git gives its own temporary objects (`tmp_obj_*`):
 * `git fsck` passes over such a file a crash leaves, and `git gc` removes it once old.
 */
export const temporaryPath = (path: string) => join(dirname(path), `tmp_obj_${randomBytes(6).toString('hex')}`);

/**
 * The file system isomorphic-git is given for repository writes: Node's, except that a file is written
 * beside its place and renamed into it. isomorphic-git writes a loose object straight to its final path and
 * never writes one that exists, so a write cut short (a crash, two writers of one object) would otherwise
 * leave a truncated object that no later write repairs.
 */
export const gitFs = {
  ...fs,
  promises: {
    ...fs.promises,
    async writeFile(path: string, data: string | Uint8Array, options?: fs.WriteFileOptions): Promise<void> {
      const temporary = temporaryPath(path);
      try {
        await writeFile(temporary, data, options);
        await rename(temporary, path);
      } catch (error) {
        await unlink(temporary).catch(() => {});
        throw error;
      }
    },
  },
};
