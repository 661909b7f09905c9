import { CorruptObjectError, type RawTreeEntry } from './object-reader.js';
import { canonicalMode, commitMessage } from './objects.js';

/**
 * Commits, annotated tags and trees read from their bytes as git reads them (and as isomorphic-git did, whose
 * reading the answers were first written against): a commit's first `tree` and the `parent` lines right after
 * it, the first of any other header, the message as isomorphic-git gives it back.
 */

/** Who wrote a commit or a tag, and when (seconds since the epoch; the offset in minutes east of UTC). */
export interface Signature {
  name: string;
  email: string;
  timestamp: number;
  /** Minutes east of UTC (`+0200` is 120): the sign git writes, unlike isomorphic-git's `timezoneOffset`. */
  offsetMinutes: number;
}

export interface Commit {
  oid: string;
  tree: string;
  parents: string[];
  message: string;
  author: Signature;
  committer: Signature;
}

/** An annotated tag object. */
export interface AnnotatedTag {
  oid: string;
  name: string;
  object: string;
  type: string;
  message: string;
  tagger: Signature;
}

export type EntryType = 'blob' | 'tree' | 'commit';

/** One entry of a tree: a file (`100644`, `100755`, `120000` for a link), a directory (`040000`) or a submodule. */
export interface TreeEntry {
  name: string;
  mode: string;
  oid: string;
  type: EntryType;
}

const NOBODY: Signature = Object.freeze({ name: '', email: '', timestamp: 0, offsetMinutes: 0 });

/** `Name <address> 1700000000 +0200`; a line that is not one reads as nobody at the epoch, rather than failing the read. */
function parseSignature(line: string | undefined): Signature {
  const match = line === undefined ? null : /^(.*) <(.*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(line);
  if (!match) return NOBODY;
  const minutes = Number(match[5]) * 60 + Number(match[6]);
  return Object.freeze({
    name: match[1],
    email: match[2],
    timestamp: Number(match[3]),
    offsetMinutes: minutes === 0 ? 0 : (match[4] === '-' ? -1 : 1) * minutes,
  });
}

/** The header lines before the first blank line (a line starting with a space continues the one before), and the rest. */
function headersAndBody(text: string): { headers: [string, string][]; body: string | null } {
  const split = text.indexOf('\n\n');
  const lines = (split < 0 ? text : text.slice(0, split)).split('\n');
  const headers: [string, string][] = [];
  for (const line of lines) {
    if (line.startsWith(' ') && headers.length) headers[headers.length - 1][1] += `\n${line.slice(1)}`;
    else headers.push([line.slice(0, Math.max(0, line.indexOf(' '))), line.slice(line.indexOf(' ') + 1)]);
  }
  return { headers, body: split < 0 ? null : text.slice(split + 2) };
}

export function parseCommit(oid: string, content: Buffer): Commit {
  const { headers, body } = headersAndBody(content.toString('utf8'));
  if (headers[0]?.[0] !== 'tree') throw new CorruptObjectError(`the commit ${oid} does not start with its tree`);
  let index = 1;
  const parents: string[] = [];
  while (index < headers.length && headers[index][0] === 'parent') parents.push(headers[index++][1]);
  const first = new Map<string, string>();
  for (; index < headers.length; index++) if (!first.has(headers[index][0])) first.set(headers[index][0], headers[index][1]);
  return Object.freeze({
    oid,
    tree: headers[0][1],
    parents: Object.freeze(parents) as string[],
    message: commitMessage(body ?? ''),
    author: parseSignature(first.get('author')),
    committer: parseSignature(first.get('committer')),
  });
}

/** An annotated tag, its message exactly as stored (isomorphic-git's own reading changed it). */
export function parseAnnotatedTag(oid: string, content: Buffer): AnnotatedTag {
  const { headers, body } = headersAndBody(content.toString('utf8'));
  const first = new Map<string, string>();
  for (const [key, value] of headers) if (!first.has(key)) first.set(key, value);
  return {
    oid,
    name: first.get('tag') ?? '',
    object: first.get('object') ?? '',
    type: first.get('type') ?? '',
    message: body ?? '',
    tagger: parseSignature(first.get('tagger')),
  };
}

export const typeOfMode = (mode: string): EntryType =>
  mode === '040000' || mode === '40000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';

/**
 * A tree's entries as they are kept and shown: modes as isomorphic-git read them (`040000`, odd file modes made
 * plain), names as UTF-8, in order of their names' bytes.
 */
export function treeEntries(raw: readonly RawTreeEntry[]): TreeEntry[] {
  const entries = raw.map((entry) => {
    let mode: string;
    try {
      mode = canonicalMode(entry.mode);
    } catch {
      // A mode git itself would flag (fsck), shown as stored.
      mode = entry.mode;
    }
    if (mode === '40000') mode = '040000';
    return { bytes: entry.name, entry: Object.freeze({ name: entry.name.toString('utf8'), mode, oid: entry.oid, type: typeOfMode(mode) }) };
  });
  entries.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  return entries.map(({ entry }) => entry);
}
