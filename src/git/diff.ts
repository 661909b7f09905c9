import { unifiedHunks } from './line-diff.js';
import { LruMap } from './lru.js';
import type { Repository, TreeEntry } from './repository.js';

/** One file that differs between two trees. Paths and modes are null on the side where the file is absent. */
export interface Change {
  status: 'added' | 'deleted' | 'modified' | 'renamed';
  oldPath: string;
  newPath: string;
  oldMode: string | null;
  newMode: string | null;
  oldOid: string | null;
  newOid: string | null;
}

/** A change with its text: git's unified hunks (`@@ -1,3 +1,4 @@` and the lines), without the file headers. */
export interface FileDiff extends Change {
  diff: string;
  binary: boolean;
  /** Past the size or edit limits: `diff` is empty, as the original leaves a diff too large to show. */
  tooLarge: boolean;
  additions: number;
  deletions: number;
}

/** A file past this many bytes (either side) is not diffed line by line. */
const MAX_DIFF_BYTES = 1024 * 1024;
/** A diff's text past this many bytes is left out, as the original prunes a diff too large to show (Gitlab::Git::Diff::SIZE_LIMIT). */
const MAX_DIFF_TEXT_BYTES = 100 * 1024;
/** git's test for binary content: a NUL among the first 8,000 bytes. */
const BINARY_PROBE = 8000;

export const isBinary = (content: Uint8Array) => content.subarray(0, BINARY_PROBE).includes(0);

const FILE = (entry: TreeEntry | undefined) => entry !== undefined && entry.type !== 'tree';
const DIRECTORY = (entry: TreeEntry | undefined) => entry !== undefined && entry.type === 'tree';

/**
 * What differs between two trees (`oldTree` null: everything in `newTree` is added), file by file in git's
 * order: by full path, a rename at its new path; a file deleted in one place and added with the same content
 * in another is one rename.
 */
export async function changesBetween(repo: Repository, oldTree: string | null, newTree: string | null): Promise<Change[]> {
  const changes: Change[] = [];
  await compareTrees(repo, oldTree, newTree, '', changes);
  return pairRenames(changes).sort((a, b) => Buffer.compare(Buffer.from(a.newPath), Buffer.from(b.newPath)));
}

async function compareTrees(
  repo: Repository,
  oldTree: string | null,
  newTree: string | null,
  prefix: string,
  changes: Change[],
): Promise<void> {
  if (oldTree === newTree) return;
  const before = new Map((oldTree ? await repo.readTree(oldTree) : []).map((entry) => [entry.name, entry]));
  const after = new Map((newTree ? await repo.readTree(newTree) : []).map((entry) => [entry.name, entry]));
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const name of names) {
    const old = before.get(name);
    const next = after.get(name);
    const path = prefix + name;
    if (old && next && old.oid === next.oid && old.mode === next.mode) continue;
    if (DIRECTORY(old) || DIRECTORY(next)) {
      // A directory on either side: what is inside it is compared; a file on the other side is added or deleted.
      if (FILE(old)) changes.push(added(path, old!, 'deleted'));
      await compareTrees(repo, DIRECTORY(old) ? old!.oid : null, DIRECTORY(next) ? next!.oid : null, `${path}/`, changes);
      if (FILE(next)) changes.push(added(path, next!, 'added'));
      continue;
    }
    if (old && next)
      changes.push({
        status: 'modified',
        oldPath: path,
        newPath: path,
        oldMode: old.mode,
        newMode: next.mode,
        oldOid: old.oid,
        newOid: next.oid,
      });
    else changes.push(added(path, (old ?? next)!, old ? 'deleted' : 'added'));
  }
}

function added(path: string, entry: TreeEntry, status: 'added' | 'deleted'): Change {
  return status === 'added'
    ? { status, oldPath: path, newPath: path, oldMode: null, newMode: entry.mode, oldOid: null, newOid: entry.oid }
    : { status, oldPath: path, newPath: path, oldMode: entry.mode, newMode: null, oldOid: entry.oid, newOid: null };
}

/** Exact renames: a deleted file whose content was added under another path. */
function pairRenames(changes: Change[]): Change[] {
  const addedByOid = new Map<string, Change>();
  for (const change of changes) if (change.status === 'added' && !addedByOid.has(change.newOid!)) addedByOid.set(change.newOid!, change);
  const renamedTo = new Set<Change>();
  const result: Change[] = [];
  for (const change of changes) {
    if (change.status === 'deleted') {
      const target = addedByOid.get(change.oldOid!);
      if (target && !renamedTo.has(target)) {
        renamedTo.add(target);
        result.push({ ...target, status: 'renamed', oldPath: change.oldPath, oldMode: change.oldMode, oldOid: change.oldOid });
        continue;
      }
    }
    result.push(change);
  }
  return result.filter((change) => !renamedTo.has(change));
}

/** What a diff of two blobs is, whatever the paths they are at. */
type BlobDiff = Pick<FileDiff, 'diff' | 'binary' | 'tooLarge' | 'additions' | 'deletions'>;

/** Diffs made lately, by the blobs on either side (content named by its hash diffs the same every time), up to about this many bytes. */
const KEPT_DIFF_BYTES = 16 * 1024 * 1024;
const keptDiffs = new LruMap<string, BlobDiff>(KEPT_DIFF_BYTES, undefined, (kept) => 2 * kept.diff.length + 200);

/** A change with its unified diff text and its counts of added and deleted lines. */
export async function diffOf(repo: Repository, change: Change): Promise<FileDiff> {
  // A submodule's commit is no blob: its side diffs as empty.
  const oldBlob = change.oldMode !== '160000' ? change.oldOid : null;
  const newBlob = change.newMode !== '160000' ? change.newOid : null;
  const key = `${oldBlob ?? ''}:${newBlob ?? ''}`;
  let kept = keptDiffs.get(key);
  if (!kept) keptDiffs.set(key, (kept = await blobDiff(repo, oldBlob, newBlob)));
  return { ...change, ...kept };
}

async function blobDiff(repo: Repository, oldBlob: string | null, newBlob: string | null): Promise<BlobDiff> {
  const [before, after] = await Promise.all([
    oldBlob ? repo.readBlob(oldBlob) : new Uint8Array(),
    newBlob ? repo.readBlob(newBlob) : new Uint8Array(),
  ]);
  const plain = { diff: '', binary: false, tooLarge: false, additions: 0, deletions: 0 };
  if (isBinary(before) || isBinary(after)) return { ...plain, binary: true };
  if (before.byteLength > MAX_DIFF_BYTES || after.byteLength > MAX_DIFF_BYTES) return { ...plain, tooLarge: true };
  const decoder = new TextDecoder();
  const hunks = unifiedHunks(decoder.decode(before), decoder.decode(after));
  if (!hunks) return { ...plain, tooLarge: true };
  const { text, additions, deletions } = hunks;
  if (Buffer.byteLength(text) > MAX_DIFF_TEXT_BYTES) return { ...plain, tooLarge: true, additions, deletions };
  return { ...plain, diff: text, additions, deletions };
}

/** Lines added and deleted by a commit, against its first parent (everything, for a first commit). */
export async function statsOf(
  repo: Repository,
  tree: string,
  parentTree: string | null,
): Promise<{ additions: number; deletions: number; total: number }> {
  let additions = 0;
  let deletions = 0;
  for (const change of await changesBetween(repo, parentTree, tree)) {
    const diff = await diffOf(repo, change);
    additions += diff.additions;
    deletions += diff.deletions;
  }
  return { additions, deletions, total: additions + deletions };
}
