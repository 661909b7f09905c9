// Runs in archive workers (src/git/archive-worker.ts), loaded from source under vitest with Node's type
// stripping: erasable TypeScript only.
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { Zip, ZipDeflate } from 'fflate';
import { bzip2ed } from './bzip2.js';
import type { ObjectReader } from './object-reader.js';

export type ArchiveFormat = 'tar' | 'tar.gz' | 'tar.bz2' | 'zip';

/**
 * What one archive may hold, in bytes of file content and a tar header per entry. Archives are streamed, so this
 * bounds what one request may cost (reading, compressing and sending it: about 20 s of a core per GiB), not
 * memory; it also keeps a zip below the 4 GiB a zip without ZIP64 can hold.
 */
export const MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024;

/** An entry's cost beyond its content: a tar header (a zip's local and central headers are smaller). */
const ENTRY_OVERHEAD = 512;

/** The commit to archive, and how. */
export interface ArchiveSpec {
  /** The commit's ID: a tar's global header names it, as git archive writes it. */
  commit: string;
  tree: string;
  /** The committer date, in seconds since the epoch: every entry's date. */
  time: number;
  /** The top directory every entry is under (without a slash). */
  prefix: string;
  format: ArchiveFormat;
  /** MAX_ARCHIVE_BYTES when not given. */
  limit?: number;
}

/** The tree holds more than an archive may. */
export class ArchiveLimitError extends Error {
  override readonly name = 'ArchiveLimitError';
  readonly limit: number;
  constructor(limit: number) {
    super(`the archive would hold more than ${limit} bytes`);
    this.limit = limit;
  }
}

type ItemKind = 'directory' | 'file' | 'executable' | 'symlink';

/** One entry of an archive, in the order `git archive` writes them: a directory before what it holds. */
interface ArchiveItem {
  /** The path's bytes as the tree has them (a directory's with its final slash). */
  path: Buffer;
  kind: ItemKind;
  /** The blob, or for a directory its tree (or a submodule's commit): git names long paths' headers by it. */
  oid: string;
}

const SLASH = Buffer.from('/');

function kindOf(mode: string): ItemKind | 'tree' {
  if (mode === '40000' || mode === '040000') return 'tree';
  // A submodule is an empty directory, as git archive leaves it.
  if (mode === '160000') return 'directory';
  if (mode === '120000') return 'symlink';
  // git reads any other file mode by its owner's execute bit.
  return Number.parseInt(mode, 8) & 0o100 ? 'executable' : 'file';
}

/** The tree's entries under `prefix/`, depth first in git's order, the top directory first. */
async function* itemsOf(reader: ObjectReader, tree: string, prefix: string): AsyncGenerator<ArchiveItem> {
  const top = Buffer.from(`${prefix}/`);
  yield { path: top, kind: 'directory', oid: tree };
  async function* visit(oid: string, directory: Buffer): AsyncGenerator<ArchiveItem> {
    for (const entry of await reader.readTree(oid)) {
      const kind = kindOf(entry.mode);
      const path = Buffer.concat([directory, entry.name]);
      if (kind === 'tree') {
        const inside = Buffer.concat([path, SLASH]);
        yield { path: inside, kind: 'directory', oid: entry.oid };
        yield* visit(entry.oid, inside);
      } else {
        yield { path: kind === 'directory' ? Buffer.concat([path, SLASH]) : path, kind, oid: entry.oid };
      }
    }
  }
  yield* visit(tree, top);
}

/** A file's size, from its object's header alone (a delta's first bytes at most). */
async function sizeOf(reader: ObjectReader, oid: string): Promise<number> {
  const header = await reader.header(oid);
  if (!header) throw new Error(`the object ${oid} is missing`);
  return header.size;
}

/**
 * Throws ArchiveLimitError when the tree holds more than `limit` bytes: decided from the objects' headers, before
 * a byte of the archive is made, without inflating any file.
 */
export async function checkArchiveSize(reader: ObjectReader, tree: string, limit = MAX_ARCHIVE_BYTES): Promise<number> {
  let size = 0;
  for await (const item of itemsOf(reader, tree, '')) {
    size += ENTRY_OVERHEAD + (item.kind === 'directory' ? 0 : await sizeOf(reader, item.oid));
    if (size > limit) throw new ArchiveLimitError(limit);
  }
  return size;
}

// ---- tar, as git archive writes it (archive-tar.c): ustar headers, pax records where they fall short ----

const RECORD = 512;
/** git writes in blocks of 20 records, the last one padded with zeros (and one more when fewer than two records of zeros are left). */
const BLOCK = 20 * RECORD;
/** The largest value a header's 11 octal digits hold. */
const USTAR_MAX = 0o77777777777;
/** Permissions with git archive's default `tar.umask` (002). */
const TAR_MODES = { directory: 0o775, file: 0o664, executable: 0o775, symlink: 0o777 } as const;
const TAR_TYPES = { directory: '5', file: '0', executable: '0', symlink: '2', pax: 'x', paxGlobal: 'g' } as const;

const octal = (value: number, digits: number) => value.toString(8).padStart(digits, '0');

/** One ustar header; `name` and `prefix` as bytes, `size` counted only for files (and pax records). */
function tarHeader(fields: {
  name: Buffer;
  prefix?: Buffer;
  mode: number;
  size: number;
  time: number;
  type: string;
  linkname?: Buffer;
}): Buffer {
  const header = Buffer.alloc(RECORD);
  fields.name.copy(header, 0, 0, 100);
  header.write(`${octal(fields.mode, 7)}\0`, 100, 'latin1');
  header.write(`${octal(0, 7)}\0`, 108, 'latin1');
  header.write(`${octal(0, 7)}\0`, 116, 'latin1');
  header.write(`${octal(fields.size, 11)}\0`, 124, 'latin1');
  header.write(`${octal(fields.time, 11)}\0`, 136, 'latin1');
  header.write(fields.type, 156, 'latin1');
  fields.linkname?.copy(header, 157, 0, 100);
  header.write('ustar\0' + '00', 257, 'latin1');
  header.write('root', 265, 'latin1');
  header.write('root', 297, 'latin1');
  header.write(`${octal(0, 7)}\0`, 329, 'latin1');
  header.write(`${octal(0, 7)}\0`, 337, 'latin1');
  fields.prefix?.copy(header, 345, 0, 155);
  // The checksum counts its own field as spaces.
  let checksum = 8 * 0x20;
  for (let index = 0; index < RECORD; index++) if (index < 148 || index >= 156) checksum += header[index];
  header.write(`${octal(checksum, 7)}\0`, 148, 'latin1');
  return header;
}

/** A pax record, `<length> <keyword>=<value>\n`, its length counting itself. */
function paxRecord(keyword: string, value: Buffer): Buffer {
  const rest = 1 + Buffer.byteLength(keyword) + 1 + value.length + 1;
  let length = rest + 1;
  while (String(length).length + rest > length) length += 1;
  return Buffer.concat([Buffer.from(`${length} ${keyword}=`), value, Buffer.from('\n')]);
}

const padding = (size: number) => Buffer.alloc((RECORD - (size % RECORD)) % RECORD);

/** Where git splits a long path between the header's prefix and name fields: at a slash (0 when it cannot). */
function pathPrefixLength(path: Buffer, maxLength: number): number {
  let index = path.length;
  if (index > 1 && path[index - 1] === 0x2f) index -= 1;
  if (index > maxLength) index = maxLength;
  do index -= 1;
  while (index > 0 && path[index] !== 0x2f);
  return index;
}

async function* tarChunks(reader: ObjectReader, spec: ArchiveSpec): AsyncGenerator<Buffer> {
  let written = 0;
  const record = (data: Buffer) => {
    written += data.length;
    return data;
  };
  // The commit's ID, and a date past what the header holds, in a global pax header.
  const time = Math.min(Math.max(spec.time, 0), USTAR_MAX);
  const global = Buffer.concat([
    paxRecord('comment', Buffer.from(spec.commit)),
    ...(spec.time > USTAR_MAX ? [paxRecord('mtime', Buffer.from(String(spec.time)))] : []),
  ]);
  yield record(tarHeader({ name: Buffer.from('pax_global_header'), mode: 0o666, size: global.length, time, type: TAR_TYPES.paxGlobal }));
  yield record(Buffer.concat([global, padding(global.length)]));
  for await (const item of itemsOf(reader, spec.tree, spec.prefix)) {
    const pax: Buffer[] = [];
    let name = item.path;
    let prefix: Buffer | undefined;
    if (item.path.length > 100) {
      const prefixLength = pathPrefixLength(item.path, 155);
      if (prefixLength > 0 && item.path.length - prefixLength - 1 <= 100) {
        prefix = item.path.subarray(0, prefixLength);
        name = item.path.subarray(prefixLength + 1);
      } else {
        name = Buffer.from(`${item.oid}.data`);
        pax.push(paxRecord('path', item.path));
      }
    }
    let linkname: Buffer | undefined;
    let size = 0;
    if (item.kind === 'symlink') {
      const target = (await reader.read(item.oid)).content;
      linkname = target;
      if (target.length > 100) {
        linkname = Buffer.from(`see ${item.oid}.paxheader`);
        pax.push(paxRecord('linkpath', target));
      }
    } else if (item.kind !== 'directory') {
      size = await sizeOf(reader, item.oid);
    }
    if (pax.length) {
      const records = Buffer.concat(pax);
      yield record(tarHeader({ name: Buffer.from(`${item.oid}.paxheader`), mode: 0o666, size: records.length, time, type: TAR_TYPES.pax }));
      yield record(Buffer.concat([records, padding(records.length)]));
    }
    yield record(tarHeader({ name, prefix, mode: TAR_MODES[item.kind], size, time, type: TAR_TYPES[item.kind], linkname }));
    if (size > 0) {
      for await (const chunk of reader.contentChunks(item.oid)) yield record(chunk);
      yield record(padding(size));
    }
  }
  const tail = BLOCK - (written % BLOCK);
  yield Buffer.alloc(tail < 2 * RECORD ? tail + BLOCK : tail);
}

/** A stream of bytes gzipped as it is read (zlib's default level, as `git archive --format=tar.gz`). */
async function* gzipped(source: AsyncGenerator<Buffer>): AsyncGenerator<Buffer> {
  const input = Readable.from(source);
  // Large pieces: zlib's 16 KiB default would cost a round trip to its thread per piece.
  const gzip = createGzip({ chunkSize: 256 * 1024 });
  input.on('error', (error) => gzip.destroy(error));
  input.pipe(gzip);
  try {
    for await (const chunk of gzip as AsyncIterable<Buffer>) yield chunk;
  } finally {
    input.destroy();
    gzip.destroy();
  }
}

// ---- zip ----

/** Unix modes in a zip entry's external attributes (with "made by" Unix), as git archive sets them. */
const ZIP_MODES = { directory: 0o040755, file: 0o100644, executable: 0o100755, symlink: 0o120777 } as const;

/** The times a zip entry can say (MS-DOS dates, 1980 to 2107, in local time: a day inside on either side). */
const ZIP_FIRST = new Date('1980-01-02T00:00:00Z');
const ZIP_LAST = new Date('2099-12-30T00:00:00Z');

async function* zipChunks(reader: ObjectReader, spec: ArchiveSpec): AsyncGenerator<Uint8Array> {
  const made: Uint8Array[] = [];
  let failure: Error | null = null;
  let done = false;
  const zip = new Zip((error, chunk, final) => {
    if (error) failure = error;
    else made.push(chunk);
    if (final) done = true;
  });
  // What the zip has made so far; fflate deflates synchronously as it is given content.
  function* flush(): Generator<Uint8Array> {
    if (failure) throw failure;
    yield* made.splice(0);
  }
  const date = new Date(spec.time * 1000);
  const mtime = date < ZIP_FIRST ? ZIP_FIRST : date > ZIP_LAST ? ZIP_LAST : date;
  for await (const item of itemsOf(reader, spec.tree, spec.prefix)) {
    const file = new ZipDeflate(item.path.toString('utf8'), { level: item.kind === 'directory' || item.kind === 'symlink' ? 0 : 6 });
    file.os = 3;
    file.attrs = (ZIP_MODES[item.kind] << 16) >>> 0;
    file.mtime = mtime;
    zip.add(file);
    if (item.kind !== 'directory') {
      for await (const chunk of reader.contentChunks(item.oid)) {
        file.push(chunk, false);
        yield* flush();
      }
    }
    file.push(new Uint8Array(), true);
    yield* flush();
  }
  zip.end();
  yield* flush();
  if (!done) throw new Error('the zip archive did not finish');
}

/**
 * The files of a commit's tree as an archive, made as it is read, as `git archive --prefix=<prefix>/` writes
 * one: every file under the top directory `prefix`, directories before what they hold, executable files and
 * symbolic links kept, dated at the commit. A tar is byte for byte git's; a tar.gz is that tar gzipped (by
 * Node's zlib, whose deflate differs from git's in its bytes), a tar.bz2 that tar bzip2ed (src/git/bzip2.ts);
 * a zip holds the same entries. Files are read in
 * pieces, so memory stays bounded whatever the archive's size. Call checkArchiveSize first for the limit.
 */
export function archiveChunks(reader: ObjectReader, spec: ArchiveSpec): AsyncGenerator<Uint8Array> {
  if (spec.format === 'zip') return zipChunks(reader, spec);
  const tar = tarChunks(reader, spec);
  if (spec.format === 'tar.bz2') return bzip2ed(tar);
  return spec.format === 'tar' ? tar : gzipped(tar);
}
