import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { indexPackInWorker } from './index-pack.js';
import { ObjectReader, PackCache } from './object-reader.js';
import { writePackBitmap } from './pack-bitmap-writer.js';
import { StoredPacks, writePack } from './pack-writer.js';
import { listReferences, readReference } from './refs.js';
import type { Repository } from './repository.js';
import { reachableObjects } from './upload-pack.js';

// A repository's housekeeping, as `git gc` does it, while reads and writes go on (no lock is taken):
// - every object the references reach (and the commits the database names: `keep`) is written into one new pack,
//   copied as the packs store it, with its reachability bitmap; then the commit-graph is written anew;
// - the loose objects and packs that were there before it began go once the new pack holds what they held; an
//   object no reference reaches stays (loose, or in its old pack) until it is older than the grace period
//   (git's gc.pruneExpire), so that a write under way, which may name objects that were unreachable, finds them.
// Objects and packs written meanwhile are never touched: only what was listed before the references were read.

/** git's gc.pruneExpire: two weeks. */
export const DEFAULT_PRUNE_AFTER_MS = 14 * 24 * 3600 * 1000;
/** Temporary files and push quarantines a crash left behind, removed once this old (a push under way is younger). */
const LEFTOVER_AFTER_MS = 24 * 3600 * 1000;
const PACK_CACHE_BYTES = 64 * 1024 * 1024;

export interface HousekeepingOptions {
  /** Objects no reference reaches are removed once this old. */
  pruneAfterMs?: number;
  /** Objects kept as if a reference named them (commits the database still names); those not there are passed over. */
  keep?: readonly string[];
  signal?: AbortSignal;
}

/** What housekeeping did. */
export interface HousekeepingResult {
  /** The objects of the new pack (0: nothing needed packing). */
  packed: number;
  /** Loose objects and packs removed: packed anew, or unreachable past the grace period. */
  looseObjectsRemoved: number;
  packsRemoved: number;
  /** Whether the new pack has a reachability bitmap. */
  bitmap: boolean;
}

interface Listed {
  path: string;
  mtimeMs: number;
}

type ListedPack = Listed & { kept: boolean; bitmap: boolean };

export async function housekeep(repo: Repository, options: HousekeepingOptions = {}): Promise<HousekeepingResult> {
  const { signal } = options;
  const pruneBefore = Date.now() - (options.pruneAfterMs ?? DEFAULT_PRUNE_AFTER_MS);
  const objectsDirectory = join(repo.gitdir, 'objects');
  const packDirectory = join(objectsDirectory, 'pack');
  await repo.assertPresent();
  await removeLeftovers(objectsDirectory, packDirectory);
  // What is there before the references are read: all of it that they reach goes into the new pack.
  const loose = await listLooseObjects(objectsDirectory);
  const packs = await listPacks(packDirectory);
  const result: HousekeepingResult = { packed: 0, looseObjectsRemoved: 0, packsRemoved: 0, bitmap: false };
  const tips = await referenceTips(repo, options.keep ?? []);
  signal?.throwIfAborted();
  if (!tips.length) {
    // Nothing is reachable: what is past the grace period goes.
    result.packsRemoved = await removePacks(packs, async () => true, pruneBefore);
    result.looseObjectsRemoved = await removeLoose(loose, (_, mtimeMs) => mtimeMs < pruneBefore);
    return result;
  }

  const reachable = await reachableObjects(repo, tips, signal);
  const reachableSet = new Set(reachable);
  const [only] = packs;
  if (
    packs.length === 1 &&
    only.bitmap &&
    ![...loose.keys()].some((oid) => reachableSet.has(oid)) &&
    (only.mtimeMs >= pruneBefore || (await packHoldsOnly(only.path, reachableSet)))
  ) {
    // One pack with its bitmap holds all that is reachable, and nothing of it is to be pruned: only loose objects may go.
    result.looseObjectsRemoved = await removeLoose(loose, (_, mtimeMs) => mtimeMs < pruneBefore);
    return result;
  }
  const packPath = await writeNewPack(repo, packDirectory, reachable, signal);
  result.packed = reachable.length;
  result.bitmap = await writePackBitmap(repo, packPath, tips, signal);
  const others = packs.filter((pack) => pack.path !== packPath);
  result.packsRemoved = await removePacks(others, (pack) => packHoldsOnly(pack, reachableSet), pruneBefore);
  result.looseObjectsRemoved = await removeLoose(loose, (oid, mtimeMs) => reachableSet.has(oid) || mtimeMs < pruneBefore);
  await repo.writeCommitGraph();
  return result;
}

/** What the references (HEAD too, when detached) and `keep` name, each once, of those the repository has. */
async function referenceTips(repo: Repository, keep: readonly string[]): Promise<string[]> {
  const tips = new Set((await listReferences(repo.gitdir, 'refs/')).values());
  const head = await readReference(repo.gitdir, 'HEAD');
  if (head) tips.add(head);
  for (const oid of keep) tips.add(oid);
  const present: string[] = [];
  for (const oid of tips) if ((await repo.objectType(oid)) !== null) present.push(oid);
  return present;
}

/**
 * The pack of `oids`, written beside the others, indexed, and moved into place: its path. Both files and the
 * directory reach the disk before anything is removed for them.
 */
async function writeNewPack(repo: Repository, packDirectory: string, oids: string[], signal?: AbortSignal): Promise<string> {
  const temporary = join(packDirectory, `tmp_pack_${randomBytes(6).toString('hex')}`);
  const temporaryIndex = `${temporary}.idx`;
  const reader = new ObjectReader(repo.gitdir, new PackCache(PACK_CACHE_BYTES));
  const stored = await StoredPacks.open(repo.gitdir);
  try {
    await pipeline(writePack(reader, stored, oids, { ofsDelta: true, signal }), createWriteStream(temporary, { flags: 'wx' }), { signal });
    await syncFile(temporary);
    const indexed = await indexPackInWorker(temporary, [], signal);
    const base = join(packDirectory, `pack-${indexed.checksum}`);
    await writeFile(temporaryIndex, indexed.index, { flag: 'wx' });
    await syncFile(temporaryIndex);
    // The pack before its index: a reader finds a pack by its index.
    await rename(temporary, `${base}.pack`);
    await rename(temporaryIndex, `${base}.idx`);
    await syncFile(packDirectory);
    return `${base}.pack`;
  } finally {
    await rm(temporary, { force: true });
    await rm(temporaryIndex, { force: true });
    await stored.close();
    await reader.close();
  }
}

/** A file's (or a directory's) content on the disk. */
async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Whether every object of the pack is in `objects`. */
async function packHoldsOnly(packPath: string, objects: ReadonlySet<string>): Promise<boolean> {
  const index = await readFile(`${packPath.slice(0, -'.pack'.length)}.idx`).catch(() => null);
  if (!index) return true;
  const count = index.readUInt32BE(8 + 255 * 4);
  const names = 8 + 256 * 4;
  for (let position = 0; position < count; position++) {
    if (!objects.has(index.toString('hex', names + position * 20, names + position * 20 + 20))) return false;
  }
  return true;
}

/**
 * Removes the packs (but those kept by a `.keep` file) whose every object was packed anew (`packedAnew`), or that are
 * past the grace period (their unreachable objects with them): the index first, so that a reader listing packs no
 * longer finds one, while a reader that has it open reads on.
 */
async function removePacks(packs: ListedPack[], packedAnew: (path: string) => Promise<boolean>, pruneBefore: number): Promise<number> {
  let removed = 0;
  for (const pack of packs) {
    if (pack.kept || (pack.mtimeMs >= pruneBefore && !(await packedAnew(pack.path)))) continue;
    const base = pack.path.slice(0, -'.pack'.length);
    for (const suffix of ['.bitmap', '.idx', '.rev', '.pack']) await rm(`${base}${suffix}`, { force: true });
    removed += 1;
  }
  return removed;
}

/** The loose objects, by ID, with the time each was written (or last found there by a write). */
async function listLooseObjects(objectsDirectory: string): Promise<Map<string, Listed>> {
  const found = new Map<string, Listed>();
  for (const fanOut of await readdir(objectsDirectory)) {
    if (!/^[0-9a-f]{2}$/.test(fanOut)) continue;
    const directory = join(objectsDirectory, fanOut);
    for (const name of await readdir(directory).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{38}$/.test(name)) continue;
      const path = join(directory, name);
      const status = await stat(path).catch(() => null);
      if (status) found.set(fanOut + name, { path, mtimeMs: status.mtimeMs });
    }
  }
  return found;
}

/** The packs with their index, when each was written, whether it is kept (`.keep`: never removed) and has a bitmap. */
async function listPacks(packDirectory: string): Promise<ListedPack[]> {
  const names = new Set(await readdir(packDirectory).catch(() => [] as string[]));
  const packs: ListedPack[] = [];
  for (const name of names) {
    if (!/^pack-[0-9a-f]{40}\.pack$/.test(name)) continue;
    const base = name.slice(0, -'.pack'.length);
    if (!names.has(`${base}.idx`)) continue;
    const status = await stat(join(packDirectory, name)).catch(() => null);
    if (!status) continue;
    const kept = names.has(`${base}.keep`);
    packs.push({ path: join(packDirectory, name), mtimeMs: status.mtimeMs, kept, bitmap: names.has(`${base}.bitmap`) });
  }
  return packs;
}

/**
 * Removes the listed loose objects `removable` says may go; an object is looked at again just before, since a write
 * that found it there may have made it new (and removable no longer). Their emptied fan-out directories go too.
 */
async function removeLoose(loose: ReadonlyMap<string, Listed>, removable: (oid: string, mtimeMs: number) => boolean): Promise<number> {
  let removed = 0;
  const directories = new Set<string>();
  for (const [oid, { path }] of loose) {
    const status = await stat(path).catch(() => null);
    if (!status || !removable(oid, status.mtimeMs)) continue;
    await unlink(path).catch(() => {});
    removed += 1;
    directories.add(join(path, '..'));
  }
  // rmdir removes only an empty directory; a write that finds its directory gone makes it again.
  for (const directory of directories) await rmdir(directory).catch(() => {});
  return removed;
}

/** Temporary objects and packs, and push quarantines, that a crash left behind (git gc's own clean-up). */
async function removeLeftovers(objectsDirectory: string, packDirectory: string): Promise<void> {
  const before = Date.now() - LEFTOVER_AFTER_MS;
  const candidates: string[] = [];
  for (const name of await readdir(objectsDirectory).catch(() => [] as string[])) {
    if (name.startsWith('tmp_objdir-incoming-')) candidates.push(join(objectsDirectory, name));
    else if (/^[0-9a-f]{2}$/.test(name)) {
      for (const entry of await readdir(join(objectsDirectory, name)).catch(() => [] as string[])) {
        if (entry.startsWith('tmp_obj_')) candidates.push(join(objectsDirectory, name, entry));
      }
    }
  }
  for (const name of await readdir(packDirectory).catch(() => [] as string[])) {
    if (/^tmp_(pack|idx|bitmap)_/.test(name)) candidates.push(join(packDirectory, name));
  }
  for (const path of candidates) {
    const status = await stat(path).catch(() => null);
    if (status && status.mtimeMs < before) await rm(path, { recursive: true, force: true });
  }
}
