import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { createDeflate, deflate, deflateSync } from 'node:zlib';
import type { BlobStream } from './blob-stream.js';
import { GitError, RepositoryMissingError } from './errors.js';
import { temporaryPath } from './fs.js';
import { LruMap } from './lru.js';
import { CorruptObjectError, MissingObjectError, parseTree, type ObjectType, type RawTreeEntry } from './object-reader.js';
import type { CommitNode, Repository } from './repository.js';

/**
 * Copying a commit's objects from one repository into another (a fork's commits into its upstream, so that a merge
 * request can be compared and merged there), as `git fetch` would bring them, but as loose objects written one by
 * one: a merge request's commits are few, and a pack would cost more to write and index than they do.
 *
 * What is copied keeps git's connectivity guarantee in the target at every moment: an object is written only once
 * everything it names is there (a blob and subtrees before their tree, a tree and parents before their commit),
 * each object whole (a temporary file renamed into place). A copy cut short (a crash, an abort) leaves only
 * objects whose own closure is complete, unreferenced until the caller moves a reference; the next copy stops at
 * them as at anything else the target has.
 */

/** The tip to copy is not a commit of the source repository. */
export class MissingTipError extends GitError {
  override readonly name = 'MissingTipError';
  constructor(
    readonly oid: string,
    readonly gitdir: string,
    readonly found: ObjectType | null,
  ) {
    super(found ? `${oid} is a ${found} in ${gitdir}, not a commit` : `the commit ${oid} is not in ${gitdir}`);
  }
}

const FULL_OID = /^[0-9a-f]{40}$/;
/** How long the copy runs before it lets the event loop turn (most of its reads are served from memory). */
const TURN_MS = 8;
/** Objects up to this size are compressed at once; larger ones on libuv's thread pool. */
const DEFLATE_AT_ONCE_BYTES = 64 * 1024;
/** Blobs up to this size are read whole (openBlob's bound too); larger ones are streamed into their file. */
const WHOLE_BLOB_BYTES = 1024 * 1024;
/**
 * How many file accesses (a lookup, a read, a write) one copy has under way at most: half of the 4 threads libuv has for every file access
 * of the process.
 */
const PARALLEL = 2;
/** Source trees kept parsed during one copy: a commit's trees are the next commit's parent's. */
const KEPT_TREES = 2048;

const deflateAsync = promisify(deflate);

/**
 * Makes every object reachable from the commit `tip` of `from` present in `to`; how many objects it wrote.
 *
 * Commits are walked from the tip down to those `to` has (whose history and trees it then has: git's connectivity),
 * and copied oldest first. Of each new commit's tree, only entries that differ from its parents' trees at the same
 * place are looked at (the others are there already, or are written with the parent), and of those, only what
 * `to` lacks is copied: a one-file change copies the commit, the trees on the file's path and the blob. Submodule
 * entries name commits of other repositories and are not copied; annotated tags are not followed (tips are commits).
 * When `to` has `tip` already, one lookup answers 0.
 *
 * Rejects with MissingTipError when `tip` is not a commit of `from`, RepositoryMissingError when either repository
 * is missing, CorruptObjectError when an object of `from` does not hash to its ID (nothing wrong is written), and
 * the signal's reason once `signal` is aborted (what was written stays, whole and harmless).
 */
export async function copyMissingObjects(
  from: Repository,
  to: Repository,
  tip: string,
  options: { signal?: AbortSignal } = {},
): Promise<number> {
  if (!FULL_OID.test(tip)) throw new MissingTipError(tip, from.gitdir, null);
  const there = await to.objectType(tip);
  if (there === 'commit') return 0;
  // The same ID is the same object in every repository.
  const found = there ?? (await from.objectType(tip));
  if (found !== 'commit') throw new MissingTipError(tip, from.gitdir, found);
  const copy = new Copy(from, to, options.signal);
  try {
    await copy.run(tip);
    return copy.written;
  } catch (error) {
    // A stream stopped by the signal says AbortError: the caller hears its reason, as from anything else stopped.
    if (options.signal?.aborted) throw options.signal.reason;
    throw error;
  } finally {
    await copy.target.close();
  }
}

/** One copy: what it has learnt of the target, what it has kept of the source, and the objects under way. */
class Copy {
  written = 0;
  readonly target: TargetObjects;
  private readonly trees = new LruMap<string, RawTreeEntry[]>(KEPT_TREES);
  /** Objects being copied: a tree waits for its entries, whichever tree first asked for them. */
  private readonly copying = new Map<string, Promise<void>>();
  /** File accesses under way (at most PARALLEL), and those waiting for their turn. */
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  /** Why the copy stopped: what is still queued gives up. */
  private failure?: { error: unknown };
  private turnedAt = performance.now();

  constructor(
    private readonly from: Repository,
    to: Repository,
    private readonly signal?: AbortSignal,
  ) {
    this.target = new TargetObjects(to.gitdir);
  }

  async run(tip: string): Promise<void> {
    // The commits `to` lacks, walked from the tip; the walk stops at the commits it has.
    const missing = new Map<string, CommitNode>();
    const seen = new Set([tip]);
    const pending = [tip];
    while (pending.length) {
      await this.pace();
      const node = await this.from.commitNode(pending.pop()!);
      missing.set(node.oid, node);
      for (const parent of node.parents) {
        if (seen.has(parent)) continue;
        seen.add(parent);
        if (!(await this.target.has(parent))) pending.push(parent);
      }
    }

    // Parents first (Kahn's order): a commit is written once its parents are there.
    const waiting = new Map<string, number>();
    const children = new Map<string, string[]>();
    const ready: string[] = [];
    for (const [oid, node] of missing) {
      const parents = new Set(node.parents.filter((parent) => missing.has(parent)));
      waiting.set(oid, parents.size);
      for (const parent of parents) {
        const siblings = children.get(parent);
        if (siblings) siblings.push(oid);
        else children.set(parent, [oid]);
      }
      if (!parents.size) ready.push(oid);
    }
    while (ready.length) {
      const oid = ready.pop()!;
      await this.copyCommit(missing.get(oid)!, missing);
      for (const child of children.get(oid) ?? []) {
        const left = waiting.get(child)! - 1;
        waiting.set(child, left);
        if (!left) ready.push(child);
      }
    }
  }

  private async copyCommit(node: CommitNode, missing: Map<string, CommitNode>): Promise<void> {
    const parentTrees: string[] = [];
    for (const parent of new Set(node.parents)) {
      const tree = missing.get(parent)?.tree ?? (await this.from.commitNode(parent).then((known) => known.tree, ignoreMissing));
      if (tree) parentTrees.push(tree);
    }
    await this.copyTree(node.tree, parentTrees);
    const content = await this.access(() => this.read(node.oid, 'commit'));
    await this.access(() => this.write(node.oid, 'commit', content));
  }

  /**
   * A tree and what it holds, unless `to` has it. `parentTrees`: the trees at the same place in the commit's
   * parents, which are in `to` (or written before this commit): an entry one of them holds is there already.
   * Its entries are copied side by side (a few file accesses at a time), the tree once they all are.
   */
  private copyTree(oid: string, parentTrees: readonly string[]): Promise<void> {
    if (parentTrees.includes(oid)) return Promise.resolve();
    return this.once(oid, async () => {
      if (await this.access(() => this.target.has(oid))) return;
      const content = await this.access(() => this.read(oid, 'tree'));
      const entries = parseTree(content);
      // The next commit's parent's tree, most often.
      this.trees.set(oid, entries);
      const parents = await Promise.all(parentTrees.map((tree) => this.treeEntries(tree).catch(ignoreMissing)));
      const there = new Set<string>();
      const parentsByName = new Map<string, string[]>();
      for (const parentEntries of parents) {
        for (const entry of parentEntries ?? []) {
          there.add(entry.oid);
          if (!isTree(entry.mode)) continue;
          const name = entry.name.toString('latin1');
          const named = parentsByName.get(name);
          if (named) named.push(entry.oid);
          else parentsByName.set(name, [entry.oid]);
        }
      }
      const copies: Promise<void>[] = [];
      for (const entry of entries) {
        // A submodule: a commit of another repository.
        if (entry.mode === '160000' || there.has(entry.oid)) continue;
        copies.push(
          isTree(entry.mode) ? this.copyTree(entry.oid, parentsByName.get(entry.name.toString('latin1')) ?? []) : this.copyBlob(entry.oid),
        );
      }
      // Every entry settled before this returns, failed or not: nothing of the copy goes on once it has answered.
      const failed = (await Promise.allSettled(copies)).find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      await this.access(() => this.write(oid, 'tree', content));
    });
  }

  private copyBlob(oid: string): Promise<void> {
    return this.once(oid, () =>
      this.access(async () => {
        if (await this.target.has(oid)) return;
        const blob = await this.from.openBlob(oid);
        if (!blob) {
          const found = await this.from.objectType(oid);
          throw found ? new CorruptObjectError(`${oid} is a ${found}, not a blob`) : new MissingObjectError(oid);
        }
        if (blob.size > WHOLE_BLOB_BYTES) {
          await this.target.writeStreamed(oid, blob, this.signal);
        } else {
          const chunks: Buffer[] = [];
          for await (const chunk of blob.stream) chunks.push(chunk as Buffer);
          await this.target.write(oid, 'blob', Buffer.concat(chunks));
        }
        this.written += 1;
      }),
    );
  }

  private async write(oid: string, type: ObjectType, content: Buffer): Promise<void> {
    await this.target.write(oid, type, content);
    this.written += 1;
  }

  /** The copy of an object, started once however many trees name it. */
  private once(oid: string, copy: () => Promise<void>): Promise<void> {
    let copying = this.copying.get(oid);
    if (!copying) {
      copying = copy();
      this.copying.set(oid, copying);
      // Once written it is known to the target: a failure stays, for whatever else waits for it.
      copying.then(
        () => this.copying.delete(oid),
        () => {},
      );
    }
    return copying;
  }

  /**
   * `work` (a few file accesses) once fewer than PARALLEL are under way: the copy never takes all of libuv's
   * threads, which every other request's file access shares, nor queues thousands of accesses before them.
   */
  private async access<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < PARALLEL) this.active += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      await this.pace();
      return await work();
    } catch (error) {
      this.failure ??= { error };
      throw error;
    } finally {
      // The turn handed to the next in line, or given back.
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }

  /** A tree's entries from the source, kept for the next commit (whose parent's tree it is). */
  private async treeEntries(oid: string): Promise<RawTreeEntry[]> {
    let entries = this.trees.get(oid);
    if (!entries) this.trees.set(oid, (entries = parseTree(await this.access(() => this.read(oid, 'tree')))));
    return entries;
  }

  /** An object of the source, exactly as stored, of the type its place says. */
  private async read(oid: string, type: ObjectType): Promise<Buffer> {
    const read = await this.from.readRawObject(oid);
    if (!read) throw new MissingObjectError(oid);
    if (read.type !== type) throw new CorruptObjectError(`${oid} is a ${read.type}, not a ${type}`);
    return read.content;
  }

  /** Stops once aborted or failed; lets the event loop turn after a while of work served from memory. */
  private async pace(): Promise<void> {
    this.stopIfStopped();
    if (performance.now() - this.turnedAt < TURN_MS) return;
    this.turnedAt = performance.now();
    await nextTurn();
    this.stopIfStopped();
  }

  private stopIfStopped(): void {
    this.signal?.throwIfAborted();
    if (this.failure) throw this.failure.error;
  }
}

const isTree = (mode: string) => mode === '40000' || mode === '040000';

/** A read that found nothing (a parent the source lacks: a shallow source) only means nothing is known there. */
const ignoreMissing = (error: unknown): undefined => {
  if (error instanceof MissingObjectError) return undefined;
  throw error;
};

/** One pack index of the target: its fan-out table, and the buckets of its sorted names read so far. */
interface TargetIndex {
  handle: FileHandle;
  fanout: Buffer;
  buckets: Map<number, Buffer>;
}

/**
 * What the target has, for one copy: loose objects by their file, packed ones by the pack indexes as they were
 * when first asked (a pack the target gets meanwhile only makes an object be written again, loose: harmless).
 * An index's names are read a fan-out bucket at a time (the objects starting with one byte), as lookups need
 * them: most objects asked about are new, and a copy of a few objects into a large repository reads a few
 * kilobytes of its indexes, not all of them.
 */
class TargetObjects {
  /** Objects known to be there: found, or written by this copy. */
  private readonly known = new Set<string>();
  private indexes?: Promise<TargetIndex[]>;
  private readonly directories = new Set<string>();

  constructor(private readonly gitdir: string) {}

  async has(oid: string): Promise<boolean> {
    if (this.known.has(oid)) return true;
    const found = (await this.packed(oid)) || (await stat(this.loosePath(oid)).then(() => true, notFound));
    if (found) this.known.add(oid);
    return found;
  }

  /** Writes an object whose content is in memory, once it is checked to hash to `oid`. */
  async write(oid: string, type: ObjectType, content: Buffer): Promise<void> {
    const header = Buffer.from(`${type} ${content.length}\0`);
    const hashed = createHash('sha1').update(header).update(content).digest('hex');
    if (hashed !== oid) throw new CorruptObjectError(`the object ${oid} of the source hashes to ${hashed}`);
    const whole = Buffer.concat([header, content]);
    const data = whole.length <= DEFLATE_AT_ONCE_BYTES ? deflateSync(whole) : await deflateAsync(whole);
    await this.place(oid, (temporary) => writeFile(temporary, data, { flag: 'wx' }));
  }

  /** Writes a large blob as it is read: compressed on the thread pool, hashed on the way, never whole in memory. */
  async writeStreamed(oid: string, blob: BlobStream, signal?: AbortSignal): Promise<void> {
    const hash = createHash('sha1');
    const header = Buffer.from(`blob ${blob.size}\0`);
    hash.update(header);
    let size = 0;
    await this.place(oid, async (temporary) => {
      await pipeline(
        blob.stream,
        async function* (source: AsyncIterable<Buffer>) {
          yield header;
          for await (const chunk of source) {
            size += chunk.length;
            hash.update(chunk);
            yield chunk;
          }
        },
        createDeflate(),
        createWriteStream(temporary, { flags: 'wx' }),
        { signal },
      );
      const hashed = hash.digest('hex');
      if (size !== blob.size || hashed !== oid) throw new CorruptObjectError(`the object ${oid} of the source hashes to ${hashed}`);
    });
  }

  /** An object's file written beside its place by `write`, then renamed into it: never seen partly written. */
  private async place(oid: string, write: (temporary: string) => Promise<void>): Promise<void> {
    const directory = join(this.gitdir, 'objects', oid.slice(0, 2));
    if (!this.directories.has(directory)) {
      // Only the fan-out directory is made: a repository that is not there is not made by a copy.
      await mkdir(directory).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') throw new RepositoryMissingError(this.gitdir);
        if (error.code !== 'EEXIST') throw error;
      });
      this.directories.add(directory);
    }
    const temporary = temporaryPath(join(directory, oid.slice(2)));
    try {
      await write(temporary);
      await rename(temporary, this.loosePath(oid));
    } catch (error) {
      await unlink(temporary).catch(() => {});
      throw error;
    }
    this.known.add(oid);
  }

  private loosePath(oid: string): string {
    return join(this.gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
  }

  /** Whether one of the target's packs holds the object. */
  private async packed(oid: string): Promise<boolean> {
    const wanted = Buffer.from(oid, 'hex');
    const first = wanted[0];
    for (const index of await (this.indexes ??= this.openIndexes())) {
      const low = first === 0 ? 0 : index.fanout.readUInt32BE((first - 1) * 4);
      const high = index.fanout.readUInt32BE(first * 4);
      if (low === high) continue;
      let names = index.buckets.get(first);
      if (!names) {
        names = Buffer.alloc((high - low) * 20);
        const { bytesRead } = await index.handle.read(names, 0, names.length, 8 + 256 * 4 + low * 20);
        if (bytesRead !== names.length) throw new CorruptObjectError('a pack index is cut short');
        index.buckets.set(first, names);
      }
      let bottom = 0;
      let top = high - low;
      while (bottom < top) {
        const middle = (bottom + top) >>> 1;
        const compared = names.compare(wanted, 0, 20, middle * 20, middle * 20 + 20);
        if (compared === 0) return true;
        // `compared` orders the index's name against the wanted one.
        if (compared < 0) bottom = middle + 1;
        else top = middle;
      }
    }
    return false;
  }

  /** The target's pack indexes (version 2, as git writes them), each with its pack: one without is a repack's leftover. */
  private async openIndexes(): Promise<TargetIndex[]> {
    const directory = join(this.gitdir, 'objects', 'pack');
    const names = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    const indexes: TargetIndex[] = [];
    try {
      for (const name of names.filter((file) => file.endsWith('.idx')).sort()) {
        if (!(await stat(join(directory, `${name.slice(0, -4)}.pack`)).then(() => true, notFound))) continue;
        const handle = await open(join(directory, name), 'r').catch(notFound);
        if (!handle) continue;
        indexes.push({ handle, fanout: Buffer.alloc(0), buckets: new Map() });
        const head = Buffer.alloc(8 + 256 * 4);
        const { bytesRead } = await handle.read(head, 0, head.length, 0);
        if (bytesRead !== head.length || head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2)
          throw new CorruptObjectError(`${name} is not a version 2 pack index`);
        indexes[indexes.length - 1].fanout = head.subarray(8);
      }
    } catch (error) {
      await Promise.all(indexes.map(({ handle }) => handle.close().catch(() => {})));
      throw error;
    }
    return indexes;
  }

  /** Closes the pack indexes it opened. */
  async close(): Promise<void> {
    const indexes = await this.indexes?.catch(() => []);
    await Promise.all((indexes ?? []).map(({ handle }) => handle.close().catch(() => {})));
  }
}

/** ENOENT as "not there"; any other failure as itself. */
function notFound(error: NodeJS.ErrnoException): false {
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return false;
  throw error;
}
