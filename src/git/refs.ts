import { readdirSync, readFileSync, statSync, type BigIntStats, type Dirent } from 'node:fs';
import { open, readFile, rename, rmdir, stat, unlink, mkdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { ReferenceChangedError, ReferenceConflictError, ReferenceLockedError } from './errors.js';
import { LruMap } from './lru.js';

/**
 * References as native git keeps them: a loose file `refs/heads/<name>` holding an object ID, or a line of
 * `packed-refs`. isomorphic-git writes a reference without a lock and without looking at its old value;
 * forgekit writes them here instead: a compare-and-swap behind git's own lock file (`<ref>.lock`, created
 * exclusively, renamed into place), which native git respects too. Callers also hold the repository's lock
 * (services/repository/writes.ts), which orders forgekit's own writers across processes: a lock file found
 * meanwhile can only be left by a writer that crashed, and is taken over at once.
 */

/** The longest part of a reference name: a file name of 255 bytes, `.lock` included. */
const MAX_COMPONENT_BYTES = 250;

const isMissing = (error: unknown) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

/** Whether `name` is a reference name native git accepts (`git check-ref-format`). */
export function isValidReferenceName(name: string): boolean {
  if (name.length === 0 || name.length > 1024 || name === '@') return false;
  // Control characters, space and ~ ^ : ? * [ \ are not allowed anywhere.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: git refuses control characters in ref names, as this does
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  // A component is a file or directory name, which a `.lock` suffix must still fit.
  return name
    .split('/')
    .every(
      (component) => !component.startsWith('.') && !component.endsWith('.lock') && Buffer.byteLength(component) <= MAX_COMPONENT_BYTES,
    );
}

/**
 * References are read with blocking calls: a file of a few dozen bytes costs a few microseconds that way, where
 * fs.promises.readFile takes four trips through libuv's thread pool (open, stat, read, close), each waiting
 * behind every other request's work under load. `packed-refs` past this size is read without blocking.
 */
const BLOCKING_READ_BYTES = 256 * 1024;

/** The packed references: full name → object ID (the peeled `^` lines of annotated tags left out). */
function parsePacked(text: string): Map<string, string> {
  const packed = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{40}) (\S+)$/.exec(line);
    if (match) packed.set(match[2], match[1]);
  }
  return packed;
}

/** `packed-refs` as read lately, by repository, with the file's identity then (git rewrites it by renaming a new file into place). */
const packedKept = new LruMap<string, { identity: string; references: ReadonlyMap<string, string> }>(256);
/** A `packed-refs` changed this recently may change again within the file system's time resolution: it is read again rather than kept. */
const SETTLED_MS = 2000;

/** The packed references, read again only when the file changed (its inode, size or time). */
async function packedReferences(gitdir: string): Promise<ReadonlyMap<string, string>> {
  const path = join(gitdir, 'packed-refs');
  let stats: BigIntStats;
  try {
    stats = statSync(path, { bigint: true });
  } catch (error) {
    if (isMissing(error)) return new Map();
    throw error;
  }
  const identity = `${stats.ino}:${stats.size}:${stats.mtimeNs}`;
  const kept = packedKept.get(gitdir);
  if (kept?.identity === identity) return kept.references;
  const text = stats.size <= BLOCKING_READ_BYTES ? readFileSync(path, 'utf8') : await readFile(path, 'utf8');
  const references = parsePacked(text);
  if (Date.now() - Number(stats.mtimeMs) > SETTLED_MS) packedKept.set(gitdir, { identity, references });
  return references;
}

/** The packed references as the file is now, for a write that compares and swaps. */
async function readPackedReferences(gitdir: string): Promise<Map<string, string>> {
  try {
    return parsePacked(await readFile(join(gitdir, 'packed-refs'), 'utf8'));
  } catch (error) {
    if (isMissing(error)) return new Map();
    throw error;
  }
}

/** What a loose reference file holds (`<oid>` or `ref: <target>`), or null. */
const readLoose = (gitdir: string, name: string) => readReferenceFile(join(gitdir, name));

function readReferenceFile(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return null;
    throw error;
  }
}

/**
 * The object ID a reference holds itself (a symbolic reference is followed: HEAD), loose before packed;
 * null when there is none.
 */
export async function readReference(gitdir: string, name: string, depth = 0): Promise<string | null> {
  const loose = readLoose(gitdir, name);
  if (loose !== null) {
    if (loose.startsWith('ref: ')) return depth < 5 ? readReference(gitdir, loose.slice(5).trim(), depth + 1) : null;
    return /^[0-9a-f]{40}$/.test(loose) ? loose : null;
  }
  return (await packedReferences(gitdir)).get(name) ?? null;
}

/**
 * Every reference under `prefix` (`refs/heads/`), by its name after the prefix, with the object it holds: the
 * loose ones (a loose reference overrides a packed one) and the packed ones, `packed-refs` read once.
 */
export async function listReferences(gitdir: string, prefix: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const [name, oid] of await packedReferences(gitdir)) if (name.startsWith(prefix)) found.set(name.slice(prefix.length), oid);
  const directory = join(gitdir, prefix);
  let entries: Dirent[];
  try {
    entries = readdirSync(directory, { withFileTypes: true, recursive: true });
  } catch (error) {
    if (isMissing(error)) return found;
    throw error;
  }
  for (const entry of entries) {
    // A lock file is no reference (references are written only through them: nothing else lies here).
    if (!entry.isFile() || entry.name.endsWith('.lock')) continue;
    const path = join(entry.parentPath, entry.name);
    const oid = readReferenceFile(path) ?? '';
    if (/^[0-9a-f]{40}$/.test(oid)) found.set(relative(directory, path), oid);
  }
  return found;
}

/** The reference HEAD names (`refs/heads/master`), or null when HEAD is detached or missing. */
export async function readSymbolicReference(gitdir: string, name: string): Promise<string | null> {
  const loose = readLoose(gitdir, name);
  return loose?.startsWith('ref: ') ? loose.slice(5).trim() : null;
}

/** Holds `<path>.lock` (created exclusively) while `work` runs; `work` writes the new content into it. */
async function withLockFile<T>(
  path: string,
  reference: string,
  work: (write: (content: string) => Promise<void>) => Promise<T>,
): Promise<T> {
  const lockPath = `${path}.lock`;
  await mkdir(dirname(path), { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    // A reference where a directory of references must go (`a` when `a/b` is written).
    if (error.code === 'EEXIST' || error.code === 'ENOTDIR') throw new ReferenceConflictError(reference);
    throw error;
  });
  const handle = await open(lockPath, 'wx').catch(async (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOTDIR') throw new ReferenceConflictError(reference);
    if (error.code !== 'EEXIST') throw error;
    // No writer of forgekit's holds it (the caller holds the repository's lock): a crashed one left it.
    await unlink(lockPath).catch(() => {});
    return open(lockPath, 'wx').catch(() => {
      // Taken again meanwhile: a writer outside forgekit (a native git) is at work.
      throw new ReferenceLockedError(reference);
    });
  });
  let renamed = false;
  try {
    return await work(async (content) => {
      await handle.writeFile(content);
      await handle.sync();
      await handle.close();
      await rename(lockPath, path);
      renamed = true;
    });
  } finally {
    if (!renamed) {
      await handle.close().catch(() => {});
      await unlink(lockPath).catch(() => {});
    }
  }
}

/** Whether another reference is in the way of `name`: one of its parents (`a` for `a/b`), or one below it. */
async function conflictsWith(gitdir: string, name: string, packed: Map<string, string>): Promise<boolean> {
  const parts = name.split('/');
  for (let end = 2; end < parts.length; end++) {
    const parent = parts.slice(0, end).join('/');
    if (packed.has(parent)) return true;
    const found = await stat(join(gitdir, parent)).catch(() => null);
    if (found?.isFile()) return true;
  }
  if ([...packed.keys()].some((other) => other.startsWith(`${name}/`))) return true;
  const below = await stat(join(gitdir, name)).catch(() => null);
  if (below?.isDirectory()) {
    // An empty directory, left by deleted references, is no conflict: it goes.
    return rmdir(join(gitdir, name)).then(
      () => false,
      () => true,
    );
  }
  return false;
}

/**
 * Moves reference `name` from `expected` (null: it must not exist) to `next` (null: delete it), atomically
 * under its lock file. A reference that holds anything but `expected` throws ReferenceChangedError and is
 * left as it is.
 */
export async function updateReference(gitdir: string, name: string, expected: string | null, next: string | null): Promise<void> {
  const path = join(gitdir, name);
  await withLockFile(path, name, async (write) => {
    const packed = await readPackedReferences(gitdir);
    const loose = readLoose(gitdir, name);
    const current = loose ?? packed.get(name) ?? null;
    if (current !== expected) throw new ReferenceChangedError(name, expected, current);
    if (next !== null) {
      if (current === null && (await conflictsWith(gitdir, name, packed))) throw new ReferenceConflictError(name);
      return write(`${next}\n`);
    }
    if (loose !== null) await unlink(path);
    if (packed.has(name)) await removePacked(gitdir, name);
    await removeEmptyParents(gitdir, name);
  });
}

/** Points symbolic reference `name` (HEAD) at `target`. */
export async function writeSymbolicReference(gitdir: string, name: string, target: string): Promise<void> {
  await withLockFile(join(gitdir, name), name, (write) => write(`ref: ${target}\n`));
}

/** `packed-refs` rewritten without `name` (and its peeled line), under its own lock file. */
async function removePacked(gitdir: string, name: string): Promise<void> {
  const path = join(gitdir, 'packed-refs');
  await withLockFile(path, 'packed-refs', async (write) => {
    const lines = (await readFile(path, 'utf8')).split('\n');
    const kept: string[] = [];
    for (let index = 0; index < lines.length; index++) {
      if (lines[index].endsWith(` ${name}`) && /^[0-9a-f]{40} /.test(lines[index])) {
        if (lines[index + 1]?.startsWith('^')) index++;
        continue;
      }
      kept.push(lines[index]);
    }
    await write(kept.join('\n'));
  });
}

/** The directories a deleted reference leaves empty (`refs/heads/feature/` of `feature/x`), up to `refs/<kind>`. */
async function removeEmptyParents(gitdir: string, name: string): Promise<void> {
  const parts = name.split('/');
  for (let end = parts.length - 1; end > 2; end--) {
    const removed = await rmdir(join(gitdir, ...parts.slice(0, end))).then(
      () => true,
      () => false,
    );
    if (!removed) return;
  }
}
