import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CommitGraph, CommitNode } from './commit-graph.js';
import { CorruptObjectError, MissingObjectError, ObjectReader, PackCache } from './object-reader.js';
import { hasBit, type ObjectBits, setBit } from './pack-writer.js';
import { parseCommit } from './parse.js';
import type { Repository } from './repository.js';

// A pack's reachability bitmaps (gitformat-bitmap, version 1), written as `git repack -a -d -b` writes them, for
// the reader of src/git/pack-writer.ts (PackBitmap) and git's own: for chosen commits, every object each reaches,
// one bit per object of the pack in the order the pack stores them, EWAH-compressed, most XORed with an earlier
// entry; before them, the four type bitmaps (which objects are commits, trees, blobs, tags).
//
// Which commits (git's select_commits, pack-bitmap-write.c): every commit a tip is or names, then, over all the
// commits the tips reach, newest first by committer date, the 100 newest each, then one in every 1 to 100 (the
// spacing grows by one a commit) up to the 20,000th, one in every 100 to 5,000 further back; within a spacing the
// commit is a tip when one is there (it has its bitmap already), else the oldest merge, else its last commit. At
// most MAX_ENTRIES in all, tips first. A fetch's haves are mostly recent: they find a bitmap at once or after a
// short walk; deep history has few.
//
// How: the chosen commits are computed oldest first (by generation: an ancestor always comes before), each by a
// walk from it, newest generation first, that stops at commits already in its set and ORs in the bitmap of any
// chosen commit it meets (computed already: all of that commit's history is in the set at once); then the trees of
// the commits it walked, each read once, stopping at trees in the set. So a commit's walk covers what is new since
// the chosen commits below it, and the whole costs about one walk of the history (git's own bitmap writer does
// the same). Each set is encoded as soon as it is final; a few hundred are kept decoded, the others rebuilt from
// their encoding (through their XOR chain) when a later walk meets them.

const BITMAP_SIGNATURE = 0x4249544d; // 'BITM'
const BITMAP_VERSION = 1;
const BITMAP_FULL_DAG = 0x1;
/** How far back an entry may be XORed with another (git's MAX_XOR_OFFSET). */
const MAX_XOR_OFFSET = 160;
/** Commits with a bitmap at most: tips first, then those spaced along the history. */
const MAX_ENTRIES = 3000;
/** git's select_commits: every one of the newest, then spacings that grow, within these bounds. */
const MUST_REGION = 100;
const MIN_REGION = 20_000;
const MIN_SPACING = 100;
const MAX_SPACING = 5000;
/** Decoded sets kept for the walks that OR them in, within this many bytes (and at least MIN_KEPT of them). */
const KEPT_BYTES = 64 * 1024 * 1024;
const MIN_KEPT = 16;
const PACK_CACHE_BYTES = 64 * 1024 * 1024;
/** Trees' entries kept as read, 4 bytes each: walks that meet a tree again (branches) do not read it again. */
const KEPT_TREE_ENTRIES = 8 * 1024 * 1024;
/** How long the writer runs before it lets the event loop turn. */
const TURN_MS = 8;
/** Where an index (version 2) lists its objects' names, after its header and fanout. */
const INDEX_NAMES = 8 + 256 * 4;
/** Object types as a pack numbers them, which orders the type bitmaps too. */
const COMMIT = 1;
const TREE = 2;
const BLOB = 3;
const TAG = 4;
/** An EWAH run-length word's longest run, and most literal words after it. */
const MAX_RUN = 2 ** 32 - 1;
const MAX_LITERALS = 2 ** 31 - 1;

/**
 * Writes `<pack without .pack>.bitmap` for the pack at `packPath` (its `.idx` beside it, version 2), for the
 * objects reachable from `tips` (reference targets: commits, or annotated tags / trees / blobs), atomically
 * (a temporary file renamed into place). Resolves to false, writing nothing, when some object reachable from a
 * tip is not in that pack (a bitmap must cover every object its commits reach). `signal` stops it.
 */
export async function writePackBitmap(repo: Repository, packPath: string, tips: readonly string[], signal?: AbortSignal): Promise<boolean> {
  const base = packPath.endsWith('.pack') ? packPath.slice(0, -'.pack'.length) : packPath;
  const pack = await IndexedPack.open(`${base}.idx`);
  const writer = new BitmapWriter(repo, pack, signal);
  try {
    const contents = await writer.build(tips);
    await writeAtomically(`${base}.bitmap`, contents, signal);
    return true;
  } catch (error) {
    if (error instanceof NotInPack || error instanceof MissingObjectError) return false;
    throw error;
  } finally {
    await writer.close();
  }
}

/** An object reachable from a tip is not in the pack: no bitmap can be written for it. */
class NotInPack extends Error {}

/** A pack's index (version 2) read whole, its objects numbered as a bitmap numbers them: in the order the pack stores them. */
class IndexedPack {
  readonly count: number;
  readonly bitOfPosition: Uint32Array;
  readonly positionOfBit: Uint32Array;
  /** The fanout table, and the first four bytes of every name: a tree's entries are looked up by the million. */
  private readonly fanout = new Uint32Array(256);
  private readonly prefixes: Uint32Array;

  private constructor(readonly index: Buffer) {
    this.count = index.readUInt32BE(8 + 255 * 4);
    if (index.length < INDEX_NAMES + this.count * 28 + 40) throw new CorruptObjectError('a pack index is cut short');
    for (let byte = 0; byte < 256; byte++) this.fanout[byte] = index.readUInt32BE(8 + byte * 4);
    this.prefixes = new Uint32Array(this.count);
    for (let position = 0; position < this.count; position++) this.prefixes[position] = index.readUInt32BE(INDEX_NAMES + position * 20);
    this.positionOfBit = positionsByOffset(index, this.count);
    this.bitOfPosition = new Uint32Array(this.count);
    for (let bit = 0; bit < this.count; bit++) this.bitOfPosition[this.positionOfBit[bit]] = bit;
  }

  static async open(path: string): Promise<IndexedPack> {
    const index = await readFile(path);
    if (index.length < INDEX_NAMES + 40 || index.readUInt32BE(0) !== 0xff744f63 || index.readUInt32BE(4) !== 2)
      throw new CorruptObjectError(`${path} is not a version 2 pack index`);
    return new IndexedPack(index);
  }

  /** The pack's own checksum, which its index repeats before its own. */
  get packChecksum(): Buffer {
    return this.index.subarray(this.index.length - 40, this.index.length - 20);
  }

  /** The object's bit; -1 when the pack does not hold it. */
  bitOf(oid: string): number {
    return oid.length === 40 ? this.bitAt(Buffer.from(oid, 'hex'), 0) : -1;
  }

  /** The bit of the object whose 20-byte name starts at `start` of `bytes` (a tree's entry, read in place); -1 when not here. */
  bitAt(bytes: Buffer, start: number): number {
    const { index, prefixes } = this;
    const first = bytes[start];
    let low = first === 0 ? 0 : this.fanout[first - 1];
    let high = this.fanout[first];
    const wanted = ((first << 24) | (bytes[start + 1] << 16) | (bytes[start + 2] << 8) | bytes[start + 3]) >>> 0;
    // The first name whose first four bytes are not below the wanted ones; then the rest of the bytes, in JavaScript.
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (prefixes[middle] < wanted) low = middle + 1;
      else high = middle;
    }
    for (let position = low; position < this.count && prefixes[position] === wanted; position++) {
      const name = INDEX_NAMES + position * 20;
      let byte = 4;
      while (byte < 20 && index[name + byte] === bytes[start + byte]) byte++;
      if (byte === 20) return this.bitOfPosition[position];
    }
    return -1;
  }

  oidOf(bit: number): string {
    const name = INDEX_NAMES + this.positionOfBit[bit] * 20;
    return this.index.toString('hex', name, name + 20);
  }
}

/** The index position of each entry in the order the pack stores them (by offset): a bitmap's bit numbering. */
function positionsByOffset(index: Buffer, count: number): Uint32Array {
  const offsets = new Float64Array(count);
  const table = INDEX_NAMES + count * 24;
  let largest = 0;
  for (let position = 0; position < count; position++) {
    const offset = index.readUInt32BE(table + position * 4);
    // Past 2 GiB: the large offsets' table.
    offsets[position] = offset & 0x80000000 ? Number(index.readBigUInt64BE(table + count * 4 + (offset & 0x7fffffff) * 8)) : offset;
    if (offsets[position] > largest) largest = offsets[position];
  }
  const positions = new Uint32Array(count);
  const scale = 2 ** Math.ceil(Math.log2(count + 1));
  if ((largest + 1) * scale < 2 ** 53) {
    // Offset and position as one number, sorted natively.
    const keys = new Float64Array(count);
    for (let position = 0; position < count; position++) keys[position] = offsets[position] * scale + position;
    keys.sort();
    for (let at = 0; at < count; at++) positions[at] = keys[at] % scale;
  } else {
    const keys = new BigUint64Array(count);
    for (let position = 0; position < count; position++) keys[position] = (BigInt(offsets[position]) << 32n) | BigInt(position);
    keys.sort();
    for (let at = 0; at < count; at++) positions[at] = Number(keys[at] & 0xffffffffn);
  }
  return positions;
}

/** A computed commit's entry: its set as it will be written (XORed with an earlier entry's, or not), and how many objects it holds. */
interface Entry {
  commit: number;
  xorWith: number;
  encoded: Buffer;
  size: number;
}

class BitmapWriter {
  private readonly objects: ObjectReader;
  /** Each object's type as the walks met it (0: not met yet), by bit. */
  private readonly typeOf: Uint8Array;
  /** How many 32-bit words a set of the pack's objects takes (whole 64-bit words, as EWAH counts them). */
  private readonly words: number;
  private turnedAt = performance.now();

  // The commits the tips reach, numbered in the order they were met: each one's bit, tree's bit, time, generation
  // (1 + its parents' highest) and parents.
  private readonly commitOf: Int32Array;
  private commitBits = new Uint32Array(0);
  private treeBits = new Uint32Array(0);
  private times = new Float64Array(0);
  private generations = new Uint32Array(0);
  private parentStarts = new Uint32Array(1);
  private parents = new Uint32Array(0);

  private readonly entries: Entry[] = [];
  private entryOf = new Int32Array(0);
  /** Decoded sets by entry, the least recently used first. */
  private readonly kept = new Map<number, ObjectBits>();
  private readonly maxKept: number;
  /** The walk that queued each commit last: a commit is queued once a walk. */
  private queuedIn = new Int32Array(0);
  private walk = 0;
  /** Trees' entries as read (readTreeEntries), all let go of past KEPT_TREE_ENTRIES. */
  private readonly treeEntries = new Map<number, Uint32Array>();
  private treeEntriesKept = 0;
  /** Room for a set XORed with another, and for two encodings of a set (the smallest so far, the next tried). */
  private readonly scratch: ObjectBits;
  private readonly encodings: [Buffer, Buffer];

  constructor(
    private readonly repo: Repository,
    private readonly pack: IndexedPack,
    private readonly signal?: AbortSignal,
  ) {
    this.objects = new ObjectReader(repo.gitdir, new PackCache(PACK_CACHE_BYTES));
    this.typeOf = new Uint8Array(pack.count);
    this.commitOf = new Int32Array(pack.count).fill(-1);
    this.words = Math.ceil(pack.count / 64) * 2;
    this.maxKept = Math.max(MIN_KEPT, Math.floor(KEPT_BYTES / (this.words * 4 || 1)));
    this.scratch = new Uint32Array(this.words);
    this.encodings = [Buffer.allocUnsafe(ewahBound(this.words)), Buffer.allocUnsafe(ewahBound(this.words))];
  }

  async close(): Promise<void> {
    await this.objects.close();
  }

  /** The bitmap file's contents, its checksum last. */
  async build(tips: readonly string[]): Promise<Buffer[]> {
    const roots = await this.resolveTips(tips);
    await this.enumerateCommits(roots.commits);
    await this.computeGenerations();
    const selected = this.select(roots.commits);
    this.entryOf = new Int32Array(this.commitBits.length).fill(-1);
    this.queuedIn = new Int32Array(this.commitBits.length);
    for (const commit of selected) await this.computeEntry(commit);
    // What no entry covers (tips past MAX_ENTRIES, trees and blobs tags name): walked to be sure the pack has it, and typed.
    const reached = new Uint32Array(this.words);
    for (let bit = 0; bit < this.pack.count; bit++) if (this.typeOf[bit]) setBit(reached, bit);
    await this.fill(reached, roots.commits, roots.trees, false);
    return this.contents(await this.typeBitmaps());
  }

  // ---- what the tips are ----

  /** The commits and trees the tips are or name (annotated tags followed); tags and blobs among them are reached at once. */
  private async resolveTips(tips: readonly string[]): Promise<{ commits: number[]; trees: number[] }> {
    const roots = { commits: [] as number[], trees: [] as number[] };
    for (const tip of new Set(tips)) {
      let oid = tip;
      for (let depth = 0; depth < 10; depth++) {
        const bit = this.pack.bitOf(oid);
        if (bit < 0) throw new NotInPack();
        const header = await this.objects.header(oid);
        if (!header) throw new NotInPack();
        if (header.type === 'tag') {
          this.reach(bit, TAG);
          const tag = await this.repo.readAnnotatedTag(oid);
          if (!tag || !/^[0-9a-f]{40}$/.test(tag.object)) throw new CorruptObjectError(`the tag ${oid} names no object`);
          oid = tag.object;
          continue;
        }
        if (header.type === 'commit') roots.commits.push(bit);
        else if (header.type === 'tree') roots.trees.push(bit);
        else this.reach(bit, BLOB);
        break;
      }
    }
    return roots;
  }

  // ---- the commits ----

  /** Every commit the tips reach, from the commit-graph where it lists them, from their objects otherwise. */
  private async enumerateCommits(tipBits: number[]): Promise<void> {
    const graph = await this.repo.commitGraph();
    const commitBits: number[] = [];
    const treeBits: number[] = [];
    const times: number[] = [];
    const parentCounts: number[] = [];
    const parentBits: number[] = [];
    const pending = [...tipBits];
    while (pending.length) {
      const bit = pending.pop()!;
      if (this.commitOf[bit] >= 0) continue;
      const node = await this.commitNode(graph, this.pack.oidOf(bit));
      const treeBit = this.pack.bitOf(node.tree);
      if (treeBit < 0) throw new NotInPack();
      this.commitOf[bit] = commitBits.length;
      commitBits.push(bit);
      treeBits.push(treeBit);
      times.push(node.time);
      parentCounts.push(node.parents.length);
      for (const parent of node.parents) {
        const parentBit = this.pack.bitOf(parent);
        if (parentBit < 0) throw new NotInPack();
        parentBits.push(parentBit);
        if (this.commitOf[parentBit] < 0) pending.push(parentBit);
      }
      if ((commitBits.length & 1023) === 0) await this.pace();
    }
    const count = commitBits.length;
    this.commitBits = Uint32Array.from(commitBits);
    this.treeBits = Uint32Array.from(treeBits);
    this.times = Float64Array.from(times);
    this.parentStarts = new Uint32Array(count + 1);
    for (let commit = 0; commit < count; commit++) this.parentStarts[commit + 1] = this.parentStarts[commit] + parentCounts[commit];
    this.parents = Uint32Array.from(parentBits, (bit) => this.commitOf[bit]);
  }

  private async commitNode(graph: CommitGraph | null, oid: string): Promise<CommitNode> {
    const listed = graph?.node(oid);
    if (listed) return listed;
    const object = this.objects.readInMemory(oid) ?? (await this.objects.read(oid));
    if (object.type !== 'commit') throw new CorruptObjectError(`${oid} is a ${object.type}, not a commit`);
    const commit = parseCommit(oid, object.content);
    return { oid, tree: commit.tree, parents: commit.parents, time: commit.committer.timestamp };
  }

  /** Each commit's generation (1 + the highest of its parents'): an ancestor's is always lower. */
  private async computeGenerations(): Promise<void> {
    const { parentStarts, parents } = this;
    const count = this.commitBits.length;
    const generations = new Uint32Array(count);
    const stack: number[] = [];
    let steps = 0;
    for (let start = 0; start < count; start++) {
      if (generations[start]) continue;
      stack.push(start);
      while (stack.length) {
        const commit = stack[stack.length - 1];
        if (generations[commit]) {
          stack.pop();
          continue;
        }
        let highest = 0;
        let ready = true;
        for (let at = parentStarts[commit]; at < parentStarts[commit + 1]; at++) {
          const generation = generations[parents[at]];
          if (!generation) {
            ready = false;
            stack.push(parents[at]);
          } else if (generation > highest) highest = generation;
        }
        if (ready) {
          generations[commit] = highest + 1;
          stack.pop();
        }
        if ((++steps & 4095) === 0) await this.pace();
      }
    }
    this.generations = generations;
  }

  /** The commits to give a bitmap (see the top of this file), oldest generation first: the order they are computed and written in. */
  private select(tipCommitBits: number[]): number[] {
    const { times, generations, parentStarts } = this;
    const count = this.commitBits.length;
    const selected = new Uint8Array(count);
    const tipCommits = [...new Set(tipCommitBits.map((bit) => this.commitOf[bit]))].sort((a, b) => times[b] - times[a]);
    for (const commit of tipCommits.slice(0, MAX_ENTRIES)) selected[commit] = 1;
    let chosen = Math.min(tipCommits.length, MAX_ENTRIES);
    const newestFirst = Uint32Array.from({ length: count }, (_, commit) => commit).sort(
      (a, b) => times[b] - times[a] || generations[b] - generations[a],
    );
    for (let at = 0; chosen < MAX_ENTRIES; ) {
      const spacing = spacingAt(at);
      if (at + spacing >= count) break;
      let pick = newestFirst[at + spacing];
      if (spacing > 0) {
        for (let offset = 0; offset <= spacing; offset++) {
          const commit = newestFirst[at + offset];
          if (selected[commit]) {
            pick = commit;
            break;
          }
          if (parentStarts[commit + 1] - parentStarts[commit] > 1) pick = commit;
        }
      }
      if (!selected[pick]) {
        selected[pick] = 1;
        chosen += 1;
      }
      at += spacing + 1;
    }
    const order: number[] = [];
    for (let commit = 0; commit < count; commit++) if (selected[commit]) order.push(commit);
    return order.sort((a, b) => generations[a] - generations[b]);
  }

  // ---- the sets ----

  /** A chosen commit's set, computed over the entries before it, then encoded: XORed with an earlier entry's when that is smaller. */
  private async computeEntry(commit: number): Promise<void> {
    const bits = new Uint32Array(this.words);
    const ored = await this.fill(bits, [this.commitBits[commit]], [], true);
    const entry = this.entries.length;
    const size = countBits(bits);
    // The ancestors' entries ORed in are subsets of it (the largest leaves the least); the previous entry is most often the nearest.
    const candidates = ored
      .filter((earlier) => entry - earlier <= MAX_XOR_OFFSET)
      .sort((a, b) => this.entries[b].size - this.entries[a].size)
      .slice(0, 2);
    if (entry > 0 && !candidates.includes(entry - 1)) candidates.push(entry - 1);
    let [best, trial] = this.encodings;
    let bestLength = encodeEwah(bits, best);
    let xorWith = -1;
    const { scratch } = this;
    for (const candidate of candidates) {
      const base = this.entryBits(candidate);
      for (let word = 0; word < scratch.length; word++) scratch[word] = bits[word] ^ base[word];
      const length = encodeEwah(scratch, trial);
      if (length < bestLength) {
        [best, trial] = [trial, best];
        bestLength = length;
        xorWith = candidate;
      }
    }
    // A copy of its own size: what is kept until the file is written.
    const encoded = Buffer.from(best.subarray(0, bestLength));
    this.entries.push({ commit, xorWith, encoded, size });
    this.entryOf[commit] = entry;
    this.keep(entry, bits);
  }

  /**
   * Adds to `bits` what `commitBits` and `treeBits` reach, stopping at what it holds already: commits newest
   * generation first, so that a chosen commit's entry (when `useEntries`) is ORed in before the history it covers
   * is walked; then the trees of the commits walked. The entries ORed in.
   */
  private async fill(bits: ObjectBits, commitBits: number[], treeBits: number[], useEntries: boolean): Promise<number[]> {
    const { generations, parentStarts, parents, queuedIn } = this;
    const walk = ++this.walk;
    const queue = new GenerationQueue(generations);
    for (const bit of commitBits) {
      const commit = this.commitOf[bit];
      if (queuedIn[commit] === walk) continue;
      queuedIn[commit] = walk;
      queue.push(commit);
    }
    const ored: number[] = [];
    const trees = [...treeBits];
    let steps = 0;
    while (queue.size) {
      const commit = queue.pop();
      const bit = this.commitBits[commit];
      if (hasBit(bits, bit)) continue;
      const entry = useEntries ? this.entryOf[commit] : -1;
      if (entry >= 0) {
        const covered = this.entryBits(entry);
        for (let word = 0; word < bits.length; word++) bits[word] |= covered[word];
        ored.push(entry);
        continue;
      }
      setBit(bits, bit);
      this.reach(bit, COMMIT);
      trees.push(this.treeBits[commit]);
      for (let at = parentStarts[commit]; at < parentStarts[commit + 1]; at++) {
        if (queuedIn[parents[at]] === walk) continue;
        queuedIn[parents[at]] = walk;
        queue.push(parents[at]);
      }
      if ((++steps & 255) === 0) await this.pace();
    }
    await this.walkTrees(bits, trees);
    return ored;
  }

  /** Adds the trees and what they hold (submodules' commits aside: another repository's), stopping at trees in `bits`. */
  private async walkTrees(bits: ObjectBits, pending: number[]): Promise<void> {
    while (pending.length) {
      const tree = pending.pop()!;
      if (hasBit(bits, tree)) continue;
      setBit(bits, tree);
      this.reach(tree, TREE);
      await this.pace();
      for (const entry of this.treeEntries.get(tree) ?? (await this.readTreeEntries(tree))) {
        const bit = entry >>> 1;
        if (entry & 1) {
          if (!hasBit(bits, bit)) pending.push(bit);
        } else {
          setBit(bits, bit);
          this.reach(bit, BLOB);
        }
      }
    }
  }

  /**
   * A tree's entries as bits (a tree's twice plus one, a blob's twice), kept: walks of branches that left the
   * history between two chosen commits read the same trees again.
   */
  private async readTreeEntries(tree: number): Promise<Uint32Array> {
    const oid = this.pack.oidOf(tree);
    const object = this.objects.readInMemory(oid) ?? (await this.objects.read(oid));
    if (object.type !== 'tree') throw new CorruptObjectError(`${oid} is a ${object.type}, not a tree`);
    const { content } = object;
    const entries: number[] = [];
    // Entries read in place (`<mode> <name>\0<20-byte ID>`): no string for each, no call out of JavaScript.
    for (let at = 0; at < content.length; ) {
      let space = at;
      while (space < content.length && content[space] !== 0x20) space++;
      let nul = space + 1;
      while (nul < content.length && content[nul] !== 0) nul++;
      if (nul + 21 > content.length) throw new CorruptObjectError(`a tree entry of ${oid} is cut short`);
      const kind = entryKind(content, at, space);
      at = nul + 21;
      if (kind === SUBMODULE) continue;
      const bit = this.pack.bitAt(content, nul + 1);
      if (bit < 0) throw new NotInPack();
      entries.push(bit * 2 + (kind === TREE ? 1 : 0));
    }
    const kept = Uint32Array.from(entries);
    if (this.treeEntriesKept + kept.length > KEPT_TREE_ENTRIES) {
      this.treeEntries.clear();
      this.treeEntriesKept = 0;
    }
    this.treeEntries.set(tree, kept);
    this.treeEntriesKept += kept.length;
    return kept;
  }

  /** Notes an object's type as a walk meets it. */
  private reach(bit: number, type: number): void {
    if (!this.typeOf[bit]) this.typeOf[bit] = type;
  }

  /** An entry's set, decoded (through its XOR chain) when it is not kept; not to be changed. */
  private entryBits(entry: number): ObjectBits {
    const kept = this.kept.get(entry);
    if (kept) {
      this.kept.delete(entry);
      this.kept.set(entry, kept);
      return kept;
    }
    const chain: number[] = [];
    let base: ObjectBits | undefined;
    for (let at = entry; at >= 0 && !base; at = this.entries[at].xorWith) {
      base = this.kept.get(at);
      if (!base) chain.push(at);
    }
    for (let index = chain.length - 1; index >= 0; index--) {
      const bits = decodeEwah(this.entries[chain[index]].encoded, this.words);
      if (base) for (let word = 0; word < bits.length; word++) bits[word] ^= base[word];
      this.keep(chain[index], bits);
      base = bits;
    }
    return base!;
  }

  private keep(entry: number, bits: ObjectBits): void {
    this.kept.set(entry, bits);
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= this.maxKept) break;
      this.kept.delete(oldest);
    }
  }

  // ---- the file ----

  /** The four type bitmaps (as git's, over every object of the pack: those no tip reaches are typed from the pack). */
  private async typeBitmaps(): Promise<Buffer[]> {
    const byType = [COMMIT, TREE, BLOB, TAG].map(() => new Uint32Array(this.words));
    for (let bit = 0; bit < this.pack.count; bit++) {
      let type = this.typeOf[bit];
      if (!type) {
        await this.pace();
        const header = await this.objects.header(this.pack.oidOf(bit));
        if (!header) throw new CorruptObjectError(`${this.pack.oidOf(bit)} is in the pack's index but cannot be read`);
        type = { commit: COMMIT, tree: TREE, blob: BLOB, tag: TAG }[header.type];
      }
      setBit(byType[type - 1], bit);
    }
    return byType.map((bits) => Buffer.from(this.encodings[0].subarray(0, encodeEwah(bits, this.encodings[0]))));
  }

  /** Header, type bitmaps, entries (the commit's index position, the XOR offset, flags, the set), and the SHA-1 of it all. */
  private contents(typeBitmaps: Buffer[]): Buffer[] {
    const header = Buffer.alloc(32);
    header.writeUInt32BE(BITMAP_SIGNATURE, 0);
    header.writeUInt16BE(BITMAP_VERSION, 4);
    header.writeUInt16BE(BITMAP_FULL_DAG, 6);
    header.writeUInt32BE(this.entries.length, 8);
    this.pack.packChecksum.copy(header, 12);
    const pieces = [header, ...typeBitmaps];
    this.entries.forEach(({ commit, xorWith, encoded }, entry) => {
      const head = Buffer.alloc(6);
      head.writeUInt32BE(this.pack.positionOfBit[this.commitBits[commit]], 0);
      head[4] = xorWith < 0 ? 0 : entry - xorWith;
      pieces.push(head, encoded);
    });
    const hash = createHash('sha1');
    for (const piece of pieces) hash.update(piece);
    pieces.push(hash.digest());
    return pieces;
  }

  /** Stops once aborted; lets the event loop turn after a while of work done without waiting. */
  private async pace(): Promise<void> {
    this.signal?.throwIfAborted();
    if (performance.now() - this.turnedAt < TURN_MS) return;
    await nextTurn();
    this.turnedAt = performance.now();
    this.signal?.throwIfAborted();
  }
}

/** git's next_commit_index: how many commits (newest first) to pass over after the one at `at`. */
function spacingAt(at: number): number {
  if (at <= MUST_REGION) return 0;
  if (at <= MIN_REGION) return Math.min(at - MUST_REGION, MIN_SPACING);
  return Math.max(Math.min(at - MIN_REGION, MAX_SPACING), MIN_SPACING);
}

const SUBMODULE = 0;

/** What a tree entry's mode (bytes [start, end) of the tree) makes it: a tree (`40000`), a submodule (`160000`), or a blob. */
function entryKind(content: Buffer, start: number, end: number): number {
  const length = end - start;
  if ((length === 5 && content[start] === 0x34) || (length === 6 && content[start] === 0x30 && content[start + 1] === 0x34)) return TREE;
  if (length === 6 && content[start] === 0x31 && content[start + 1] === 0x36) return SUBMODULE;
  return BLOB;
}

/** Commits by generation, the highest first: a commit comes out before any of its ancestors. */
class GenerationQueue {
  private readonly heap: number[] = [];

  constructor(private readonly generations: Uint32Array) {}

  get size(): number {
    return this.heap.length;
  }

  push(commit: number): void {
    const { heap, generations } = this;
    let at = heap.push(commit) - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (generations[heap[parent]] >= generations[commit]) break;
      heap[at] = heap[parent];
      at = parent;
    }
    heap[at] = commit;
  }

  pop(): number {
    const { heap, generations } = this;
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length) {
      let at = 0;
      for (;;) {
        let child = at * 2 + 1;
        if (child >= heap.length) break;
        if (child + 1 < heap.length && generations[heap[child + 1]] > generations[heap[child]]) child += 1;
        if (generations[heap[child]] <= generations[last]) break;
        heap[at] = heap[child];
        at = child;
      }
      heap[at] = last;
    }
    return top;
  }
}

/** How many objects a set holds. */
function countBits(bits: ObjectBits): number {
  let count = 0;
  for (let word = 0; word < bits.length; word++) {
    let rest = bits[word] - ((bits[word] >>> 1) & 0x55555555);
    rest = (rest & 0x33333333) + ((rest >>> 2) & 0x33333333);
    count += (((rest + (rest >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return count;
}

/** The most bytes an EWAH encoding of a set of `words` 32-bit words takes: every word literal, behind run-length words. */
const ewahBound = (words: number) => 8 + (words / 2 + Math.ceil(words / 2 / MAX_LITERALS) + 1) * 8 + 4;

/**
 * A set EWAH-encoded as git writes it (ewah_serialize) into `out` (ewahBound long): the bit count (to the last
 * non-empty 64-bit word), the word count, the words (big-endian: run-length words, each followed by its literal
 * words) and the position of the last run-length word. A run-length word: bit 0 the running bit, bits 1-32 how
 * many words repeat it, bits 33-63 how many literal words follow. An empty set is git's: one word of zeros
 * repeated once. The length written.
 */
function encodeEwah(bits: ObjectBits, out: Buffer): number {
  let used = bits.length / 2;
  while (used > 0 && bits[used * 2 - 1] === 0 && bits[used * 2 - 2] === 0) used -= 1;
  const clean = (word: number) =>
    (bits[word * 2] === 0 && bits[word * 2 + 1] === 0) || (bits[word * 2] === 0xffffffff && bits[word * 2 + 1] === 0xffffffff);
  let written = 0;
  let marker = 0;
  const writeMarker = (at: number, runningBit: number, run: number, literals: number) => {
    out.writeUInt32BE(((literals << 1) | (run >= 2 ** 31 ? 1 : 0)) >>> 0, 8 + at * 8);
    out.writeUInt32BE(((run << 1) | runningBit) >>> 0, 8 + at * 8 + 4);
  };
  if (used === 0) {
    writeMarker(0, 0, 1, 0);
    written = 1;
  }
  for (let word = 0; word < used; ) {
    marker = written++;
    let runningBit = 0;
    let run = 0;
    if (clean(word)) {
      runningBit = bits[word * 2] & 1;
      const repeated = bits[word * 2];
      while (word < used && run < MAX_RUN && bits[word * 2] === repeated && bits[word * 2 + 1] === repeated) {
        run += 1;
        word += 1;
      }
    }
    let literals = 0;
    while (word < used && literals < MAX_LITERALS && !clean(word)) {
      out.writeUInt32BE(bits[word * 2 + 1], 8 + written * 8);
      out.writeUInt32BE(bits[word * 2], 8 + written * 8 + 4);
      written += 1;
      literals += 1;
      word += 1;
    }
    writeMarker(marker, runningBit, run, literals);
  }
  out.writeUInt32BE(Math.max(used, 1) * 64, 0);
  out.writeUInt32BE(written, 4);
  out.writeUInt32BE(marker, 8 + written * 8);
  return 8 + written * 8 + 4;
}

/** A set from its EWAH encoding (as encodeEwah writes it), `words` 32-bit words long. */
function decodeEwah(encoded: Buffer, words: number): ObjectBits {
  const bits = new Uint32Array(words);
  const count = encoded.readUInt32BE(4);
  let word = 0;
  for (let read = 0; read < count; ) {
    const high = encoded.readUInt32BE(8 + read * 8);
    const low = encoded.readUInt32BE(8 + read * 8 + 4);
    read += 1;
    const run = (low >>> 1) + (high & 1) * 2 ** 31;
    const literals = high >>> 1;
    if (low & 1) bits.fill(0xffffffff, word * 2, (word + run) * 2);
    word += run;
    for (let literal = 0; literal < literals; literal++, read++, word++) {
      bits[word * 2 + 1] = encoded.readUInt32BE(8 + read * 8);
      bits[word * 2] = encoded.readUInt32BE(8 + read * 8 + 4);
    }
  }
  return bits;
}

/**
 * The file written beside its place under git's own temporary name for it (`tmp_bitmap_*`), flushed to disk (git's
 * reader does not check a bitmap's checksum: a damaged one would send wrong objects), and renamed into place.
 */
async function writeAtomically(path: string, pieces: Buffer[], signal?: AbortSignal): Promise<void> {
  const temporary = join(dirname(path), `tmp_bitmap_${randomBytes(6).toString('hex')}`);
  const handle = await open(temporary, 'wx');
  try {
    try {
      await handle.writeFile(pieces);
      await handle.sync();
    } finally {
      await handle.close();
    }
    signal?.throwIfAborted();
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
