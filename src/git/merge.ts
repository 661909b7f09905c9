import { diffArrays } from 'diff';
import { diff3Merge } from 'node-diff3';
import { isBinary } from './diff.js';
import { MergeConflictError } from './errors.js';
import type { Repository, TreeEntry } from './repository.js';

/** A file past this many bytes (any side) is not merged line by line: both sides changing it is a conflict. */
const MAX_MERGE_BYTES = 1024 * 1024;
/** Nor is one that either side changed in more lines than this (finding the changes would cost seconds). */
const MAX_CHANGED_LINES = 1000;

const TREE_MODE = '040000';

/** Lines with their ends (`\n` kept), so that joining them gives the bytes back; the last may have none. */
function linesOf(text: string): string[] {
  if (text === '') return [];
  return text.split(/(?<=\n)/);
}

/**
 * Where each line of `base` is in `side` (-1: not kept), and where `side` inserts lines (before base line i; at `base.length`: at the end).
 */
function alignment(base: string[], side: string[]): { kept: Int32Array; insertsBefore: Uint8Array } | null {
  const changes = diffArrays(base, side, { maxEditLength: MAX_CHANGED_LINES });
  if (!changes) return null;
  const kept = new Int32Array(base.length).fill(-1);
  const insertsBefore = new Uint8Array(base.length + 1);
  let i = 0;
  let j = 0;
  for (const change of changes) {
    const count = change.value.length;
    if (change.added) {
      insertsBefore[i] = 1;
      j += count;
    } else if (change.removed) {
      i += count;
    } else {
      for (let k = 0; k < count; k++) kept[i + k] = j + k;
      i += count;
      j += count;
    }
  }
  return { kept, insertsBefore };
}

/**
 * The three texts with each run of base lines that both sides kept as they were replaced by one token, common
 * to all three: node-diff3's line matching (Hunt and McIlroy) then sees the changed lines only, where on whole
 * files with many alike lines (blank ones, closing braces) it would take seconds. The runs come from the
 * `diff` library's Myers diff of each side; tokens hold a character no Latin-1 line has.
 */
function withoutCommonRuns(o: string[], a: string[], b: string[]) {
  const [toA, toB] = [alignment(o, a), alignment(o, b)];
  if (!toA || !toB) return null;
  const stable = (i: number) => toA.kept[i] >= 0 && toB.kept[i] >= 0;
  const runs: string[][] = [];
  const runAt = { o: new Map<number, number>(), a: new Map<number, number>(), b: new Map<number, number>() };
  for (let start = 0; start < o.length; ) {
    if (!stable(start)) {
      start++;
      continue;
    }
    let end = start + 1;
    while (end < o.length && stable(end) && !toA.insertsBefore[end] && !toB.insertsBefore[end]) end++;
    runAt.o.set(start, runs.length);
    runAt.a.set(toA.kept[start], runs.length);
    runAt.b.set(toB.kept[start], runs.length);
    runs.push(o.slice(start, end));
    start = end;
  }
  const compress = (lines: string[], at: Map<number, number>) => {
    const compressed: string[] = [];
    for (let index = 0; index < lines.length; ) {
      const run = at.get(index);
      if (run === undefined) compressed.push(lines[index++]);
      else {
        compressed.push(`\uffff${run}`);
        index += runs[run].length;
      }
    }
    return compressed;
  };
  const expand = (lines: string[]) => lines.flatMap((line) => (line.startsWith('\uffff') ? runs[Number(line.slice(1))] : [line]));
  return { o: compress(o, runAt.o), a: compress(a, runAt.a), b: compress(b, runAt.b), expand };
}

/**
 * The three-way merge of one file's content, as `git merge-file` makes it: each side's changes to `base` taken,
 * line by line (node-diff3); null when both change the same lines differently (or touch adjacent ones), or when
 * the content is binary or too large to merge.
 */
export function mergeText(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array): Uint8Array | null {
  if ([base, ours, theirs].some((content) => content.byteLength > MAX_MERGE_BYTES || isBinary(content))) return null;
  // Latin-1 maps each byte to one character and back: the bytes survive whatever their encoding.
  const [o, a, b] = [base, ours, theirs].map((content) => linesOf(Buffer.from(content).toString('latin1')));
  const reduced = withoutCommonRuns(o, a, b);
  if (!reduced) return null;
  const merged: string[] = [];
  for (const block of diff3Merge(reduced.a, reduced.o, reduced.b, { excludeFalseConflicts: true })) {
    if (block.conflict) return null;
    merged.push(...block.ok!);
  }
  return Buffer.from(reduced.expand(merged).join(''), 'latin1');
}

const sameEntry = (x: TreeEntry | undefined, y: TreeEntry | undefined) =>
  x === undefined ? y === undefined : y !== undefined && x.oid === y.oid && x.mode === y.mode;
const isRegularFile = (entry: TreeEntry | undefined) => entry !== undefined && (entry.mode === '100644' || entry.mode === '100755');
const isDirectory = (entry: TreeEntry | undefined) => entry !== undefined && entry.type === 'tree';

/** Both sides changed a file's mode: the one that differs from the base wins; two different changes conflict. */
function mergeMode(base: TreeEntry | undefined, ours: TreeEntry, theirs: TreeEntry): string | null {
  if (ours.mode === theirs.mode) return ours.mode;
  if (base && base.mode === ours.mode) return theirs.mode;
  if (base && base.mode === theirs.mode) return ours.mode;
  return null;
}

/** One three-way merge of trees: the paths that conflict, gathered as the walk meets them. */
class TreeMerge {
  readonly conflicts: string[] = [];

  constructor(private readonly repo: Repository) {}

  private async entries(oid: string | null): Promise<Map<string, TreeEntry>> {
    return new Map((oid ? await this.repo.readTree(oid) : []).map((entry) => [entry.name, entry]));
  }

  /**
   * The merged directory (its tree's object ID, null when nothing is left in it). A side that did not change a
   * directory gives way to the other whole; only directories both changed are read.
   */
  async directory(base: string | null, ours: string | null, theirs: string | null, prefix: string): Promise<string | null> {
    if (ours === theirs || base === theirs) return ours;
    if (base === ours) return theirs;
    const [before, mine, other] = await Promise.all([this.entries(base), this.entries(ours), this.entries(theirs)]);
    const merged: TreeEntry[] = [];
    for (const name of [...new Set([...before.keys(), ...mine.keys(), ...other.keys()])].sort()) {
      const entry = await this.entry(before.get(name), mine.get(name), other.get(name), prefix + name);
      if (entry) merged.push(entry);
    }
    if (!merged.length) return null;
    return this.repo.writeTree(merged);
  }

  /** Two changed versions of a file merged line by line (from nothing, when the base had no file there): the blob written, or null. */
  private async mergeContent(base: TreeEntry | undefined, ours: TreeEntry, theirs: TreeEntry): Promise<string | null> {
    const before = isRegularFile(base) ? await this.repo.readBlob(base!.oid) : new Uint8Array();
    const merged = mergeText(before, await this.repo.readBlob(ours.oid), await this.repo.readBlob(theirs.oid));
    return merged === null ? null : this.repo.writeBlob(merged);
  }

  /** The merged entry at one path (undefined: none there), or a conflict noted. */
  private async entry(
    base: TreeEntry | undefined,
    ours: TreeEntry | undefined,
    theirs: TreeEntry | undefined,
    path: string,
  ): Promise<TreeEntry | undefined> {
    if (sameEntry(ours, theirs) || sameEntry(base, theirs)) return ours;
    if (sameEntry(base, ours)) return theirs;
    // Both sides changed the path, and differently.
    if (isDirectory(ours) && isDirectory(theirs)) {
      const oid = await this.directory(isDirectory(base) ? base!.oid : null, ours!.oid, theirs!.oid, `${path}/`);
      return oid ? { name: ours!.name, mode: TREE_MODE, oid, type: 'tree' } : undefined;
    }
    if (isRegularFile(ours) && isRegularFile(theirs)) {
      const mode = mergeMode(base, ours!, theirs!);
      const oid = ours!.oid === theirs!.oid ? ours!.oid : await this.mergeContent(base, ours!, theirs!);
      if (mode !== null && oid !== null) return { name: ours!.name, mode, oid, type: 'blob' };
    }
    // Changed on one side and deleted on the other, a file against a directory, links or submodules moved two ways.
    this.conflicts.push(path);
    return ours;
  }
}

/**
 * The three-way merge of two trees that both come from `base` (null: from nothing), as a cherry-pick or a merge
 * makes it: what each side changed is taken; a path both changed is merged line by line. Answers the merged
 * tree's object ID (written), or throws MergeConflictError with the paths that need a person's decision.
 */
export async function mergeTrees(repo: Repository, base: string | null, ours: string, theirs: string): Promise<string> {
  const merge = new TreeMerge(repo);
  const tree = await merge.directory(base, ours, theirs, '');
  if (merge.conflicts.length) throw new MergeConflictError(merge.conflicts);
  return tree ?? repo.writeTree([]);
}
