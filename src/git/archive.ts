import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Zip, ZipDeflate } from 'fflate';
import { pack as tarPack, type Header } from 'tar-stream';
import { GitError } from './errors.js';
import type { Commit, Repository, TreeEntry } from './repository.js';

export type ArchiveFormat = 'tar' | 'tar.gz' | 'zip';

/** What an archive holds at most, in bytes of file content (and a tar header per entry): it is built in memory. */
export const MAX_ARCHIVE_BYTES = 100 * 1024 * 1024;

/** An entry's cost beyond its content: a tar header (a zip's local and central headers are smaller). */
const ENTRY_OVERHEAD = 512;

/** The tree holds more than an archive may. */
export class ArchiveTooLargeError extends GitError {
  override readonly name = 'ArchiveTooLargeError';
  constructor(readonly limit: number) {
    super(`the archive would hold more than ${limit} bytes`);
  }
}

/** One entry of an archive, in the order `git archive` writes them: a directory before what it holds. */
interface ArchiveItem {
  path: string;
  kind: 'directory' | 'file' | 'executable' | 'symlink';
  content: Uint8Array;
}

const EMPTY = new Uint8Array();

/** The tree's entries under `prefix/`, depth first in git's order, their content read; past `limit` throws. */
async function itemsOf(repo: Repository, tree: string, prefix: string, limit: number): Promise<ArchiveItem[]> {
  const items: ArchiveItem[] = [{ path: `${prefix}/`, kind: 'directory', content: EMPTY }];
  let size = ENTRY_OVERHEAD;
  const visit = async (entries: readonly TreeEntry[], directory: string): Promise<void> => {
    for (const entry of entries) {
      const path = `${directory}${entry.name}`;
      size += ENTRY_OVERHEAD;
      if (size > limit) throw new ArchiveTooLargeError(limit);
      // A submodule is an empty directory, as git archive leaves it.
      if (entry.type !== 'blob') items.push({ path: `${path}/`, kind: 'directory', content: EMPTY });
      if (entry.type === 'tree') await visit(await repo.readTree(entry.oid), `${path}/`);
      if (entry.type !== 'blob') continue;
      const content = await repo.readBlob(entry.oid);
      size += content.byteLength;
      if (size > limit) throw new ArchiveTooLargeError(limit);
      items.push({ path, kind: entry.mode === '120000' ? 'symlink' : entry.mode === '100755' ? 'executable' : 'file', content });
    }
  };
  await visit(await repo.readTree(tree), `${prefix}/`);
  return items;
}

/** Modes as git archive writes them with its default `tar.umask` (002). */
const TAR_MODES = { directory: 0o775, file: 0o664, executable: 0o775, symlink: 0o777 } as const;

async function tarOf(items: ArchiveItem[], mtime: Date): Promise<Uint8Array> {
  const pack = tarPack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk) => void chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    pack.on('end', resolve);
    pack.on('error', reject);
  });
  const add = (header: Partial<Header> & Pick<Header, 'name'>, body?: Uint8Array) =>
    new Promise<void>((resolve, reject) => {
      const written = (error?: Error | null) => (error ? reject(error) : resolve());
      // tar-stream takes a body only as a Buffer (a view of the same bytes).
      if (body) pack.entry(header, Buffer.from(body.buffer, body.byteOffset, body.byteLength), written);
      else pack.entry(header, written);
    });
  for (const item of items) {
    const header = { name: item.path, mode: TAR_MODES[item.kind], mtime, uname: 'root', gname: 'root' };
    if (item.kind === 'directory') await add({ ...header, type: 'directory' });
    else if (item.kind === 'symlink') await add({ ...header, type: 'symlink', linkname: Buffer.from(item.content).toString('utf8') });
    else await add({ ...header, type: 'file' }, item.content);
  }
  pack.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/** Unix modes in a zip entry's external attributes (with "made by" Unix), as git archive sets them. */
const ZIP_MODES = { directory: 0o040755, file: 0o100644, executable: 0o100755, symlink: 0o120777 } as const;

/** The times a zip entry can say (MS-DOS dates, 1980 to 2107, in local time: a day inside on either side). */
const ZIP_FIRST = new Date('1980-01-02T00:00:00Z');
const ZIP_LAST = new Date('2099-12-30T00:00:00Z');

async function zipOf(items: ArchiveItem[], mtime: Date): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let failure: Error | null = null;
  let done = false;
  const zip = new Zip((error, chunk, final) => {
    if (error) failure = error;
    else chunks.push(chunk);
    if (final) done = true;
  });
  for (const item of items) {
    const file = new ZipDeflate(item.path, { level: item.kind === 'directory' || item.kind === 'symlink' ? 0 : 6 });
    file.os = 3;
    file.attrs = (ZIP_MODES[item.kind] << 16) >>> 0;
    file.mtime = mtime < ZIP_FIRST ? ZIP_FIRST : mtime > ZIP_LAST ? ZIP_LAST : mtime;
    zip.add(file);
    file.push(item.content, true);
    // Deflating is synchronous: let other calls run between files.
    await new Promise((resolve) => setImmediate(resolve));
    if (failure) throw failure;
  }
  zip.end();
  if (failure) throw failure;
  if (!done) throw new Error('the zip archive did not finish');
  return Buffer.concat(chunks);
}

/**
 * The files of a commit's tree as an archive, as `git archive --prefix=<prefix>/` writes one: every file
 * under the top directory `prefix`, directories before what they hold, executable files and symbolic links
 * kept, dated at the commit. Throws ArchiveTooLargeError past `limit` bytes of content.
 */
export async function archiveOf(repo: Repository, commit: Commit, prefix: string, format: ArchiveFormat, limit = MAX_ARCHIVE_BYTES): Promise<Uint8Array> {
  const items = await itemsOf(repo, commit.tree, prefix, limit);
  const mtime = new Date(commit.committer.timestamp * 1000);
  if (format === 'zip') return zipOf(items, mtime);
  const tar = await tarOf(items, mtime);
  return format === 'tar' ? tar : promisify(gzip)(tar);
}
