import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * git's commit-graph file (`objects/info/commit-graph`, gitformat-commit-graph): every commit's tree, parents,
 * committer time and generation in fixed-size records, so that a walk over history reads no commit object.
 * git writes it on `git gc`; a commit it does not list is read from its object as before (the file may be older
 * than the newest commits, never wrong about the ones it lists: commits do not change).
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
/** Graphs of up to this many commits are indexed by ID in a map (about 100 bytes a commit). */
const MAX_INDEXED = 500_000;
/** A graph larger than this is not read whole into memory: walks read the objects instead. */
const MAX_GRAPH_BYTES = 256 * 1024 * 1024;

const CHUNKS = { fanout: 0x4f494446, lookup: 0x4f49444c, data: 0x43444154, edges: 0x45444745 } as const; // OIDF, OIDL, CDAT, EDGE

export class CommitGraph {
  private positions?: Map<string, number>;

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
    if (this.count <= MAX_INDEXED) {
      // Every ID as text once, for lookups without a binary search over bytes each time.
      this.positions ??= new Map(Array.from({ length: this.count }, (_, position) => [this.oidAt(position), position]));
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

  private oidAt(position: number): string {
    if (position >= this.count) throw new Error('the commit-graph names a parent it does not list');
    const start = this.lookup + position * OID_BYTES;
    return this.bytes.toString('hex', start, start + OID_BYTES);
  }

  private nodeAt(position: number, oid: string): CommitNode {
    const record = this.data + position * (OID_BYTES + 16);
    const tree = this.bytes.toString('hex', record, record + OID_BYTES);
    const first = this.bytes.readUInt32BE(record + OID_BYTES);
    const second = this.bytes.readUInt32BE(record + OID_BYTES + 4);
    const parents: string[] = [];
    if (first !== NO_PARENT) parents.push(this.oidAt(first));
    if (second !== NO_PARENT) {
      if (second & EXTRA_EDGES) {
        // An octopus merge: its second and later parents listed in the edges chunk, the last one marked.
        if (this.edges === null) throw new Error('the commit-graph lacks the edges it refers to');
        for (let edge = this.edges + (second & ~EXTRA_EDGES) * 4; ; edge += 4) {
          const value = this.bytes.readUInt32BE(edge);
          parents.push(this.oidAt(value & ~LAST_EDGE));
          if (value & LAST_EDGE) break;
        }
      } else {
        parents.push(this.oidAt(second));
      }
    }
    // The low 34 bits of the last 8 bytes: the commit time (the high 30 bits are its generation).
    const high = this.bytes.readUInt32BE(record + OID_BYTES + 8);
    const low = this.bytes.readUInt32BE(record + OID_BYTES + 12);
    const time = (high & 0x3) * 2 ** 32 + low;
    return Object.freeze({ oid, tree, parents: Object.freeze(parents), time });
  }
}
