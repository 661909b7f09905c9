import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listReferences } from './refs.js';
import type { Repository } from './repository.js';

/**
 * git's commit-graph file (`objects/info/commit-graph`, gitformat-commit-graph): every commit's tree, parents,
 * committer time and generation in fixed-size records, so that a walk over history reads no commit object.
 * git writes it on `git gc`, forgekit after an import or a fork (writeCommitGraph), and both read the other's; a
 * commit it does not list is read from its object as before (the file may be older than the newest commits,
 * never wrong about the ones it lists: commits do not change).
 */

/** What a history walk needs of a commit. */
export interface CommitNode {
  oid: string;
  tree: string;
  parents: readonly string[];
  /** The committer's time, in seconds since the epoch. */
  time: number;
}

const SIGNATURE = 0x43475048; // 'CGPH'
const OID_BYTES = 20;
const NO_PARENT = 0x70000000;
const EXTRA_EDGES = 0x80000000;
const LAST_EDGE = 0x80000000;
/** Lookups by binary search before a graph is indexed by ID in a map. */
const LOOKUPS_BEFORE_INDEX = 256;
/** Graphs of up to this many commits are indexed by ID in a map (about 100 bytes a commit). */
const MAX_INDEXED = 500_000;
/** A graph larger than this is not read whole into memory: walks read the objects instead. */
const MAX_GRAPH_BYTES = 256 * 1024 * 1024;

/** Commits a graph's writing handles between two turns of the event loop: about 10 ms of work on a loaded machine (2,048 held it 40 ms). */
const YIELD_EVERY = 512;
const letOthersRun = () => new Promise<void>((resolve) => setImmediate(resolve));
/** The most a topological level (git's generation number v1) holds: 30 bits. */
const MAX_GENERATION = 0x3fffffff;

const CHUNKS = { fanout: 0x4f494446, lookup: 0x4f49444c, data: 0x43444154, edges: 0x45444745 } as const; // OIDF, OIDL, CDAT, EDGE

export class CommitGraph {
  private positions?: Map<string, number>;
  private lookups = 0;

  private constructor(
    private readonly bytes: Buffer,
    private readonly fanout: number,
    private readonly lookup: number,
    private readonly data: number,
    private readonly edges: number | null,
    readonly count: number,
  ) {}

  /** The repository's commit-graph; null when it has none, or one this reader does not take (split, SHA-256, damaged). */
  static async open(gitdir: string): Promise<CommitGraph | null> {
    const bytes = await readFile(join(gitdir, 'objects', 'info', 'commit-graph')).catch(() => null);
    if (!bytes || bytes.length > MAX_GRAPH_BYTES || bytes.length < 8 + 12 + OID_BYTES) return null;
    // Version 1, SHA-1, no base graphs.
    if (bytes.readUInt32BE(0) !== SIGNATURE || bytes[4] !== 1 || bytes[5] !== 1 || bytes[7] !== 0) return null;
    const chunkCount = bytes[6];
    const offsets = new Map<number, number>();
    for (let index = 0; index < chunkCount; index++) {
      const entry = 8 + index * 12;
      if (entry + 12 > bytes.length) return null;
      offsets.set(bytes.readUInt32BE(entry), Number(bytes.readBigUInt64BE(entry + 4)));
    }
    const [fanout, lookup, data] = [offsets.get(CHUNKS.fanout), offsets.get(CHUNKS.lookup), offsets.get(CHUNKS.data)];
    if (fanout === undefined || lookup === undefined || data === undefined || fanout + 256 * 4 > bytes.length) return null;
    const count = bytes.readUInt32BE(fanout + 255 * 4);
    const end = bytes.length - OID_BYTES;
    if (lookup + count * OID_BYTES > end || data + count * (OID_BYTES + 16) > end) return null;
    return new CommitGraph(bytes, fanout, lookup, data, offsets.get(CHUNKS.edges) ?? null, count);
  }

  /** The commit's record; null when the graph does not list it. */
  node(oid: string): CommitNode | null {
    const position = this.position(oid);
    return position === null ? null : this.nodeAt(position, oid);
  }

  private position(oid: string): number | null {
    if (oid.length !== 40) return null;
    if (this.positions) return this.positions.get(oid) ?? null;
    // Once lookups are many (a walk commit by commit), every ID as text once, rather than a binary search over
    // bytes each time; a few (the starts of a walk over the records) are not worth it.
    if (++this.lookups > LOOKUPS_BEFORE_INDEX && this.count <= MAX_INDEXED) {
      this.positions = new Map(Array.from({ length: this.count }, (_, position) => [this.oidAt(position), position]));
      return this.positions.get(oid) ?? null;
    }
    const wanted = Buffer.from(oid, 'hex');
    const first = wanted[0];
    let low = first === 0 ? 0 : this.bytes.readUInt32BE(this.fanout + (first - 1) * 4);
    let high = this.bytes.readUInt32BE(this.fanout + first * 4);
    while (low < high) {
      const middle = (low + high) >>> 1;
      const start = this.lookup + middle * OID_BYTES;
      const order = wanted.compare(this.bytes, start, start + OID_BYTES);
      if (order === 0) return middle;
      if (order > 0) low = middle + 1;
      else high = middle;
    }
    return null;
  }

  /**
   * The history of `starts` in `git log` order (committer time, newest first; equal times in the order met),
   * walked over the graph's records alone; null when a commit on the way is not listed (then the objects are walked).
   */
  history(starts: readonly string[], firstParent = false): { oid: string; time: number }[] | null {
    const queued = new Uint8Array(this.count);
    const heap: number[] = [];
    const order: number[] = [];
    let counter = 0;
    const before = (a: number, b: number) =>
      this.timeAt(heap[a]) > this.timeAt(heap[b]) || (this.timeAt(heap[a]) === this.timeAt(heap[b]) && order[a] < order[b]);
    const swap = (a: number, b: number) => {
      [heap[a], heap[b]] = [heap[b], heap[a]];
      [order[a], order[b]] = [order[b], order[a]];
    };
    const push = (position: number) => {
      queued[position] = 1;
      heap.push(position);
      order.push(counter++);
      for (let index = heap.length - 1; index > 0; ) {
        const parent = (index - 1) >> 1;
        if (!before(index, parent)) break;
        swap(index, parent);
        index = parent;
      }
    };
    for (const start of starts) {
      const position = this.position(start);
      if (position === null) return null;
      if (!queued[position]) push(position);
    }
    const walked: { oid: string; time: number }[] = [];
    while (heap.length) {
      const top = heap[0];
      const last = heap.length - 1;
      swap(0, last);
      heap.pop();
      order.pop();
      for (let index = 0; ; ) {
        const left = 2 * index + 1;
        let first = index;
        if (left < heap.length && before(left, first)) first = left;
        if (left + 1 < heap.length && before(left + 1, first)) first = left + 1;
        if (first === index) break;
        swap(index, first);
        index = first;
      }
      walked.push({ oid: this.oidAt(top), time: this.timeAt(top) });
      const parents = this.parentPositions(top);
      for (const parent of firstParent ? parents.slice(0, 1) : parents) if (!queued[parent]) push(parent);
    }
    return walked;
  }

  private timeAt(position: number): number {
    const record = this.data + position * (OID_BYTES + 16) + OID_BYTES + 8;
    return (this.bytes.readUInt32BE(record) & 0x3) * 2 ** 32 + this.bytes.readUInt32BE(record + 4);
  }

  private parentPositions(position: number): number[] {
    const record = this.data + position * (OID_BYTES + 16) + OID_BYTES;
    const first = this.bytes.readUInt32BE(record);
    const second = this.bytes.readUInt32BE(record + 4);
    const parents: number[] = [];
    if (first !== NO_PARENT) parents.push(this.checked(first));
    if (second === NO_PARENT) return parents;
    if (!(second & EXTRA_EDGES)) {
      parents.push(this.checked(second));
      return parents;
    }
    // An octopus merge: its second and later parents listed in the edges chunk, the last one marked.
    if (this.edges === null) throw new Error('the commit-graph lacks the edges it refers to');
    for (let edge = this.edges + (second & ~EXTRA_EDGES) * 4; ; edge += 4) {
      const value = this.bytes.readUInt32BE(edge);
      parents.push(this.checked(value & ~LAST_EDGE));
      if (value & LAST_EDGE) return parents;
    }
  }

  private checked(position: number): number {
    if (position >= this.count) throw new Error('the commit-graph names a parent it does not list');
    return position;
  }

  private oidAt(position: number): string {
    if (position >= this.count) throw new Error('the commit-graph names a parent it does not list');
    const start = this.lookup + position * OID_BYTES;
    return this.bytes.toString('hex', start, start + OID_BYTES);
  }

  private nodeAt(position: number, oid: string): CommitNode {
    const record = this.data + position * (OID_BYTES + 16);
    const tree = this.bytes.toString('hex', record, record + OID_BYTES);
    const parents = this.parentPositions(position).map((parent) => this.oidAt(parent));
    return Object.freeze({ oid, tree, parents: Object.freeze(parents), time: this.timeAt(position) });
  }
}

/** Commits already read elsewhere (by an import's pack indexer), looked up by ID before their objects are. */
export interface KnownCommits {
  node(oid: string): CommitNode | undefined;
}

/**
 * Writes the repository's commit-graph: every commit reachable from its references and HEAD (walked through the
 * graph it has, if any, and the objects), with git's topological levels as generations, in the version git reads
 * (1, SHA-1, no split). Written beside its place and renamed in, so that readers see the old file or the new one.
 */
export async function writeCommitGraph(repo: Repository, known?: KnownCommits): Promise<void> {
  const starts = new Set<string>();
  for (const oid of (await listReferences(repo.gitdir, 'refs/')).values()) {
    const commit = await repo.peelToCommit(oid);
    if (commit) starts.add(commit);
  }
  const head = await repo.resolveCommit('HEAD').catch(() => null);
  if (head) starts.add(head);
  if (!starts.size) return;

  const nodes = new Map<string, CommitNode>();
  const pending = [...starts];
  while (pending.length) {
    const oid = pending.pop()!;
    if (nodes.has(oid)) continue;
    if (nodes.size % YIELD_EVERY === YIELD_EVERY - 1) await letOthersRun();
    const node = known?.node(oid) ?? (await repo.commitNode(oid));
    nodes.set(oid, node);
    for (const parent of node.parents) if (!nodes.has(parent)) pending.push(parent);
  }

  // Topological levels: one more than the highest of the parents', children after parents (no recursion: histories are deep).
  const generation = new Map<string, number>();
  for (const start of nodes.keys()) {
    const stack = [start];
    while (stack.length) {
      const oid = stack[stack.length - 1];
      if (generation.has(oid)) {
        stack.pop();
        continue;
      }
      const waiting = nodes.get(oid)!.parents.filter((parent) => !generation.has(parent));
      if (waiting.length) {
        stack.push(...waiting);
        continue;
      }
      stack.pop();
      const level = Math.max(0, ...nodes.get(oid)!.parents.map((parent) => generation.get(parent)!)) + 1;
      generation.set(oid, Math.min(level, MAX_GENERATION));
      if (generation.size % YIELD_EVERY === 0) await letOthersRun();
    }
  }

  const oids = [...nodes.keys()].sort();
  const position = new Map(oids.map((oid, index) => [oid, index]));
  const edges: number[] = [];
  const data = Buffer.alloc(oids.length * (OID_BYTES + 16));
  for (const [index, oid] of oids.entries()) {
    if (index % YIELD_EVERY === YIELD_EVERY - 1) await letOthersRun();
    const node = nodes.get(oid)!;
    const record = index * (OID_BYTES + 16);
    data.write(node.tree, record, 'hex');
    const parents = node.parents.map((parent) => position.get(parent)!);
    data.writeUInt32BE(parents[0] ?? NO_PARENT, record + OID_BYTES);
    let second = parents[1] ?? NO_PARENT;
    if (parents.length > 2) {
      second = (EXTRA_EDGES | edges.length) >>> 0;
      parents.slice(1).forEach((parent, at, rest) => {
        edges.push(at === rest.length - 1 ? (parent | LAST_EDGE) >>> 0 : parent);
      });
    }
    data.writeUInt32BE(second, record + OID_BYTES + 4);
    const time = Math.max(0, Math.min(node.time, 2 ** 34 - 1));
    data.writeUInt32BE(((generation.get(oid)! << 2) | Math.floor(time / 2 ** 32)) >>> 0, record + OID_BYTES + 8);
    data.writeUInt32BE(time % 2 ** 32, record + OID_BYTES + 12);
  }
  const fanout = Buffer.alloc(256 * 4);
  let count = 0;
  for (let byte = 0; byte < 256; byte++) {
    while (count < oids.length && parseInt(oids[count].slice(0, 2), 16) <= byte) count++;
    fanout.writeUInt32BE(count, byte * 4);
  }
  const lookup = Buffer.from(oids.join(''), 'hex');
  const edgeBytes = Buffer.alloc(edges.length * 4);
  edges.forEach((edge, index) => {
    edgeBytes.writeUInt32BE(edge, index * 4);
  });

  const chunks: [number, Buffer][] = [
    [CHUNKS.fanout, fanout],
    [CHUNKS.lookup, lookup],
    [CHUNKS.data, data],
    ...(edges.length ? [[CHUNKS.edges, edgeBytes] as [number, Buffer]] : []),
  ];
  const header = Buffer.alloc(8 + (chunks.length + 1) * 12);
  header.writeUInt32BE(SIGNATURE, 0);
  header.set([1, 1, chunks.length, 0], 4);
  let offset = header.length;
  chunks.forEach(([id, bytes], index) => {
    header.writeUInt32BE(id, 8 + index * 12);
    header.writeBigUInt64BE(BigInt(offset), 8 + index * 12 + 4);
    offset += bytes.length;
  });
  header.writeBigUInt64BE(BigInt(offset), 8 + chunks.length * 12 + 4);
  const body = Buffer.concat([header, ...chunks.map(([, bytes]) => bytes)]);
  const file = Buffer.concat([body, createHash('sha1').update(body).digest()]);

  const directory = join(repo.gitdir, 'objects', 'info');
  // Only `info` is made: a repository removed meanwhile is not made again by its index.
  await mkdir(directory).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const temporary = join(directory, `commit-graph.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(temporary, file, { mode: 0o444 });
    await rename(temporary, join(directory, 'commit-graph'));
  } finally {
    await rm(temporary, { force: true });
  }
}
