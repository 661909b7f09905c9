import { diffArrays } from 'diff';

/**
 * Two texts' unified hunks as `git diff` writes them: the lines both begin and end with set aside (as git's
 * xdiff trims them), the shortest edit script of the rest (jsdiff's Myers), each run of changed lines then slid
 * as git slides it (xdl_change_compact: as far down as it goes, unless it can line up with a change on the other
 * side), three lines of context, and git's hunk headings.
 */

/** A diff whose shortest edit script is longer than this is not made: finding it would cost seconds. */
const MAX_EDIT_LENGTH = 20_000;
/** Lines of context around each change, as git shows them; changes this close twice over share a hunk. */
const CONTEXT = 3;

/** `start,count` as git writes a hunk's range: the count left out when it is 1; an empty range starts at the line before it. */
const range = (start: number, count: number) => (count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`);

/**
 * What git writes after a hunk's range: the nearest line above the hunk that starts with a letter, `_` or `$`
 * (its default idea of a function's first line), at most 80 characters.
 */
function sectionHeading(lines: readonly string[], hunkStart: number): string {
  for (let index = hunkStart - 1; index >= 0; index--) {
    if (/^[A-Za-z_$]/.test(lines[index])) return lines[index].slice(0, 80).trimEnd();
  }
  return '';
}

/** A text's lines without their line ends, and whether its last line has none (git marks it: `\ No newline at end of file`). */
interface Lines {
  lines: string[];
  noFinalNewline: boolean;
  /** What lines are compared by: a last line without a line end carries one, which no split line can have. */
  keys: string[];
  /** Which lines the diff deletes (old side) or adds (new side); one more, always 0, past the last. */
  changed: Uint8Array;
}

function linesOf(text: string): Lines {
  const lines = text === '' ? [] : text.split('\n');
  const noFinalNewline = lines.length > 0 && lines.at(-1) !== '';
  if (lines.length && !noFinalNewline) lines.pop();
  const keys = noFinalNewline ? [...lines.slice(0, -1), `${lines.at(-1)}\n`] : lines;
  return { lines, noFinalNewline, keys, changed: new Uint8Array(lines.length + 1) };
}

/** Marks the lines each side changes; false past MAX_EDIT_LENGTH. */
function markChanges(a: Lines, b: Lines): boolean {
  const [x, y] = [a.keys, b.keys];
  let prefix = 0;
  while (prefix < x.length && prefix < y.length && x[prefix] === y[prefix]) prefix++;
  let suffix = 0;
  while (suffix < x.length - prefix && suffix < y.length - prefix && x[x.length - 1 - suffix] === y[y.length - 1 - suffix]) suffix++;
  const parts = diffArrays(x.slice(prefix, x.length - suffix), y.slice(prefix, y.length - suffix), { maxEditLength: MAX_EDIT_LENGTH });
  if (!parts) return false;
  let [i, j] = [prefix, prefix];
  for (const part of parts) {
    const count = part.count ?? part.value.length;
    if (part.removed) a.changed.fill(1, i, (i += count));
    else if (part.added) b.changed.fill(1, j, (j += count));
    else [i, j] = [i + count, j + count];
  }
  return true;
}

/**
 * A run of changed lines of one side, [start, end), possibly empty. Between two runs there is exactly one
 * unchanged line, and unchanged lines pair up in order across the sides: a side's runs and the other's
 * correspond one to one (git's `struct xdlgroup`).
 */
class Group {
  start = 0;
  end = 0;

  constructor(private readonly side: Lines) {
    while (side.changed[this.end]) this.end++;
  }

  /** To the next run; false at the last. */
  next(): boolean {
    if (this.end === this.side.keys.length) return false;
    this.start = this.end + 1;
    this.end = this.start;
    while (this.side.changed[this.end]) this.end++;
    return true;
  }

  /** To the previous run; false at the first. */
  previous(): boolean {
    if (this.start === 0) return false;
    this.end = this.start - 1;
    this.start = this.end;
    while (this.start > 0 && this.side.changed[this.start - 1]) this.start--;
    return true;
  }

  /** One line down, when the line after it equals its first (it then may join the run after it); false otherwise. */
  slideDown(): boolean {
    const { keys, changed } = this.side;
    if (this.end >= keys.length || keys[this.start] !== keys[this.end]) return false;
    changed[this.start++] = 0;
    changed[this.end++] = 1;
    while (changed[this.end]) this.end++;
    return true;
  }

  /** One line up, when the line before it equals its last (it then may join the run before it); false otherwise. */
  slideUp(): boolean {
    const { keys, changed } = this.side;
    if (this.start === 0 || keys[this.start - 1] !== keys[this.end - 1]) return false;
    changed[--this.start] = 1;
    changed[--this.end] = 0;
    while (this.start > 0 && changed[this.start - 1]) this.start--;
    return true;
  }
}

/** Slides each run of `side`'s changes as git does (xdl_change_compact without the indent heuristic). */
function compact(side: Lines, other: Lines): void {
  const group = new Group(side);
  const theirs = new Group(other);
  const broken = () => new Error('the runs of changes of the two sides no longer correspond');
  for (;;) {
    if (group.end !== group.start) {
      let size: number;
      let earliestEnd: number;
      let alignedEnd = -1;
      // Up as far as it goes, then down as far as it goes, again while it grows by joining other runs.
      do {
        size = group.end - group.start;
        alignedEnd = -1;
        while (group.slideUp()) if (!theirs.previous()) throw broken();
        earliestEnd = group.end;
        if (theirs.end > theirs.start) alignedEnd = group.end;
        while (group.slideDown()) {
          if (!theirs.next()) throw broken();
          if (theirs.end > theirs.start) alignedEnd = group.end;
        }
      } while (size !== group.end - group.start);
      // Where it can, it lines up with the last change of the other side it can reach.
      if (group.end !== earliestEnd && alignedEnd !== -1) {
        while (theirs.end === theirs.start) {
          if (!group.slideUp() || !theirs.previous()) throw broken();
        }
      }
    }
    if (!group.next()) break;
    if (!theirs.next()) throw broken();
  }
}

/**
 * git's unified hunks from one text to another, and the counts of lines added and deleted; null when the diff would be too costly to find.
 */
export function unifiedHunks(oldText: string, newText: string): { text: string; additions: number; deletions: number } | null {
  const [a, b] = [linesOf(oldText), linesOf(newText)];
  if (!markChanges(a, b)) return null;
  compact(a, b);
  compact(b, a);
  // The edits: old lines [oldStart, oldEnd) replaced by new lines [newStart, newEnd).
  const edits: { oldStart: number; oldEnd: number; newStart: number; newEnd: number }[] = [];
  for (let i = 0, j = 0; i < a.lines.length || j < b.lines.length; ) {
    if (!a.changed[i] && !b.changed[j]) {
      i++;
      j++;
      continue;
    }
    const edit = { oldStart: i, oldEnd: i, newStart: j, newEnd: j };
    while (a.changed[edit.oldEnd]) edit.oldEnd++;
    while (b.changed[edit.newEnd]) edit.newEnd++;
    edits.push(edit);
    [i, j] = [edit.oldEnd, edit.newEnd];
  }
  const out: string[] = [];
  let additions = 0;
  let deletions = 0;
  const line = (sign: string, side: Lines, index: number) => {
    out.push(`${sign}${side.lines[index]}\n`);
    if (side.noFinalNewline && index === side.lines.length - 1) out.push('\\ No newline at end of file\n');
  };
  for (let first = 0; first < edits.length; ) {
    let last = first;
    while (last + 1 < edits.length && edits[last + 1].oldStart - edits[last].oldEnd <= 2 * CONTEXT) last++;
    const oldStart = Math.max(0, edits[first].oldStart - CONTEXT);
    const newStart = edits[first].newStart - (edits[first].oldStart - oldStart);
    const oldEnd = Math.min(a.lines.length, edits[last].oldEnd + CONTEXT);
    const newEnd = edits[last].newEnd + (oldEnd - edits[last].oldEnd);
    const heading = sectionHeading(a.lines, oldStart);
    out.push(
      `@@ -${range(oldStart + 1, oldEnd - oldStart)} +${range(newStart + 1, newEnd - newStart)} @@${heading ? ` ${heading}` : ''}\n`,
    );
    let at = oldStart;
    for (let index = first; index <= last; index++) {
      const edit = edits[index];
      for (; at < edit.oldStart; at++) line(' ', a, at);
      for (let old = edit.oldStart; old < edit.oldEnd; old++, deletions++) line('-', a, old);
      for (let added = edit.newStart; added < edit.newEnd; added++, additions++) line('+', b, added);
      at = edit.oldEnd;
    }
    for (; at < oldEnd; at++) line(' ', a, at);
    first = last + 1;
  }
  return { text: out.join(''), additions, deletions };
}
