import { createHash } from 'node:crypto';
import { open, readdir, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { crc32, createDeflate, deflate, deflateSync } from 'node:zlib';
import { LruMap } from './lru.js';
import { CorruptObjectError, type ObjectReader, type ObjectType } from './object-reader.js';

// A pack (gitformat-pack, version 2) of a list of objects, written as a stream for upload-pack
// (src/git/upload-pack.ts), reusing what the repository's packs store as git's pack-objects does: an entry is
// copied as it is stored, compressed, after its CRC-32 is checked against the pack's index; a delta whose base is
// sent too (written before it, in the order the packs store objects) or that the client has (a thin pack) keeps
// its stored delta, with the base named as the client takes it (an offset, or an ID). Anything else (a loose
// object, a delta whose base is not sent) is sent whole, compressed anew. No delta is computed: a pack is as
// small as the repository's own packs make it, and costs little more than copying them. A pack's reachability
// bitmap (PackBitmap) tells upload-pack which objects a clone needs without reading a tree.

const TYPE_NUMBERS: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** Enough for any pack entry's header: the type and size (10 bytes at most) and a base's offset or ID. */
const ENTRY_HEADER_BYTES = 32;
/** How much of a pack one read takes: objects are copied in the order their pack stores them. */
const WINDOW_BYTES = 4 * 1024 * 1024;
/** Entries and objects larger than this are copied, or compressed, in pieces: never whole in memory. */
const STREAM_BYTES = 16 * 1024 * 1024;
const PIECE_BYTES = 1024 * 1024;
/** How much of the pack is gathered before it is handed on. */
const OUTPUT_BYTES = 256 * 1024;
/** Objects up to this size are compressed at once; larger ones on libuv's thread pool. */
const DEFLATE_AT_ONCE_BYTES = 64 * 1024;
/** Bases written first for a delta, one for another, at most this deep; a longer chain is cut by sending an object whole. */
const MAX_BASE_DEPTH = 1000;
/** How long the writer runs before it lets the event loop turn. */
const TURN_MS = 8;

const deflateAsync = promisify(deflate);

/** One of the repository's packs: its index whole, its file open, and what was last read of it. */
interface StoredPack {
  path: string;
  index: Buffer;
  count: number;
  size: number;
  handle: FileHandle;
  window: Buffer;
  windowStart: number;
}

/** Where a pack stores an object. */
export interface StoredAt {
  pack: number;
  position: number;
  offset: number;
}

/**
 * The repository's packs, as they were when opened: their indexes read whole (as ObjectReader reads them) and their
 * files kept open until close(), so that a repack meanwhile (git gc) takes nothing from under a pack being written.
 */
export class StoredPacks {
  private constructor(readonly packs: StoredPack[]) {}

  static async open(gitdir: string): Promise<StoredPacks> {
    const directory = join(gitdir, 'objects', 'pack');
    const names = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    const packs: StoredPack[] = [];
    try {
      for (const name of names.filter((file) => file.endsWith('.idx')).sort()) {
        const path = join(directory, `${name.slice(0, -4)}.pack`);
        // An index whose pack is gone (a repack under way) names nothing.
        const handle = await open(path, 'r').catch(() => null);
        if (!handle) continue;
        const pack = { path, handle, index: Buffer.alloc(0), count: 0, size: 0, window: Buffer.alloc(0), windowStart: 0 };
        packs.push(pack);
        const [index, { size }] = await Promise.all([readFile(join(directory, name)), handle.stat()]);
        if (index.length < 8 + 256 * 4 || index.readUInt32BE(0) !== 0xff744f63 || index.readUInt32BE(4) !== 2)
          throw new CorruptObjectError(`${name} is not a version 2 pack index`);
        Object.assign(pack, { index, size, count: index.readUInt32BE(8 + 255 * 4) });
      }
    } catch (error) {
      await Promise.all(packs.map((pack) => pack.handle.close().catch(() => {})));
      throw error;
    }
    return new StoredPacks(packs);
  }

  /** Where the first pack that holds the object stores it; null when none does. */
  locate(oid: Buffer): StoredAt | null {
    for (let pack = 0; pack < this.packs.length; pack++) {
      const position = positionOf(this.packs[pack], oid);
      if (position !== null) return { pack, position, offset: offsetAt(this.packs[pack], position) };
    }
    return null;
  }

  /** The reachability bitmap of one of the packs (a repository has one at most); null when none is usable. */
  async bitmap(): Promise<PackBitmap | null> {
    for (const pack of this.packs) {
      const bitmap = await PackBitmap.open(pack);
      if (bitmap) return bitmap;
    }
    return null;
  }

  async close(): Promise<void> {
    await Promise.all(this.packs.map((pack) => pack.handle.close().catch(() => {})));
  }
}

/** A set of a pack's objects, one bit each in the order the pack stores them (as a bitmap's bits are numbered). */
export type ObjectBits = Uint32Array;

/** The bits of an ObjectBits that are set, in order. */
export function* setBits(bits: ObjectBits): Generator<number> {
  for (let word = 0; word < bits.length; word++) {
    for (let rest = bits[word]; rest; rest &= rest - 1) yield word * 32 + 31 - Math.clz32(rest & -rest);
  }
}

export const hasBit = (bits: ObjectBits, bit: number) => (bits[bit >>> 5] & (1 << (bit & 31))) !== 0;
export const setBit = (bits: ObjectBits, bit: number) => {
  bits[bit >>> 5] |= 1 << (bit & 31);
};

const BITMAP_SIGNATURE = 0x4249544d; // 'BITM'
const BITMAP_FULL_DAG = 0x1;
/** Commits' bitmaps kept decoded (XOR chains are resolved through them), before they are all let go. */
const KEPT_BITMAPS = 256;

/**
 * A pack's reachability bitmaps (gitformat-bitmap, version 1: what `git gc` and `git repack -b` write for a bare
 * repository): for chosen commits, every object each reaches, one bit per object of the pack in the order the pack
 * stores them, EWAH-compressed and most XORed with an earlier one. With them a clone's objects are known without
 * reading a tree, as git's upload-pack knows them.
 */
export class PackBitmap {
  /** How many objects the pack holds: the bits of every set. */
  readonly count: number;
  /** Each bitmapped commit's entry: where its EWAH starts, and the entry it is XORed with (-1: none). */
  private readonly entries = new Map<string, number>();
  private readonly starts: number[] = [];
  private readonly xorWith: number[] = [];
  private readonly decoded = new Map<number, ObjectBits>();
  /** The bit of each object by its position in the pack's index. */
  private readonly bitOfPosition: Uint32Array;
  private readonly positionOfBit: Uint32Array;

  private constructor(
    private readonly pack: StoredPack,
    private readonly bytes: Buffer,
  ) {
    this.count = pack.count;
    const { positionsByOffset, rankOfPosition } = sortByOffset(pack);
    this.positionOfBit = positionsByOffset;
    this.bitOfPosition = rankOfPosition;
  }

  /** The pack's bitmap, or null when it has none this reader takes (another version, another pack's, damaged). */
  static async open(pack: StoredPack): Promise<PackBitmap | null> {
    const bytes = await readFile(`${pack.path.slice(0, -'.pack'.length)}.bitmap`).catch(() => null);
    if (!bytes || bytes.length < 32 + 20) return null;
    const checksum = pack.index.subarray(pack.index.length - 40, pack.index.length - 20);
    if (bytes.readUInt32BE(0) !== BITMAP_SIGNATURE || bytes.readUInt16BE(4) !== 1 || !(bytes.readUInt16BE(6) & BITMAP_FULL_DAG))
      return null;
    if (!bytes.subarray(12, 32).equals(checksum)) return null;
    const bitmap = new PackBitmap(pack, bytes);
    try {
      let at = 32;
      // The four type bitmaps (commits, trees, blobs, tags), not needed here.
      for (let type = 0; type < 4; type++) at = bitmap.skipEwah(at);
      const entryCount = bytes.readUInt32BE(8);
      for (let entry = 0; entry < entryCount; entry++) {
        const position = bytes.readUInt32BE(at);
        const xor = bytes[at + 4];
        if (position >= pack.count || xor > entry) return null;
        bitmap.entries.set(oidAt(pack, position), entry);
        bitmap.starts.push(at + 6);
        bitmap.xorWith.push(xor ? entry - xor : -1);
        at = bitmap.skipEwah(at + 6);
      }
    } catch {
      return null;
    }
    return bitmap;
  }

  /** An empty set of the pack's objects. */
  empty(): ObjectBits {
    return new Uint32Array(Math.ceil(this.count / 64) * 2);
  }

  /** The object's bit; -1 when the pack does not hold it. */
  bitOf(oid: string): number {
    const position = positionOf(this.pack, Buffer.from(oid, 'hex'));
    return position === null ? -1 : this.bitOfPosition[position];
  }

  oidOf(bit: number): string {
    return oidAt(this.pack, this.positionOfBit[bit]);
  }

  /** Everything a commit reaches, when the bitmap has it (not to be changed); CorruptObjectError when it does not decode. */
  reachableFrom(oid: string): ObjectBits | undefined {
    const entry = this.entries.get(oid);
    return entry === undefined ? undefined : this.entryBits(entry);
  }

  private entryBits(entry: number): ObjectBits {
    const kept = this.decoded.get(entry);
    if (kept) return kept;
    // The chain of XORs down to a bitmap stored whole (or decoded already), then back up.
    const chain: number[] = [];
    let base: ObjectBits | undefined;
    for (let at = entry; at >= 0 && !base; at = this.xorWith[at]) {
      base = this.decoded.get(at);
      if (!base) chain.push(at);
    }
    if (this.decoded.size + chain.length > KEPT_BITMAPS) this.decoded.clear();
    for (let index = chain.length - 1; index >= 0; index--) {
      const bits = this.decodeEwah(this.starts[chain[index]]);
      if (base) for (let word = 0; word < bits.length; word++) bits[word] ^= base[word];
      this.decoded.set(chain[index], bits);
      base = bits;
    }
    return base!;
  }

  /** Where the EWAH bitmap at `at` ends. */
  private skipEwah(at: number): number {
    const words = this.bytes.readUInt32BE(at + 4);
    const end = at + 8 + words * 8 + 4;
    if (end > this.bytes.length) throw new CorruptObjectError('a bitmap runs past its file');
    return end;
  }

  /**
   * An EWAH bitmap decoded: runs of a repeated bit (a run-length word: the bit, 32 bits of count, 31 bits of literal
   * words after it), and literal 64-bit words, lower bits first.
   */
  private decodeEwah(at: number): ObjectBits {
    const { bytes } = this;
    const bits = this.empty();
    const words = bytes.readUInt32BE(at + 4);
    if (bytes.readUInt32BE(at) > bits.length * 32 || at + 8 + words * 8 + 4 > bytes.length)
      throw new CorruptObjectError('a bitmap is damaged');
    let word = 0;
    for (let read = 0; read < words; ) {
      const high = bytes.readUInt32BE(at + 8 + read * 8);
      const low = bytes.readUInt32BE(at + 8 + read * 8 + 4);
      read += 1;
      const run = (low >>> 1) + (high & 1) * 2 ** 31;
      const literals = high >>> 1;
      if ((word + run + literals) * 2 > bits.length || read + literals > words) throw new CorruptObjectError('a bitmap is damaged');
      if (low & 1) bits.fill(0xffffffff, word * 2, (word + run) * 2);
      word += run;
      for (let literal = 0; literal < literals; literal++, read++, word++) {
        bits[word * 2 + 1] = bytes.readUInt32BE(at + 8 + read * 8);
        bits[word * 2] = bytes.readUInt32BE(at + 8 + read * 8 + 4);
      }
    }
    return bits;
  }
}

/** An object's position in a pack's index, by binary search of its sorted names; null when it is not there. */
function positionOf(pack: StoredPack, oid: Buffer): number | null {
  const { index } = pack;
  let low = oid[0] === 0 ? 0 : index.readUInt32BE(8 + (oid[0] - 1) * 4);
  let high = index.readUInt32BE(8 + oid[0] * 4);
  const names = 8 + 256 * 4;
  // The first four bytes compared as a number: the whole name only when they are equal.
  const wanted = oid.readUInt32BE(0);
  while (low < high) {
    const middle = (low + high) >>> 1;
    const prefix = index.readUInt32BE(names + middle * 20);
    const compared = prefix !== wanted ? wanted - prefix : oid.compare(index, names + middle * 20, names + middle * 20 + 20);
    if (compared === 0) return middle;
    if (compared < 0) high = middle;
    else low = middle + 1;
  }
  return null;
}

function offsetAt(pack: StoredPack, position: number): number {
  const offsets = 8 + 256 * 4 + pack.count * 24;
  const offset = pack.index.readUInt32BE(offsets + position * 4);
  if (!(offset & 0x80000000)) return offset;
  // Past 2 GiB: the large offsets' table.
  return Number(pack.index.readBigUInt64BE(offsets + pack.count * 4 + (offset & 0x7fffffff) * 8));
}

const crcAt = (pack: StoredPack, position: number) => pack.index.readUInt32BE(8 + 256 * 4 + pack.count * 20 + position * 4);
const oidAt = (pack: StoredPack, position: number) =>
  pack.index.toString('hex', 8 + 256 * 4 + position * 20, 8 + 256 * 4 + position * 20 + 20);

/** The pack's entries in the order it stores them: their offsets, and the index position of each (one native sort of both at once). */
/**
 * A pack's entries in the order it stores them: their offsets sorted, the index position of each, and each position's
 * rank in that order (git's `.rev` file). Kept for the process by pack path (a pack's content never changes under its
 * name), so that each request does not sort a large pack's offsets again.
 */
interface OffsetOrder {
  sortedOffsets: Float64Array;
  positionsByOffset: Uint32Array;
  rankOfPosition: Uint32Array;
}

/** Offset orders kept, weighed by their entries: some 16 bytes each, 32 MiB at most. */
const offsetOrders = new LruMap<string, OffsetOrder>(2_000_000, undefined, (order) => order.rankOfPosition.length);

function sortByOffset(pack: StoredPack): OffsetOrder {
  const kept = offsetOrders.get(pack.path);
  if (kept) return kept;
  const { count } = pack;
  const sortedOffsets = new Float64Array(count);
  const positionsByOffset = new Uint32Array(count);
  const scale = 2 ** Math.ceil(Math.log2(count + 1));
  if (pack.size * scale < 2 ** 53) {
    // Offset and position as one number, sorted natively.
    const keys = new Float64Array(count);
    for (let position = 0; position < count; position++) keys[position] = offsetAt(pack, position) * scale + position;
    keys.sort();
    for (let at = 0; at < count; at++) {
      positionsByOffset[at] = keys[at] % scale;
      sortedOffsets[at] = (keys[at] - positionsByOffset[at]) / scale;
    }
  } else {
    const keys = new BigUint64Array(count);
    for (let position = 0; position < count; position++) keys[position] = (BigInt(offsetAt(pack, position)) << 32n) | BigInt(position);
    keys.sort();
    for (let at = 0; at < count; at++) {
      positionsByOffset[at] = Number(keys[at] & 0xffffffffn);
      sortedOffsets[at] = Number(keys[at] >> 32n);
    }
  }
  const rankOfPosition = new Uint32Array(count);
  for (let at = 0; at < count; at++) rankOfPosition[positionsByOffset[at]] = at;
  const order = { sortedOffsets, positionsByOffset, rankOfPosition };
  offsetOrders.set(pack.path, order);
  return order;
}

/** Where an entry's offset lies among the sorted ones (the first one past it when it is not one). */
function searchOffsets(sorted: Float64Array, offset: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] < offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Where the entry starting at `offset` ends: the next entry's start, or the pack's checksum. */
function endOfEntry(pack: StoredPack, offset: number): number {
  const { sortedOffsets } = sortByOffset(pack);
  const at = searchOffsets(sortedOffsets, offset + 1);
  return at < sortedOffsets.length ? sortedOffsets[at] : pack.size - 20;
}

/** The ID of the object stored at `offset` (an offset delta's base). */
function oidAtOffset(pack: StoredPack, offset: number): string {
  const { sortedOffsets, positionsByOffset } = sortByOffset(pack);
  const at = searchOffsets(sortedOffsets, offset);
  if (sortedOffsets[at] !== offset)
    throw new CorruptObjectError(`a delta of ${pack.path} names a base at ${offset}, where no entry starts`);
  return oidAt(pack, positionsByOffset[at]);
}

/** A stored entry's header: its type number (of an object, or a delta's), its size, its length, and a delta's base. */
interface EntryHeader {
  typeNumber: number;
  size: number;
  length: number;
  baseOffset?: number;
  baseOid?: string;
}

function parseEntryHeader(bytes: Buffer, offset: number): EntryHeader {
  let position = 0;
  const cutShort = () => new CorruptObjectError(`a pack entry at ${offset} is cut short`);
  if (!bytes.length) throw cutShort();
  let byte = bytes[position++];
  const typeNumber = (byte >> 4) & 7;
  let size = byte & 0x0f;
  let shift = 4;
  while (byte & 0x80) {
    if (position >= bytes.length) throw cutShort();
    byte = bytes[position++];
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  }
  const header: EntryHeader = { typeNumber, size, length: 0 };
  if (typeNumber === OFS_DELTA) {
    if (position >= bytes.length) throw cutShort();
    byte = bytes[position++];
    let distance = byte & 0x7f;
    while (byte & 0x80) {
      if (position >= bytes.length) throw cutShort();
      byte = bytes[position++];
      distance = (distance + 1) * 128 + (byte & 0x7f);
    }
    header.baseOffset = offset - distance;
  } else if (typeNumber === REF_DELTA) {
    if (position + 20 > bytes.length) throw cutShort();
    header.baseOid = bytes.toString('hex', position, position + 20);
    position += 20;
  } else if (typeNumber < 1 || typeNumber > 4) {
    throw new CorruptObjectError(`a pack entry at ${offset} has the unknown type ${typeNumber}`);
  }
  header.length = position;
  return header;
}

/** An entry's header as a pack writes it: the type and size, then an offset delta's distance back to its base. */
function entryHeader(typeNumber: number, size: number, distance?: number): Buffer {
  const bytes: number[] = [];
  let rest = Math.floor(size / 16);
  bytes.push((typeNumber << 4) | (size & 0x0f) | (rest ? 0x80 : 0));
  while (rest) {
    const next = Math.floor(rest / 128);
    bytes.push((rest & 0x7f) | (next ? 0x80 : 0));
    rest = next;
  }
  if (distance !== undefined) {
    // Big-endian groups of 7 bits, each but the last one less one (git's encoding: no two ways to write a distance).
    const groups = [distance & 0x7f];
    for (let left = Math.floor(distance / 128); left; left = Math.floor(left / 128)) {
      left -= 1;
      groups.unshift(0x80 | (left & 0x7f));
    }
    bytes.push(...groups);
  }
  return Buffer.from(bytes);
}

/** What a pack held: its objects, how many were deltas, and how many were copied as stored. */
export interface PackStatistics {
  total: number;
  deltas: number;
  reused: number;
  reusedDeltas: number;
}

export interface PackWriterOptions {
  /** The client reads deltas against an offset in the pack (`ofs-delta`); otherwise every delta names its base by ID. */
  ofsDelta: boolean;
  /** Objects the client has, which a delta may be sent against without them (a thin pack); none when not given. */
  clientHas?: (oid: string) => boolean;
  signal?: AbortSignal;
}

/**
 * The pack of `oids` (each once, every one present), in pieces, ending with its SHA-1; resolves to what it held.
 * Objects are read from `packs` as stored, and whole through `reader` (loose ones, deltas not reused).
 */
export function writePack(
  reader: ObjectReader,
  packs: StoredPacks,
  oids: readonly string[],
  options: PackWriterOptions,
): AsyncGenerator<Buffer, PackStatistics> {
  return new PackWriter(reader, packs, oids, options).write();
}

class PackWriter {
  private readonly hash = createHash('sha1');
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Where the next byte of the pack goes. */
  private position = 0;
  private readonly indexOf = new Map<string, number>();
  /** Each object's pack (-1: none holds it), position in that pack's index and offset; where it was written (-1: not yet). */
  private readonly packOf: Int32Array;
  private readonly positionOf: Uint32Array;
  private readonly offsetOf: Float64Array;
  private readonly written: Float64Array;
  /** Objects whose bases are being written: a delta cycle between packs stops at them. */
  private readonly busy: Uint8Array;
  private readonly statistics: PackStatistics;
  private readonly packs: StoredPack[];
  private turnedAt = performance.now();

  constructor(
    private readonly reader: ObjectReader,
    private readonly stored: StoredPacks,
    private readonly oids: readonly string[],
    private readonly options: PackWriterOptions,
  ) {
    this.packs = stored.packs;
    const count = oids.length;
    this.packOf = new Int32Array(count).fill(-1);
    this.positionOf = new Uint32Array(count);
    this.offsetOf = new Float64Array(count);
    this.written = new Float64Array(count).fill(-1);
    this.busy = new Uint8Array(count);
    this.statistics = { total: count, deltas: 0, reused: 0, reusedDeltas: 0 };
  }

  async *write(): AsyncGenerator<Buffer, PackStatistics> {
    const { oids } = this;
    for (let index = 0; index < oids.length; index++) {
      this.indexOf.set(oids[index], index);
      const found = this.stored.locate(Buffer.from(oids[index], 'hex'));
      if (found) {
        this.packOf[index] = found.pack;
        this.positionOf[index] = found.position;
        this.offsetOf[index] = found.offset;
      }
      if (index % 4096 === 4095) await this.pace();
    }
    if (this.indexOf.size !== oids.length) throw new Error('an object is listed twice for a pack');
    const order = this.storedOrder();
    await this.pace();

    const header = Buffer.alloc(12);
    header.write('PACK', 0, 'latin1');
    header.writeUInt32BE(2, 4);
    header.writeUInt32BE(oids.length, 8);
    this.emit(header);
    for (let at = 0; at < order.length; at++) {
      const index = order[at];
      if (this.written[index] < 0 && !this.copyFromWindow(index)) yield* this.writeObject(index, 0);
      if (this.pendingBytes >= OUTPUT_BYTES) yield this.take();
      if (at % 256 === 255) await this.pace();
    }
    const checksum = this.hash.digest();
    this.pending.push(checksum);
    this.pendingBytes += checksum.length;
    yield this.take();
    return this.statistics;
  }

  /**
   * The objects in the order the packs store them (pack by pack, loose ones last): read in sequence, and an offset
   * delta's base (stored before it) comes first. Sorted natively, by a key of the pack, the entry's rank in it and the
   * object's index, where those fit in a number's 53 bits (a comparator takes some 30 ms for 100,000 objects).
   */
  private storedOrder(): Uint32Array {
    const { packOf, positionOf, offsetOf, oids, packs } = this;
    const count = oids.length;
    const bitsOf = (value: number) => Math.ceil(Math.log2(value + 1));
    const rankBits = bitsOf(Math.max(0, ...packs.map((pack) => pack.count)));
    const indexBits = bitsOf(count);
    const packBits = bitsOf(packs.length + 1);
    if (rankBits + indexBits + packBits <= 53) {
      const ranks = packs.map((pack) => sortByOffset(pack).rankOfPosition);
      const rankScale = 2 ** indexBits;
      const packScale = 2 ** (indexBits + rankBits);
      const keys = new Float64Array(count);
      for (let index = 0; index < count; index++) {
        const pack = packOf[index];
        // Loose objects after every pack.
        keys[index] = pack < 0 ? packs.length * packScale + index : pack * packScale + ranks[pack][positionOf[index]] * rankScale + index;
      }
      keys.sort();
      const order = new Uint32Array(count);
      for (let at = 0; at < count; at++) order[at] = keys[at] % rankScale;
      return order;
    }
    const order = Uint32Array.from(oids.keys());
    order.sort((a, b) => (packOf[a] < 0 ? 1 : 0) - (packOf[b] < 0 ? 1 : 0) || packOf[a] - packOf[b] || offsetOf[a] - offsetOf[b]);
    return order;
  }

  private emit(bytes: Buffer): void {
    this.hash.update(bytes);
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    this.position += bytes.length;
  }

  private take(): Buffer {
    const taken = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    return taken;
  }

  /** Stops once aborted; lets the event loop turn after a while of work done without waiting. */
  private async pace(): Promise<void> {
    this.options.signal?.throwIfAborted();
    if (performance.now() - this.turnedAt < TURN_MS) return;
    await nextTurn();
    this.turnedAt = performance.now();
    this.options.signal?.throwIfAborted();
  }

  /** Copies an object at once when its stored entry is in the window read last and can be sent as it is (most objects). */
  private copyFromWindow(index: number): boolean {
    const pack = this.packs[this.packOf[index]];
    if (!pack) return false;
    const offset = this.offsetOf[index];
    const end = endOfEntry(pack, offset);
    if (offset < pack.windowStart || end > pack.windowStart + pack.window.length) return false;
    const raw = pack.window.subarray(offset - pack.windowStart, end - pack.windowStart);
    if (crc32(raw) !== crcAt(pack, this.positionOf[index])) return false;
    return this.copyStored(index, pack, raw, parseEntryHeader(raw, offset));
  }

  /**
   * Writes a stored entry (`raw`, whole) as it is: an object, or a delta whose base is written already or which the
   * client has. False when it cannot be (a delta whose base is to be written first, or cannot be relied on).
   */
  private copyStored(index: number, pack: StoredPack, raw: Buffer, entry: EntryHeader): boolean {
    if (entry.typeNumber !== OFS_DELTA && entry.typeNumber !== REF_DELTA) {
      this.written[index] = this.position;
      this.emit(raw);
      this.statistics.reused += 1;
      return true;
    }
    const header = this.deltaHeader(pack, entry);
    if (!header) return false;
    this.written[index] = this.position;
    this.emit(header);
    this.emit(raw.subarray(entry.length));
    this.statistics.reused += 1;
    this.statistics.deltas += 1;
    this.statistics.reusedDeltas += 1;
    return true;
  }

  /** A delta's header naming its base as the client takes it, or undefined when its base is neither written nor the client's. */
  private deltaHeader(pack: StoredPack, entry: EntryHeader): Buffer | undefined {
    const baseOid = entry.baseOid ?? oidAtOffset(pack, entry.baseOffset!);
    const base = this.indexOf.get(baseOid);
    const baseAt = base === undefined ? -1 : this.written[base];
    if (baseAt >= 0 && this.options.ofsDelta) return entryHeader(OFS_DELTA, entry.size, this.position - baseAt);
    if (baseAt >= 0 || (base === undefined && this.options.clientHas?.(baseOid)))
      return Buffer.concat([entryHeader(REF_DELTA, entry.size), Buffer.from(baseOid, 'hex')]);
    return undefined;
  }

  /** The base of a stored delta, when it is sent too and not written yet: it goes first. */
  private unwrittenBase(pack: StoredPack, entry: EntryHeader): number | undefined {
    if (entry.typeNumber !== OFS_DELTA && entry.typeNumber !== REF_DELTA) return undefined;
    const base = this.indexOf.get(entry.baseOid ?? oidAtOffset(pack, entry.baseOffset!));
    return base !== undefined && this.written[base] < 0 && !this.busy[base] ? base : undefined;
  }

  /** Writes an object: as stored when it can, its base first when that is sent too; whole otherwise. */
  private async *writeObject(index: number, depth: number): AsyncGenerator<Buffer> {
    if (this.written[index] >= 0) return;
    const pack = this.packs[this.packOf[index]];
    if (pack) {
      const offset = this.offsetOf[index];
      const end = endOfEntry(pack, offset);
      if (end - offset > STREAM_BYTES) {
        if (yield* this.copyLarge(index, pack, offset, end, depth)) return;
      } else {
        const raw = await this.read(pack, offset, end);
        if (crc32(raw) === crcAt(pack, this.positionOf[index])) {
          const entry = parseEntryHeader(raw, offset);
          const base = this.unwrittenBase(pack, entry);
          if (base !== undefined && depth < MAX_BASE_DEPTH) yield* this.writeBase(index, base, depth);
          if (this.copyStored(index, pack, raw, entry)) return;
        }
      }
    }
    yield* this.writeWhole(index);
  }

  private async *writeBase(index: number, base: number, depth: number): AsyncGenerator<Buffer> {
    this.busy[index] = 1;
    try {
      yield* this.writeObject(base, depth + 1);
    } finally {
      this.busy[index] = 0;
    }
  }

  /** A large stored entry copied in pieces, its CRC-32 checked on the way; false when it is not copied (its delta's base is not there). */
  private async *copyLarge(index: number, pack: StoredPack, offset: number, end: number, depth: number): AsyncGenerator<Buffer, boolean> {
    const entry = parseEntryHeader(await this.readFile(pack, offset, ENTRY_HEADER_BYTES), offset);
    const isDelta = entry.typeNumber === OFS_DELTA || entry.typeNumber === REF_DELTA;
    if (isDelta) {
      const base = this.unwrittenBase(pack, entry);
      if (base !== undefined && depth < MAX_BASE_DEPTH) yield* this.writeBase(index, base, depth);
    }
    const header = isDelta ? this.deltaHeader(pack, entry) : entryHeader(entry.typeNumber, entry.size);
    if (!header) return false;
    this.written[index] = this.position;
    this.emit(header);
    let crc = crc32(await this.readFile(pack, offset, entry.length));
    for (let start = offset + entry.length; start < end; start += PIECE_BYTES) {
      const piece = await this.readFile(pack, start, Math.min(PIECE_BYTES, end - start));
      crc = crc32(piece, crc);
      this.emit(piece);
      yield this.take();
      await this.pace();
    }
    // Too late to send it otherwise: the pack is given up rather than carry a damaged object.
    if (crc !== crcAt(pack, this.positionOf[index])) throw new CorruptObjectError(`the entry at ${offset} of ${pack.path} is damaged`);
    this.statistics.reused += 1;
    if (isDelta) {
      this.statistics.deltas += 1;
      this.statistics.reusedDeltas += 1;
    }
    return true;
  }

  /** An object sent whole, compressed anew: read whole, or in pieces when large. */
  private async *writeWhole(index: number): AsyncGenerator<Buffer> {
    const oid = this.oids[index];
    // A packed object sent whole is a delta rebuilt (a stored whole one is copied): read whole, as git does. A loose
    // one's size is in its first bytes: a large one is compressed in pieces.
    const found = this.packOf[index] < 0 ? await this.reader.header(oid) : null;
    if (!found || found.size <= STREAM_BYTES) {
      const { type, content } = await this.reader.read(oid);
      this.written[index] = this.position;
      this.emit(entryHeader(TYPE_NUMBERS[type], content.length));
      this.emit(content.length <= DEFLATE_AT_ONCE_BYTES ? deflateSync(content) : await deflateAsync(content));
      return;
    }
    this.written[index] = this.position;
    this.emit(entryHeader(TYPE_NUMBERS[found.type], found.size));
    const deflater = createDeflate();
    const compressed = Readable.from(this.reader.contentChunks(oid)).pipe(deflater);
    try {
      for await (const piece of compressed as AsyncIterable<Buffer>) {
        this.emit(piece);
        if (this.pendingBytes >= OUTPUT_BYTES) yield this.take();
      }
    } finally {
      deflater.destroy();
    }
  }

  /** [start, end) of a pack, through its window: the next entries are most often in the same read. */
  private async read(pack: StoredPack, start: number, end: number): Promise<Buffer> {
    if (start < pack.windowStart || end > pack.windowStart + pack.window.length) {
      pack.window = await this.readFile(pack, start, Math.min(Math.max(end - start, WINDOW_BYTES), pack.size - start));
      pack.windowStart = start;
      if (pack.window.length < end - start) throw new CorruptObjectError(`${pack.path} is cut short`);
    }
    return pack.window.subarray(start - pack.windowStart, end - pack.windowStart);
  }

  private async readFile(pack: StoredPack, position: number, length: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await pack.handle.read(buffer, read, length - read, position + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return read === length ? buffer : buffer.subarray(0, read);
  }
}
