// Runs in archive workers too (src/git/archive-worker.ts), loaded from source under vitest with Node's type
// stripping: erasable TypeScript only (no parameter properties, enums or namespaces), Node's modules only.
import { open, readdir, readFile, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import { constants as zlibConstants, createInflate, inflate, inflateSync } from 'node:zlib';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

/** What an object is, and its size in bytes, read without inflating its content. */
export interface ObjectHeader {
  type: ObjectType;
  size: number;
}

/** An entry of a tree as stored: the name's bytes as they are (a path need not be UTF-8). */
export interface RawTreeEntry {
  mode: string;
  name: Buffer;
  oid: string;
}

/** The object is in neither a pack nor the loose objects. */
export class MissingObjectError extends Error {
  override readonly name = 'MissingObjectError';
  readonly oid: string;
  constructor(oid: string) {
    super(`the object ${oid} is missing`);
    this.oid = oid;
  }
}

/** A pack or loose object that cannot be read as git writes them. */
export class CorruptObjectError extends Error {
  override readonly name = 'CorruptObjectError';
}

const PACK_TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** Enough for any pack entry's header: the type and size (10 bytes at most) and a base's offset or ID. */
const ENTRY_HEADER_BYTES = 32;
/** Inflated from the start of a delta or a loose object to read its header, before trying with more. */
const HEADER_PROBE_BYTES = [256, 4096];
/** How much of a file one read takes while streaming an object. */
const READ_BYTES = 256 * 1024;
/** A reader's own pack cache, in bytes, when it is not given a shared one. */
const PACK_CACHE_BYTES = 8 * 1024 * 1024;
/** The windows of a pack read and kept whole (git maps 1 MiB windows of a pack on 32-bit systems, 32 MiB on 64-bit ones). */
const WINDOW_BYTES = 256 * 1024;
/** How long files a released reader had open stay open for the reads still using them. */
const RELEASE_GRACE_MS = 30_000;
/** A pack ends with the SHA-1 of what is before it. */
const PACK_TRAILER_BYTES = 20;
/** The most zlib's deflate makes of `size` bytes (its compressBound), and room for a stream made otherwise. */
const deflateBound = (size: number) => size + Math.floor(size / 4096) + Math.floor(size / 16384) + Math.floor(size / 2 ** 25) + 13 + 64;
/** Longer delta chains than this are a damaged (or hostile) pack: git makes them 50 deep, 250 with --aggressive. */
const MAX_DELTA_DEPTH = 5000;

const inflateAsync = promisify(inflate);
/** Deflated objects up to this size are inflated at once: handing one to the thread pool costs more than inflating it. */
const INFLATE_AT_ONCE_BYTES = 64 * 1024;
/**
 * Whole objects are inflated in place when small, or in a worker, whose own loop serves one archive; larger ones
 * on the main thread go to libuv's thread pool (off its event loop).
 */
const inflateWhole = async (data: Buffer): Promise<Buffer> =>
  isMainThread && data.length > INFLATE_AT_ONCE_BYTES ? inflateAsync(data) : inflateSync(data);

/** A small deflated stream inflated, or undefined when it does not inflate (read() then says why). */
function inflatedOrUndefined(data: Buffer): Buffer | undefined {
  try {
    return inflateSync(data);
  } catch {
    return undefined;
  }
}

/** The start of a deflated stream inflated as far as it goes: for headers, without the rest of the content. */
function inflatePrefix(data: Buffer): Buffer {
  return inflateSync(data, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
}

interface PackIndex {
  packPath: string;
  /** The whole `.idx` (version 2): 28 bytes and a little per object. */
  index: Buffer;
  count: number;
  packSize: number;
  /**
   * Every object's offset, sorted: an entry's compressed data ends where the next entry starts. Sorted only when
   * an exact end is needed (streaming a large object, an entry past its size's bound): 100,000 objects take
   * milliseconds, which a first read should not wait for.
   */
  sortedOffsets?: Float64Array;
}

interface PackedAt {
  pack: PackIndex;
  offset: number;
}

/** One entry of a pack as its header says: its own type (or a delta's), its size, and where its data starts. */
interface PackEntry {
  typeNumber: number;
  size: number;
  dataStart: number;
  /**
   * Where its compressed data ends at the latest: deflate's bound for its size (inflating stops at the stream's end), or the next entry's
   * start.
   */
  dataEnd: number;
  /** A delta's base: at an offset of the same pack, or by ID. */
  baseOffset?: number;
  baseOid?: string;
}

function varint(data: Buffer, start: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let position = start;
  for (;;) {
    if (position >= data.length) throw new CorruptObjectError('a delta header is cut short');
    const byte = data[position++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (!(byte & 0x80)) return { value, next: position };
  }
}

/** The size a delta makes (its header's second number). */
const deltaResultSize = (delta: Buffer) => varint(delta, varint(delta, 0).next).value;

/** `base` with `delta` applied (git's delta format: copies from the base and inserted bytes). */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  const baseSize = varint(delta, 0);
  if (baseSize.value !== base.length) throw new CorruptObjectError('a delta does not fit its base');
  const result = varint(delta, baseSize.next);
  const out = Buffer.allocUnsafe(result.value);
  let position = result.next;
  let written = 0;
  while (position < delta.length) {
    const op = delta[position++];
    if (op & 0x80) {
      let offset = 0;
      let length = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += delta[position++] * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (1 << (4 + bit))) length += delta[position++] * 2 ** (8 * bit);
      if (length === 0) length = 0x10000;
      if (offset + length > base.length || written + length > out.length) throw new CorruptObjectError('a delta copies past its base');
      base.copy(out, written, offset, offset + length);
      written += length;
    } else if (op) {
      if (position + op > delta.length || written + op > out.length) throw new CorruptObjectError('a delta inserts past its end');
      delta.copy(out, written, position, position + op);
      position += op;
      written += op;
    } else {
      throw new CorruptObjectError('a delta has a reserved instruction');
    }
  }
  if (written !== out.length) throw new CorruptObjectError('a delta makes less than it says');
  return out;
}

/** The entry of a tree object named `name`, found without parsing the others; null when there is none. */
export function findTreeEntry(content: Buffer, name: Buffer): RawTreeEntry | null {
  let position = 0;
  while (position < content.length) {
    const space = content.indexOf(0x20, position);
    const nul = content.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw new CorruptObjectError('a tree entry is cut short');
    if (nul - space - 1 === name.length && content.compare(name, 0, name.length, space + 1, nul) === 0) {
      return {
        mode: content.toString('latin1', position, space),
        name: content.subarray(space + 1, nul),
        oid: content.toString('hex', nul + 1, nul + 21),
      };
    }
    position = nul + 21;
  }
  return null;
}

/** A tree object's entries, in stored (git's) order. */
export function parseTree(content: Buffer): RawTreeEntry[] {
  const entries: RawTreeEntry[] = [];
  let position = 0;
  while (position < content.length) {
    const space = content.indexOf(0x20, position);
    const nul = content.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw new CorruptObjectError('a tree entry is cut short');
    entries.push({
      mode: content.toString('latin1', position, space),
      name: content.subarray(space + 1, nul),
      oid: content.toString('hex', nul + 1, nul + 21),
    });
    position = nul + 21;
  }
  return entries;
}

/** `<type> <size>\0` at the start of a loose object's inflated bytes. */
function looseHeader(data: Buffer, oid: string): { header: ObjectHeader; contentStart: number } | null {
  const nul = data.indexOf(0);
  if (nul < 0) return null;
  const match = /^(commit|tree|blob|tag) (\d+)$/.exec(data.toString('latin1', 0, nul));
  if (!match) throw new CorruptObjectError(`the loose object ${oid} has no valid header`);
  return { header: { type: match[1] as ObjectType, size: Number(match[2]) }, contentStart: nul + 1 };
}

/** An object whole: its type and its content (without the header). */
export type GitObject = { type: ObjectType; content: Buffer };

/** The packs a PackCache numbers (see its `key`). */
const MAX_PACK_NUMBERS = 2 ** 17;

/**
 * What is read of packs, kept in memory up to a bound in bytes, the least recently used forgotten first: windows of
 * a pack's bytes (git's packed-git windows: a history walk reads many small objects that lie together), and
 * objects that deltas are made against, for the next delta of the same chain (git's delta base cache: without it
 * every object of a deeply deltified pack would rebuild its whole chain again). Keyed by pack path, so that the
 * readers of several repositories can share one; a pack's content never changes under its name.
 */
export class PackCache {
  /** Keys are numbers (cheap to hash, unlike paths): each pack path gets a number, windows are negative. */
  private readonly entries = new Map<number, { value: Buffer | GitObject; size: number; used: boolean }>();
  private readonly packNumbers = new Map<string, number>();
  private bytes = 0;
  // Fields written out rather than as parameter properties: archive workers load this file with Node's type stripping.
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  window(pack: string, index: number): Buffer | undefined {
    return this.get(-this.key(pack, index) - 1) as Buffer | undefined;
  }

  keepWindow(pack: string, index: number, bytes: Buffer): void {
    this.set(-this.key(pack, index) - 1, bytes, bytes.length);
  }

  base(pack: string, offset: number): GitObject | undefined {
    return this.get(this.key(pack, offset)) as GitObject | undefined;
  }

  keepBase(pack: string, offset: number, object: GitObject): void {
    this.set(this.key(pack, offset), object, object.content.length);
  }

  /**
   * The pack's number and a position in it as one number: 2^17 packs of up to 64 GiB each within 2^53. A long-lived
   * process sees more packs than that (every push makes one): past them, everything is forgotten and the numbers
   * start again, rather than two packs' keys ever meeting.
   */
  private key(pack: string, position: number): number {
    let number = this.packNumbers.get(pack);
    if (number === undefined) {
      if (this.packNumbers.size >= MAX_PACK_NUMBERS) {
        this.packNumbers.clear();
        this.entries.clear();
        this.bytes = 0;
      }
      this.packNumbers.set(pack, (number = this.packNumbers.size));
    }
    return number * 2 ** 36 + position;
  }

  /** Marked as used, not moved: moving every entry read in a map of thousands cost a walk a tenth of its time. */
  private get(key: number): Buffer | GitObject | undefined {
    const kept = this.entries.get(key);
    if (!kept) return undefined;
    kept.used = true;
    return kept.value;
  }

  /**
   * Past the bound, the oldest entries go first, but one used since it was last passed over gets a second chance
   * at the back (the clock algorithm: about least recently used, for a mark per read).
   */
  private set(key: number, value: Buffer | GitObject, size: number): void {
    if (size > this.maxBytes / 4 || this.entries.has(key)) return;
    this.entries.set(key, { value, size, used: false });
    this.bytes += size;
    for (const [oldest, kept] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      if (kept.used) {
        kept.used = false;
        this.entries.set(oldest, kept);
      } else {
        this.bytes -= kept.size;
      }
    }
  }
}

/**
 * Reads a bare repository's objects as native git does: pack entries by positioned reads (never a whole pack in
 * memory), deltas rebuilt with a bounded cache of bases, loose objects from their files; a blob can be streamed
 * in pieces. The packs it opens are kept open until `close()`.
 */
export class ObjectReader {
  readonly gitdir: string;
  private packs?: Promise<PackIndex[]>;
  /** The packs once listed: what a read from memory searches (a pack added since is found by read()). */
  private loaded?: PackIndex[];
  private readonly files = new Map<string, Promise<FileHandle>>();
  private readonly cache: PackCache;
  private closed = false;
  /** Let go of (release): files are no longer kept open. */
  private released = false;

  /** `cache`: what is read of packs, shared with other readers, or the reader's own. */
  constructor(gitdir: string, cache = new PackCache(PACK_CACHE_BYTES)) {
    this.gitdir = gitdir;
    this.cache = cache;
  }

  /** The object's type and size; null when it is not there. Only headers are read (a delta's first bytes). */
  async header(oid: string): Promise<ObjectHeader | null> {
    const packed = await this.findPacked(oid);
    if (packed) return this.packedHeader(packed.pack, packed.offset, 0);
    const loose = await this.readLooseStart(oid);
    if (loose) return loose.header;
    // Packed meanwhile (housekeeping): found in the packs listed again.
    const repacked = await this.findPacked(oid);
    return repacked ? this.packedHeader(repacked.pack, repacked.offset, 0) : null;
  }

  /** The object whole; MissingObjectError when it is not there. */
  async read(oid: string): Promise<GitObject> {
    const inMemory = this.readInMemory(oid);
    if (inMemory) return inMemory;
    const packed = await this.findPacked(oid);
    if (packed) return this.readPacked(packed.pack, packed.offset, 0);
    const file = await this.readLooseFile(oid);
    if (!file) {
      // Packed meanwhile (housekeeping): found in the packs listed again.
      const repacked = await this.findPacked(oid);
      if (repacked) return this.readPacked(repacked.pack, repacked.offset, 0);
      throw new MissingObjectError(oid);
    }
    const data = await inflateWhole(file);
    const parsed = looseHeader(data, oid);
    if (!parsed || data.length - parsed.contentStart !== parsed.header.size)
      throw new CorruptObjectError(`the loose object ${oid} is cut short`);
    return { type: parsed.header.type, content: data.subarray(parsed.contentStart) };
  }

  /**
   * The object when all it needs is in memory already (the packs listed, its pack's windows, the bases of its
   * deltas), read without a turn of the event loop, as most reads of a history walk are; undefined otherwise,
   * and for anything out of the ordinary (a large object, a delta by ID, damage), which read() handles.
   */
  readInMemory(oid: string): GitObject | undefined {
    if (!this.loaded || oid.length !== 40) return undefined;
    const wanted = Buffer.from(oid, 'hex');
    for (const pack of this.loaded) {
      const offset = packOffsetOf(pack, wanted);
      if (offset !== null) return this.packedInMemory(pack, offset, 0);
    }
    return undefined;
  }

  private packedInMemory(pack: PackIndex, offset: number, depth: number): GitObject | undefined {
    const kept = this.cache.base(pack.packPath, offset);
    if (kept || depth > MAX_DELTA_DEPTH) return kept;
    const head = this.bytesInMemory(pack.packPath, offset, ENTRY_HEADER_BYTES);
    let entry: PackEntry;
    try {
      if (!head) return undefined;
      entry = parseEntry(pack, offset, head);
    } catch {
      return undefined;
    }
    const data =
      entry.dataEnd - entry.dataStart <= INFLATE_AT_ONCE_BYTES
        ? this.bytesInMemory(pack.packPath, entry.dataStart, entry.dataEnd - entry.dataStart)
        : undefined;
    const content = data && inflatedOrUndefined(data);
    const type = PACK_TYPES[entry.typeNumber];
    if (!content || (type && content.length !== entry.size)) return undefined;
    const base = type ? undefined : entry.baseOffset !== undefined ? this.packedInMemory(pack, entry.baseOffset, depth + 1) : undefined;
    if (!type && !base) return undefined;
    const object = type ? { type, content } : { type: base!.type, content: applyDelta(base!.content, content) };
    // A chain's first object, read for a delta: the next delta of the chain starts from it too.
    if (depth > 0 || !type) this.cache.keepBase(pack.packPath, offset, object);
    return object;
  }

  /** Bytes of a pack from the windows kept of it (one, or two it crosses); undefined when one is not kept. */
  private bytesInMemory(path: string, position: number, length: number): Buffer | undefined {
    const first = Math.floor(position / WINDOW_BYTES);
    const last = Math.floor((position + length - 1) / WINDOW_BYTES);
    const start = position - first * WINDOW_BYTES;
    if (first === last) return this.cache.window(path, first)?.subarray(start, start + length);
    const [before, after] = [this.cache.window(path, first), last === first + 1 ? this.cache.window(path, last) : undefined];
    return before && after ? Buffer.concat([before, after]).subarray(start, start + length) : undefined;
  }

  /** A tree's entries; MissingObjectError or CorruptObjectError when `oid` names no tree. */
  async readTree(oid: string): Promise<RawTreeEntry[]> {
    const { type, content } = await this.read(oid);
    if (type !== 'tree') throw new CorruptObjectError(`${oid} is a ${type}, not a tree`);
    return parseTree(content);
  }

  /**
   * An object's content in pieces of at most about 256 KiB: a stored (undeltified) object is inflated as it is
   * read, so that memory stays bounded whatever its size; a delta is rebuilt whole first, as git does.
   */
  async *contentChunks(oid: string): AsyncGenerator<Buffer> {
    const packed = await this.findPacked(oid);
    if (packed) {
      const entry = await this.packEntry(packed.pack, packed.offset);
      if (entry.typeNumber === OFS_DELTA || entry.typeNumber === REF_DELTA) {
        yield* slices((await this.readPacked(packed.pack, packed.offset, 0)).content);
        return;
      }
      yield* this.inflateRange(packed.pack.packPath, entry.dataStart, endOfEntry(packed.pack, packed.offset), 0, entry.size);
      return;
    }
    const loose = await this.readLooseStart(oid);
    if (!loose) throw new MissingObjectError(oid);
    const path = this.loosePath(oid);
    yield* this.inflateRange(path, 0, (await stat(path)).size, loose.contentStart, loose.header.size);
  }

  /**
   * Lets go of the packs this reader holds open (a repository forgotten, replaced or removed), leaving it usable
   * for reads still to come (a walk under way), which open and close their files each time: nothing holds the
   * reader to close them later. Reads under way keep their files for a while before they are closed.
   */
  release(): void {
    const handles = [...this.files.values()];
    this.files.clear();
    this.packs = undefined;
    this.released = true;
    setTimeout(() => {
      for (const handle of handles) handle.then((opened) => opened.close()).catch(() => {});
    }, RELEASE_GRACE_MS).unref();
  }

  /** Closes the packs this reader opened. */
  async close(): Promise<void> {
    this.closed = true;
    const handles = [...this.files.values()];
    this.files.clear();
    await Promise.all(handles.map((handle) => handle.then((opened) => opened.close()).catch(() => {})));
  }

  // ---- files ----

  /** A pack, kept open until close(); loose objects' files are opened for each read (an archive reads thousands). */
  private file(path: string): Promise<FileHandle> {
    if (this.closed) throw new Error('the object reader is closed');
    let handle = this.files.get(path);
    if (!handle) {
      handle = open(path, 'r');
      this.files.set(path, handle);
      // A file that failed to open is not kept: the next read tries again.
      handle.catch(() => this.files.delete(path));
    }
    return handle;
  }

  /** `length` bytes of a file from `position` (fewer at its end); a pack's small reads through the windows kept of it. */
  private async readAt(path: string, position: number, length: number): Promise<Buffer> {
    if (length > WINDOW_BYTES || !path.endsWith('.pack')) return this.readFileAt(path, position, length);
    const first = Math.floor(position / WINDOW_BYTES);
    const last = Math.floor((position + length - 1) / WINDOW_BYTES);
    const start = position - first * WINDOW_BYTES;
    // Most reads lie in one window, most often kept already.
    if (first === last) return (this.cache.window(path, first) ?? (await this.window(path, first))).subarray(start, start + length);
    const windows = await Promise.all(Array.from({ length: last - first + 1 }, (_, index) => this.window(path, first + index)));
    const bytes = windows.length === 1 ? windows[0] : Buffer.concat(windows);
    return bytes.subarray(start, start + length);
  }

  private async window(path: string, index: number): Promise<Buffer> {
    let window = this.cache.window(path, index);
    if (!window) {
      window = await this.readFileAt(path, index * WINDOW_BYTES, WINDOW_BYTES);
      this.cache.keepWindow(path, index, window);
    }
    return window;
  }

  private async readFileAt(path: string, position: number, length: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(length);
    const kept = path.endsWith('.pack') && !this.released;
    const handle = kept ? await this.file(path) : await open(path, 'r');
    let read = 0;
    try {
      while (read < length) {
        const { bytesRead } = await handle.read(buffer, read, length - read, position + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
    } finally {
      if (!kept) await handle.close();
    }
    return read === length ? buffer : buffer.subarray(0, read);
  }

  /**
   * The deflated bytes of [start, end) of a file inflated as they are read, `skip` bytes dropped from the front
   * (a loose object's header), `size` bytes expected.
   */
  private async *inflateRange(path: string, start: number, end: number, skip: number, size: number): AsyncGenerator<Buffer> {
    const reader = this;
    async function* compressed(): AsyncGenerator<Buffer> {
      for (let position = start; position < end; position += READ_BYTES)
        yield await reader.readAt(path, position, Math.min(READ_BYTES, end - position));
    }
    const source = Readable.from(compressed());
    // Pieces as large as what is read: zlib's 16 KiB default would cost a round trip to its thread per piece.
    const inflater = createInflate({ chunkSize: READ_BYTES });
    source.on('error', (error) => inflater.destroy(error));
    source.pipe(inflater);
    let dropped = 0;
    let produced = 0;
    try {
      for await (const chunk of inflater as AsyncIterable<Buffer>) {
        let piece = chunk;
        if (dropped < skip) {
          const drop = Math.min(skip - dropped, piece.length);
          dropped += drop;
          piece = piece.subarray(drop);
        }
        if (!piece.length) continue;
        produced += piece.length;
        if (produced > size) throw new CorruptObjectError(`an object in ${path} is longer than it says`);
        yield piece;
      }
    } finally {
      source.destroy();
      inflater.destroy();
    }
    if (produced !== size) throw new CorruptObjectError(`an object in ${path} is cut short`);
  }

  // ---- loose objects ----

  private loosePath(oid: string): string {
    return join(this.gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
  }

  /** The loose object's file whole (deflated), or null when there is none. */
  private async readLooseFile(oid: string): Promise<Buffer | null> {
    if (!/^[0-9a-f]{40}$/.test(oid)) return null;
    return readFile(this.loosePath(oid)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
  }

  /** A loose object's header, from the first bytes of its file; null when there is no such object. */
  private async readLooseStart(oid: string): Promise<{ header: ObjectHeader; contentStart: number } | null> {
    if (!/^[0-9a-f]{40}$/.test(oid)) return null;
    const path = this.loosePath(oid);
    for (const probe of [...HEADER_PROBE_BYTES, Infinity]) {
      const size = probe === Infinity ? (await stat(path)).size : probe;
      const start = await this.readAt(path, 0, size).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      if (!start) return null;
      const parsed = looseHeader(inflatePrefix(start), oid);
      if (parsed) return parsed;
      if (start.length < size) break;
    }
    throw new CorruptObjectError(`the loose object ${oid} has no header`);
  }

  // ---- packs ----

  private loadPacks(): Promise<PackIndex[]> {
    return (this.packs ??= (async () => {
      const directory = join(this.gitdir, 'objects', 'pack');
      const names = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [] as string[];
        throw error;
      });
      const packs: PackIndex[] = [];
      for (const name of names.filter((file) => file.endsWith('.idx')).sort()) {
        const packPath = join(directory, `${name.slice(0, -4)}.pack`);
        const [index, packSize] = await Promise.all([
          readFile(join(directory, name)),
          this.file(packPath).then(
            async (handle) => (await handle.stat()).size,
            () => -1,
          ),
        ]);
        // An index whose pack is gone (a repack under way) names nothing.
        if (packSize < 0) continue;
        if (index.readUInt32BE(0) !== 0xff744f63 || index.readUInt32BE(4) !== 2)
          throw new CorruptObjectError(`${name} is not a version 2 pack index`);
        packs.push({ packPath, index, count: index.readUInt32BE(8 + 255 * 4), packSize });
      }
      this.loaded = packs;
      return packs;
    })());
  }

  /** Where a pack holds the object; the packs are listed again once for an object found nowhere (a new pack). */
  private async findPacked(oid: string): Promise<PackedAt | null> {
    if (!/^[0-9a-f]{40}$/.test(oid)) return null;
    const wanted = Buffer.from(oid, 'hex');
    for (let round = 0; round < 2; round++) {
      const packs = await this.loadPacks();
      for (const pack of packs) {
        const offset = packOffsetOf(pack, wanted);
        if (offset !== null) return { pack, offset };
      }
      if (round === 0 && (await this.looseObjectExists(oid))) return null;
      this.packs = undefined;
    }
    return null;
  }

  private async looseObjectExists(oid: string): Promise<boolean> {
    return stat(this.loosePath(oid)).then(
      () => true,
      () => false,
    );
  }

  /** The entry's header. */
  private async packEntry(pack: PackIndex, offset: number): Promise<PackEntry> {
    return parseEntry(pack, offset, await this.readAt(pack.packPath, offset, ENTRY_HEADER_BYTES));
  }

  /** Where a delta's base is: in the same pack, or wherever its ID is. */
  private async baseOf(pack: PackIndex, entry: PackEntry): Promise<PackedAt | { oid: string }> {
    if (entry.baseOffset !== undefined) return { pack, offset: entry.baseOffset };
    const found = await this.findPacked(entry.baseOid!);
    return found ?? { oid: entry.baseOid! };
  }

  private async packedHeader(pack: PackIndex, offset: number, depth: number): Promise<ObjectHeader> {
    if (depth > MAX_DELTA_DEPTH) throw new CorruptObjectError('a delta chain is too long');
    const entry = await this.packEntry(pack, offset);
    const type = PACK_TYPES[entry.typeNumber];
    if (type) return { type, size: entry.size };
    // A delta's size is the second number of its data; its type is its base's.
    let start: Buffer | undefined;
    for (const probe of [...HEADER_PROBE_BYTES, entry.dataEnd - entry.dataStart]) {
      start = inflatePrefix(await this.readAt(pack.packPath, entry.dataStart, Math.min(probe, entry.dataEnd - entry.dataStart)));
      if (start.length >= 20 || probe >= entry.dataEnd - entry.dataStart) break;
    }
    const size = deltaResultSize(start!);
    const base = await this.baseOf(pack, entry);
    const baseHeader = 'pack' in base ? await this.packedHeader(base.pack, base.offset, depth + 1) : await this.header(base.oid);
    if (!baseHeader) throw new MissingObjectError(entry.baseOid!);
    return { type: baseHeader.type, size };
  }

  private async readPacked(pack: PackIndex, offset: number, depth: number): Promise<GitObject> {
    if (depth > MAX_DELTA_DEPTH) throw new CorruptObjectError('a delta chain is too long');
    const kept = this.cache.base(pack.packPath, offset);
    if (kept) return kept;
    const entry = await this.packEntry(pack, offset);
    // Its data up to deflate's bound for its size; the exact end (the next entry's start) for data past that bound.
    let data = await inflateWhole(await this.readAt(pack.packPath, entry.dataStart, entry.dataEnd - entry.dataStart)).catch(() => null);
    if (data === null || (PACK_TYPES[entry.typeNumber] && data.length !== entry.size)) {
      data = await inflateWhole(await this.readAt(pack.packPath, entry.dataStart, endOfEntry(pack, offset) - entry.dataStart)).catch(() => {
        throw new CorruptObjectError(`a pack entry at ${offset} does not inflate`);
      });
    }
    const type = PACK_TYPES[entry.typeNumber];
    if (type) {
      if (data.length !== entry.size) throw new CorruptObjectError(`a pack entry at ${offset} is not the size it says`);
      const object = { type, content: data };
      // A chain's first object, read for a delta: the next delta of the chain starts from it too.
      if (depth > 0) this.cache.keepBase(pack.packPath, offset, object);
      return object;
    }
    const base = await this.baseOf(pack, entry);
    const resolved = 'pack' in base ? await this.readPacked(base.pack, base.offset, depth + 1) : await this.read(base.oid);
    const object = { type: resolved.type, content: applyDelta(resolved.content, data) };
    this.cache.keepBase(pack.packPath, offset, object);
    return object;
  }
}

/** A pack entry's header, from its first bytes (ENTRY_HEADER_BYTES of them, fewer at the pack's end). */
function parseEntry(pack: PackIndex, offset: number, head: Buffer): PackEntry {
  let position = 0;
  let byte = head[position++];
  const typeNumber = (byte >> 4) & 7;
  let size = byte & 0x0f;
  let shift = 4;
  while (byte & 0x80) {
    if (position >= head.length) throw new CorruptObjectError(`a pack entry at ${offset} is cut short`);
    byte = head[position++];
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  }
  const entry: PackEntry = { typeNumber, size, dataStart: 0, dataEnd: 0 };
  if (typeNumber === OFS_DELTA) {
    byte = head[position++];
    let distance = byte & 0x7f;
    while (byte & 0x80) {
      if (position >= head.length) throw new CorruptObjectError(`a pack entry at ${offset} is cut short`);
      byte = head[position++];
      distance = (distance + 1) * 128 + (byte & 0x7f);
    }
    entry.baseOffset = offset - distance;
  } else if (typeNumber === REF_DELTA) {
    entry.baseOid = head.toString('hex', position, position + 20);
    position += 20;
  } else if (!PACK_TYPES[typeNumber]) {
    throw new CorruptObjectError(`a pack entry at ${offset} has the unknown type ${typeNumber}`);
  }
  entry.dataStart = offset + position;
  entry.dataEnd = Math.min(pack.packSize - PACK_TRAILER_BYTES, entry.dataStart + deflateBound(size));
  if (entry.dataEnd <= entry.dataStart) throw new CorruptObjectError(`a pack entry at ${offset} runs past the pack's end`);
  return entry;
}

/** An object's offset in a pack, by binary search of the index's sorted names; null when it is not there. */
function packOffsetOf(pack: PackIndex, oid: Buffer): number | null {
  const { index, count } = pack;
  const fanout = 8;
  let low = oid[0] === 0 ? 0 : index.readUInt32BE(fanout + (oid[0] - 1) * 4);
  let high = index.readUInt32BE(fanout + oid[0] * 4);
  const names = fanout + 256 * 4;
  // The first four bytes compared as a number, in JavaScript: the whole name only when they are equal.
  const wanted = oid.readUInt32BE(0);
  while (low < high) {
    const middle = (low + high) >>> 1;
    const prefix = index.readUInt32BE(names + middle * 20);
    const compared = prefix !== wanted ? prefix - wanted : index.compare(oid, 0, 20, names + middle * 20, names + middle * 20 + 20);
    if (compared === 0) return offsetAt(index, count, middle);
    // `compared` orders the index's name against the wanted one.
    if (compared > 0) high = middle;
    else low = middle + 1;
  }
  return null;
}

function offsetAt(index: Buffer, count: number, position: number): number {
  const offsets = 8 + 256 * 4 + count * 24;
  const offset = index.readUInt32BE(offsets + position * 4);
  if (!(offset & 0x80000000)) return offset;
  // Past 2 GiB: the large offsets' table.
  return Number(index.readBigUInt64BE(offsets + count * 4 + (offset & 0x7fffffff) * 8));
}

/** Where the entry starting at `offset` ends: the next entry's start, or the pack's checksum. */
function endOfEntry(pack: PackIndex, offset: number): number {
  if (!pack.sortedOffsets) {
    const sorted = new Float64Array(pack.count);
    for (let position = 0; position < pack.count; position++) sorted[position] = offsetAt(pack.index, pack.count, position);
    pack.sortedOffsets = sorted.sort();
  }
  const sorted = pack.sortedOffsets;
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] <= offset) low = middle + 1;
    else high = middle;
  }
  return low < sorted.length ? sorted[low] : pack.packSize - 20;
}

/** A whole buffer in streaming-sized pieces (views, no copy). */
function* slices(content: Buffer): Generator<Buffer> {
  for (let start = 0; start < content.length; start += READ_BYTES) yield content.subarray(start, start + READ_BYTES);
}
