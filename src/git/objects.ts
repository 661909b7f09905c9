import { createHash } from 'node:crypto';
import { mkdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { RepositoryMissingError } from './errors.js';
import { gitFs } from './fs.js';

/**
 * Writing objects, byte for byte as isomorphic-git writes them (so an object keeps its ID), but hashed and
 * compressed synchronously with Node's own SHA-1 and zlib: isomorphic-git goes through Web Crypto and a
 * CompressionStream for each object, and probes its file system twice per call, which made up most of a
 * one-file commit's time. Objects are small and these calls take microseconds.
 */

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** Writes a loose object unless it is there already (its name is its content's hash); its ID. */
export async function writeLooseObject(gitdir: string, type: ObjectType, content: Uint8Array): Promise<string> {
  const header = Buffer.from(`${type} ${content.byteLength}\0`);
  const oid = createHash('sha1').update(header).update(content).digest('hex');
  const directory = join(gitdir, 'objects', oid.slice(0, 2));
  const path = join(directory, oid.slice(2));
  // There already: made new, as git freshens an object it would write, so that housekeeping does not take an
  // unreachable object this write is about to make reachable again.
  const now = new Date();
  if (
    await utimes(path, now, now).then(
      () => true,
      () => false,
    )
  )
    return oid;
  const data = deflateSync(Buffer.concat([header, content]));
  await gitFs.promises.writeFile(path, data).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    // Only the fan-out directory is made: a repository that is not there is not made by a write.
    await mkdir(directory).catch((failure: NodeJS.ErrnoException) => {
      if (failure.code === 'ENOENT') throw new RepositoryMissingError(gitdir);
      if (failure.code !== 'EEXIST') throw failure;
    });
    await gitFs.promises.writeFile(path, data);
  });
  return oid;
}

/** A mode as git writes it in a tree (isomorphic-git's reading of odd modes: `100664` is a plain file). */
export function canonicalMode(mode: string): string {
  if (/^0?4/.test(mode)) return '40000';
  if (/^1006/.test(mode)) return '100644';
  if (/^1007/.test(mode)) return '100755';
  if (/^120/.test(mode)) return '120000';
  if (/^160/.test(mode)) return '160000';
  throw new Error(`unknown file mode: ${mode}`);
}

/** A tree's bytes: entries in git's order (by name, bytewise, a directory's name as if it ended in `/`). */
export function treeContent(entries: readonly { name: string; mode: string; oid: string }[]): Buffer {
  const sorted = entries.map((entry) => {
    const mode = canonicalMode(entry.mode);
    const name = Buffer.from(entry.name, 'utf8');
    return { mode, name, oid: entry.oid, key: mode === '40000' ? Buffer.concat([name, Buffer.from('/')]) : name };
  });
  sorted.sort((a, b) => Buffer.compare(a.key, b.key));
  return Buffer.concat(
    sorted.flatMap((entry) => [Buffer.from(`${entry.mode} `), entry.name, Buffer.from([0]), Buffer.from(entry.oid, 'hex')]),
  );
}

/** `+0130`: minutes east of UTC as git writes them. */
const zone = (offsetMinutes: number) => {
  const minutes = Math.abs(offsetMinutes);
  return `${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}${String(minutes % 60).padStart(2, '0')}`;
};

interface Person {
  name: string;
  email: string;
  timestamp: number;
  offsetMinutes: number;
}

/** The text without the line ends it ends with (a loop: `/\n+$/` takes quadratic time on a long run of them). */
export function withoutFinalNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '\n') end--;
  return text.slice(0, end);
}

/**
 * A commit's message as isomorphic-git writes (and reads) one: carriage returns dropped, no blank lines before it, one line end after it.
 */
export const commitMessage = (message: string) => `${withoutFinalNewlines(message.replace(/\r/g, '').replace(/^\n+/, ''))}\n`;

/** A commit's bytes; its people as `writtenPerson` gives them. */
export function commitContent(commit: {
  tree: string;
  parents: readonly string[];
  message: string;
  author: Person;
  committer: Person;
}): Buffer {
  const person = (who: Person) => `${who.name} <${who.email}> ${who.timestamp} ${zone(who.offsetMinutes)}`;
  const parents = commit.parents.map((parent) => `parent ${parent}\n`).join('');
  return Buffer.from(
    `tree ${commit.tree}\n${parents}author ${person(commit.author)}\ncommitter ${person(commit.committer)}\n\n` +
      `${commitMessage(commit.message)}`,
    'utf8',
  );
}

/** git's "crud" around a name or address: control characters, spaces and `.,:;<>"\\'`. */
const isCrud = (char: string) => char <= ' ' || '.,:;<>"\\\''.includes(char);

/**
 * A name or address as git writes it into an identity line: crud trimmed from both ends, `<`, `>` and line
 * ends dropped, so that a caller's `author_name` cannot end the line or forge another header.
 */
export function identityText(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isCrud(text[start])) start++;
  while (end > start && isCrud(text[end - 1])) end--;
  return text.slice(start, end).replace(/[<>\r\n\0]/g, '');
}

/** A person as a commit or tag will hold them: name and address as git writes them. */
export const writtenPerson = <T extends Person>(who: T): T => ({ ...who, name: identityText(who.name), email: identityText(who.email) });

/** Whether a person's time reads back as given, so that a commit can be kept as written: whole seconds, an offset of two-digit hours. */
export const readsBackAsWritten = (who: Person) =>
  Number.isSafeInteger(who.timestamp) && Number.isInteger(who.offsetMinutes) && Math.abs(who.offsetMinutes) < 100 * 60;
