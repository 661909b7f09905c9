import * as crypto from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import * as zlib from 'node:zlib';
import type { CommitNode } from './commit-graph.js';
import { applyDelta, CorruptObjectError } from './object-reader.js';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workers.js';

// A received pack's index (git's `index-pack`): every object's ID, offset and CRC-32, written as git's `.idx`
// version 2, built in a worker thread so that an import never holds the event loop while it inflates the pack.

/** A pack that cannot be indexed: damaged, cut short, or thin (deltas against objects it does not hold). */
export class PackIndexError extends Error {
  override readonly name = 'PackIndexError';
}

/** What indexing a pack gives: its checksum (the name of its files), the `.idx` bytes, how many objects it holds. */
export interface IndexedPack {
  checksum: string;
  index: Buffer;
  count: number;
  /** The IDs asked for (`wanted`) that the pack does not hold. */
  missing: string[];
  /** How many of its entries are deltas against an entry at an offset, and against an object by ID. */
  deltas: { ofs: number; ref: number };
  /**
   * Its commits' trees, parents and committer times, read as they went by (PackedCommits reads them): the IDs
   * sorted (20 bytes each), each one's record's offset (4 bytes each), then the records: tree (20 bytes), time
   * (8, a double), the number of parents (4), the parents (20 each). A commit whose header is not the plain
   * form is left out (read from its object instead).
   */
  commits: Buffer;
}

/**
 * The `.idx` (version 2) of a whole pack, as `git index-pack` writes it, byte for byte; `wanted` IDs it lacks are
 * listed in `missing`. Throws on a damaged or thin pack (a REF_DELTA to an object outside it).
 * Runs in a worker (index-pack-worker.ts, kept by indexPackInWorker) for a large pack.
 */
export function indexPack(pack: Buffer, wanted: string[] = []): IndexedPack {
  const fail = (message: string): never => {
    throw new PackIndexError(message);
  };
  const TYPES = ['', 'commit', 'tree', 'blob', 'tag'];
  const OFS_DELTA = 6;
  const REF_DELTA = 7;
  const MAX_DEPTH = 10_000;
  /** What inflated objects are kept from the first pass for the second (bases, deltas), in bytes. */
  const KEPT_BYTES = 128 * 1024 * 1024;

  if (pack.length < 32 || pack.toString('latin1', 0, 4) !== 'PACK') fail('not a pack');
  const version = pack.readUInt32BE(4);
  if (version !== 2 && version !== 3) fail(`pack version ${version} is not supported`);
  const count = pack.readUInt32BE(8);
  const end = pack.length - 20;
  const checksum = pack.subarray(end);
  if (!crypto.createHash('sha1').update(pack.subarray(0, end)).digest().equals(checksum))
    fail("the pack's checksum does not match its content");

  // Each entry: where it starts and its data starts, where it ends, its type (of the object, or the delta's), its base.
  const offsets = new Float64Array(count);
  const dataStarts = new Float64Array(count);
  const ends = new Float64Array(count);
  const sizes = new Float64Array(count);
  const types = new Uint8Array(count);
  const crcs = new Uint32Array(count);
  /** The object's type once known (a delta's from its base). */
  const objectTypes = new Uint8Array(count);
  const names: (Buffer | undefined)[] = new Array(count);
  const byOffset = new Map<number, number>();
  /** Deltas by their base: an entry's index for OFS_DELTA, an ID (hex) for REF_DELTA. */
  const ofsChildren = new Map<number, number[]>();
  const refChildren = new Map<string, number[]>();

  /** What the first pass inflated, kept for the second while it fits in KEPT_BYTES: each is used there once. */
  const kept: (Buffer | undefined)[] = new Array(count);
  let keptBytes = 0;
  // An output buffer of the object's size (and a byte more, to see the end): zlib's default 16 KiB a call is garbage.
  const chunkSize = (size: number) => Math.max(64, size + 1);
  /** A delta applied to its base; a delta that does not fit it is a damaged pack. */
  const resolved = (base: Buffer, delta: Buffer): Buffer => {
    try {
      return applyDelta(base, delta);
    } catch (error) {
      return fail(error instanceof CorruptObjectError ? error.message : String(error));
    }
  };
  const inflate = (index: number): Buffer => {
    const content = kept[index];
    if (content) {
      kept[index] = undefined;
      return content;
    }
    const data = zlib.inflateSync(pack.subarray(dataStarts[index], ends[index]), { chunkSize: chunkSize(sizes[index]) });
    if (data.length !== sizes[index]) fail(`the object at ${offsets[index]} is not the size its header says`);
    return data;
  };
  /** A commit's tree, time and parents as a record (see IndexedPack.commits), when its header is the plain form. */
  const commitRecords: (Buffer | undefined)[] = new Array(count);
  const HEX = /^[0-9a-f]{40}$/;
  const SIGNATURE = /^(.*) <(.*)> (\d+) ([+-])(\d\d)(\d\d)$/;
  const commitRecord = (content: Buffer): Buffer | undefined => {
    const split = content.indexOf('\n\n');
    const lines = content.toString('latin1', 0, split < 0 ? content.length : split).split('\n');
    if (!lines[0].startsWith('tree ') || !HEX.test(lines[0].slice(5))) return undefined;
    let line = 1;
    const parents: string[] = [];
    while (line < lines.length && lines[line].startsWith('parent ')) {
      if (!HEX.test(lines[line].slice(7))) return undefined;
      parents.push(lines[line++].slice(7));
    }
    let time: number | undefined;
    for (; line < lines.length; line++) {
      if (lines[line].startsWith(' ')) return undefined;
      if (lines[line].startsWith('committer ')) {
        if (lines[line + 1]?.startsWith(' ')) return undefined;
        const match = SIGNATURE.exec(lines[line].slice(10));
        time = match ? Number(match[3]) : 0;
        break;
      }
    }
    const record = Buffer.alloc(32 + parents.length * 20);
    record.write(lines[0].slice(5), 0, 'hex');
    record.writeDoubleBE(time ?? 0, 20);
    record.writeUInt32BE(parents.length, 28);
    parents.forEach((parent, at) => {
      record.write(parent, 32 + at * 20, 'hex');
    });
    return record;
  };
  const hashObject = (type: number, content: Buffer): Buffer => {
    const header = Buffer.from(`${TYPES[type]} ${content.length}\0`, 'latin1');
    // One call for a small object (a Hash object costs more than hashing it), a stream for a large one.
    if (content.length < 65536) return crypto.hash('sha1', Buffer.concat([header, content]), 'buffer') as unknown as Buffer;
    return crypto.createHash('sha1').update(header).update(content).digest();
  };

  let position = 12;
  for (let index = 0; index < count; index++) {
    if (position >= end) fail('the pack is cut short');
    offsets[index] = position;
    byOffset.set(position, index);
    let byte = pack[position++];
    const type = (byte >> 4) & 7;
    let size = byte & 15;
    let shift = 4;
    while (byte & 0x80) {
      if (position >= end || shift > 60) fail('an entry header is cut short');
      byte = pack[position++];
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    types[index] = type;
    sizes[index] = size;
    if (type === OFS_DELTA) {
      if (position >= end) fail('an entry header is cut short');
      byte = pack[position++];
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        if (position >= end || distance > 2 ** 45) fail('an entry header is cut short');
        byte = pack[position++];
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      const base = byOffset.get(offsets[index] - distance);
      if (base === undefined || distance === 0) fail(`the delta at ${offsets[index]} names no entry of the pack as its base`);
      const children = ofsChildren.get(base!);
      if (children) children.push(index);
      else ofsChildren.set(base!, [index]);
    } else if (type === REF_DELTA) {
      if (position + 20 > end) fail('an entry header is cut short');
      const base = pack.toString('hex', position, position + 20);
      position += 20;
      const children = refChildren.get(base);
      if (children) children.push(index);
      else refChildren.set(base, [index]);
    } else if (!TYPES[type]) {
      fail(`an entry of unknown type ${type} at ${offsets[index]}`);
    }
    dataStarts[index] = position;
    let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
    try {
      inflated = zlib.inflateSync(pack.subarray(position, end), { info: true, chunkSize: chunkSize(size) }) as unknown as typeof inflated;
    } catch {
      return fail(`the object at ${offsets[index]} cannot be inflated`);
    }
    position += inflated.engine.bytesWritten;
    ends[index] = position;
    if (inflated.buffer.length !== size) fail(`the object at ${offsets[index]} is not the size its header says`);
    crcs[index] = zlib.crc32(pack.subarray(offsets[index], position));
    if (type !== OFS_DELTA && type !== REF_DELTA) {
      objectTypes[index] = type;
      names[index] = hashObject(type, inflated.buffer);
      if (type === 1) commitRecords[index] = commitRecord(inflated.buffer);
    }
    if (keptBytes + size <= KEPT_BYTES) {
      kept[index] = inflated.buffer;
      keptBytes += size;
    }
  }
  if (position !== end) fail('the pack has bytes after its last object');

  // Deltas resolved from each whole object down its chains, depth first: only the chain being walked is held.
  const childrenOf = (index: number): number[] => {
    const byOfs = ofsChildren.get(index) ?? [];
    if (!refChildren.size) return byOfs;
    const byRef = refChildren.get(names[index]!.toString('hex'));
    if (byRef) refChildren.delete(names[index]!.toString('hex'));
    return byRef ? [...byOfs, ...byRef] : byOfs;
  };
  for (let root = 0; root < count; root++) {
    if (types[root] === OFS_DELTA || types[root] === REF_DELTA) continue;
    const rootChildren = childrenOf(root);
    if (!rootChildren.length) continue;
    const stack: { content: Buffer; children: number[]; next: number; type: number }[] = [
      { content: inflate(root), children: rootChildren, next: 0, type: types[root] },
    ];
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (top.next === top.children.length) {
        stack.pop();
        continue;
      }
      const child = top.children[top.next++];
      if (names[child]) continue; // the same object twice in the pack: resolved already
      const content = resolved(top.content, inflate(child));
      objectTypes[child] = top.type;
      names[child] = hashObject(top.type, content);
      if (top.type === 1) commitRecords[child] = commitRecord(content);
      const children = childrenOf(child);
      if (children.length) {
        if (stack.length >= MAX_DEPTH) fail('a delta chain is too deep');
        stack.push({ content, children, next: 0, type: top.type });
      }
    }
  }
  for (let index = 0; index < count; index++) {
    if (names[index]) continue;
    if (types[index] === REF_DELTA) fail('the pack is thin: it holds deltas against objects it does not hold');
    fail(`the delta at ${offsets[index]} cannot be resolved`);
  }

  // The index: fan-out, names sorted, CRC-32s, offsets (over 2^31 - 1 in a table of 8-byte ones), checksums.
  const order = Array.from({ length: count }, (_, index) => index).sort((a, b) => names[a]!.compare(names[b]!));
  const large = order.filter((index) => offsets[index] > 0x7fffffff).length;
  const index = Buffer.alloc(8 + 256 * 4 + count * 28 + large * 8 + 40);
  index.writeUInt32BE(0xff744f63, 0);
  index.writeUInt32BE(2, 4);
  const fanout = new Uint32Array(256);
  for (let at = 0; at < count; at++) fanout[names[at]![0]] += 1;
  let total = 0;
  for (let byte = 0; byte < 256; byte++) {
    total += fanout[byte];
    index.writeUInt32BE(total, 8 + byte * 4);
  }
  let at = 8 + 256 * 4;
  for (const entry of order) {
    names[entry]!.copy(index, at);
    at += 20;
  }
  for (const entry of order) {
    index.writeUInt32BE(crcs[entry], at);
    at += 4;
  }
  let largeAt = at + count * 4;
  let largeCount = 0;
  for (const entry of order) {
    if (offsets[entry] > 0x7fffffff) {
      index.writeUInt32BE((0x80000000 | largeCount++) >>> 0, at);
      index.writeBigUInt64BE(BigInt(offsets[entry]), largeAt);
      largeAt += 8;
    } else {
      index.writeUInt32BE(offsets[entry], at);
    }
    at += 4;
  }
  at = largeAt;
  checksum.copy(index, at);
  at += 20;
  crypto.createHash('sha1').update(index.subarray(0, at)).digest().copy(index, at);

  const listed = order.filter((entry) => commitRecords[entry]);
  let recordBytes = 0;
  for (const entry of listed) recordBytes += commitRecords[entry]!.length;
  const commits = Buffer.alloc(4 + listed.length * 24 + recordBytes);
  commits.writeUInt32BE(listed.length, 0);
  let recordAt = 4 + listed.length * 24;
  listed.forEach((entry, at) => {
    names[entry]!.copy(commits, 4 + at * 20);
    commits.writeUInt32BE(recordAt, 4 + listed.length * 20 + at * 4);
    commitRecords[entry]!.copy(commits, recordAt);
    recordAt += commitRecords[entry]!.length;
  });

  const held = new Set(names.map((name) => name!.toString('hex')));
  let ofs = 0;
  let ref = 0;
  for (let entry = 0; entry < count; entry++) {
    if (types[entry] === OFS_DELTA) ofs += 1;
    else if (types[entry] === REF_DELTA) ref += 1;
  }
  return {
    checksum: checksum.toString('hex'),
    index,
    count,
    missing: wanted.filter((oid) => !held.has(oid)),
    deltas: { ofs, ref },
    commits,
  };
}

/** Packs up to this size are indexed in the calling thread (a few milliseconds of work). */
const INDEX_AT_ONCE_BYTES = 128 * 1024;
/** Indexers left without work are kept this long for the next pack (starting one costs some 100 ms), this many at most. */
const IDLE_INDEXER_MS = 30_000;
const IDLE_INDEXERS = 2;

type IndexerAnswer = {
  id: number;
  result?: IndexedPack & { index: Uint8Array; commits: Uint8Array };
  error?: { message: string; packIndexError: boolean };
};

const idleIndexers: { worker: Worker; timer: NodeJS.Timeout }[] = [];
let requests = 0;

/** An idle indexer, or a new one. */
function takeIndexer(): Worker {
  const kept = idleIndexers.pop();
  if (!kept) return startWorker('index-pack-worker');
  clearTimeout(kept.timer);
  kept.worker.ref();
  return kept.worker;
}

/** An indexer that answered is kept for the next pack, for a while (it keeps the process from exiting no longer). */
function keepIndexer(worker: Worker): void {
  if (idleIndexers.length >= IDLE_INDEXERS) return void worker.terminate();
  worker.unref();
  const timer = setTimeout(() => {
    const at = idleIndexers.findIndex((kept) => kept.worker === worker);
    if (at >= 0) idleIndexers.splice(at, 1);
    void worker.terminate();
  }, IDLE_INDEXER_MS);
  timer.unref();
  idleIndexers.push({ worker, timer });
}

/**
 * indexPack on the pack file at `path`, in a worker thread (a small one at once): the event loop stays free however
 * large the pack. An abort stops the worker.
 */
export async function indexPackInWorker(path: string, wanted: string[], signal?: AbortSignal): Promise<IndexedPack> {
  signal?.throwIfAborted();
  // A small pack (most pushes: a few commits) is indexed here at once, in a few milliseconds.
  if ((await stat(path)).size <= INDEX_AT_ONCE_BYTES) return indexPack(await readFile(path), wanted);
  const worker = takeIndexer();
  const id = ++requests;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (done: () => void, keep: boolean) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', stop);
      worker.off('message', answered);
      worker.off('error', failed);
      worker.off('exit', exited);
      if (keep) keepIndexer(worker);
      else void worker.terminate();
      done();
    };
    const stop = () => settle(() => reject(signal!.reason), false);
    const answered = (message: IndexerAnswer) => {
      if (message.id !== id) return;
      if (message.result) {
        const result = message.result;
        const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        settle(() => resolve({ ...result, index: buffer(result.index), commits: buffer(result.commits) }), true);
      } else {
        const error = message.error!;
        settle(() => reject(error.packIndexError ? new PackIndexError(error.message) : new Error(error.message)), true);
      }
    };
    const failed = (error: Error) => settle(() => reject(error), false);
    const exited = (code: number) => settle(() => reject(new Error(`the pack indexer stopped (exit code ${code})`)), false);
    signal?.addEventListener('abort', stop, { once: true });
    worker.on('message', answered);
    worker.on('error', failed);
    worker.on('exit', exited);
    worker.postMessage({ id, path, wanted });
  });
}

/**
 * The commits a pack's indexer read (IndexedPack.commits), looked up by ID without reading their objects: found by
 * a binary search of the sorted IDs, nothing built beforehand (a pack of a million commits costs no stall).
 */
export class PackedCommits {
  private readonly data: Buffer;
  /** How many commits it holds. */
  readonly count: number;

  constructor(data: Buffer) {
    this.data = data;
    this.count = data.length >= 4 ? data.readUInt32BE(0) : 0;
  }

  node(oid: string): CommitNode | undefined {
    if (!/^[0-9a-f]{40}$/.test(oid)) return undefined;
    const wanted = Buffer.from(oid, 'hex');
    let low = 0;
    let high = this.count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const order = this.data.compare(wanted, 0, 20, 4 + middle * 20, 4 + middle * 20 + 20);
      if (order === 0) {
        const at = this.data.readUInt32BE(4 + this.count * 20 + middle * 4);
        const parents: string[] = [];
        const parentCount = this.data.readUInt32BE(at + 28);
        for (let parent = 0; parent < parentCount; parent++)
          parents.push(this.data.toString('hex', at + 32 + parent * 20, at + 52 + parent * 20));
        return { oid, tree: this.data.toString('hex', at, at + 20), parents, time: this.data.readDoubleBE(at + 20) };
      }
      // compare() orders the buffer's range against `wanted`: positive when the range comes after it.
      if (order > 0) high = middle;
      else low = middle + 1;
    }
    return undefined;
  }
}
