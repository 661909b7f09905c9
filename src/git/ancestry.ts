import { CommitQueue } from './history.js';
import type { Repository } from './repository.js';

/**
 * Merge bases and `from..to` as git finds them without a commit-graph: both sides walked at once, newest
 * committer date first, stopping once what is left to walk can change nothing (and a few commits more, against
 * clocks that went backwards). A walk costs about the commits since the two sides parted, not two histories.
 */

/** Reached from the first side, from the other; below a common commit (whose ancestors cannot be the best). */
const ONE = 1;
const OTHER = 2;
const STALE = 4;
/** How many commits a walk takes past the point where all that is left looks settled (git's SLOP). */
const SLOP = 5;

/** The best common ancestor of two commits (`git merge-base`), or null when their histories never meet. */
export async function mergeBase(repo: Repository, one: string, other: string): Promise<string | null> {
  if (one === other) return one;
  return (await commonAncestors(repo, one, other))[0] ?? null;
}

/** The common ancestors none of which reaches another, newest first (git's paint_down_to_common, then remove_redundant). */
async function commonAncestors(repo: Repository, one: string, other: string): Promise<string[]> {
  const flags = new Map<string, number>([
    [one, ONE],
    [other, OTHER],
  ]);
  const queue = new CommitQueue();
  queue.push(await repo.commitNode(one));
  queue.push(await repo.commitNode(other));
  const found: string[] = [];
  while (queue.some((oid) => !(flags.get(oid)! & STALE))) {
    const commit = queue.pop();
    let mark = flags.get(commit.oid)!;
    if (mark === (ONE | OTHER)) {
      found.push(commit.oid);
      mark |= STALE;
    }
    for (const parent of commit.parents) {
      const had = flags.get(parent) ?? 0;
      if ((had & mark) === mark) continue;
      // Queued again when it gains a mark: it is walked once more, with all of them.
      flags.set(parent, had | mark);
      queue.push(await repo.commitNode(parent));
    }
  }
  const bases = found.filter((oid) => !(flags.get(oid)! & STALE));
  if (bases.length < 2) return bases;
  const kept: string[] = [];
  for (const base of bases)
    if (
      !(await reachesAny(
        repo,
        bases.filter((other) => other !== base),
        base,
      ))
    )
      kept.push(base);
  return kept;
}

/** Whether `target` is an ancestor of one of `starts`: walked newest first, no further than a little past its date. */
async function reachesAny(repo: Repository, starts: string[], target: string): Promise<boolean> {
  const floor = (await repo.commitNode(target)).time;
  const seen = new Set(starts);
  const queue = new CommitQueue();
  for (const start of starts) queue.push(await repo.commitNode(start));
  let slop = SLOP;
  while (queue.size) {
    const commit = queue.pop();
    if (commit.oid === target) return true;
    if (commit.time < floor && --slop < 0) return false;
    for (const parent of commit.parents) {
      if (seen.has(parent)) continue;
      seen.add(parent);
      queue.push(await repo.commitNode(parent));
    }
  }
  return false;
}

/** The commits reachable from `to` and not from `from` (`git log from..to`), oldest first (git's limit_list). */
export async function commitsBetween(repo: Repository, from: string, to: string): Promise<string[]> {
  const hidden = new Set<string>();
  const walked = new Set<string>();
  const seen = new Set<string>([from, to]);
  /** Hidden, with whatever was walked below it already (git's mark_parents_uninteresting). */
  const hide = async (oid: string) => {
    const pending = [oid];
    while (pending.length) {
      const next = pending.pop()!;
      if (hidden.has(next)) continue;
      hidden.add(next);
      if (walked.has(next)) pending.push(...(await repo.commitNode(next)).parents);
    }
  };
  await hide(from);
  const queue = new CommitQueue();
  queue.push(await repo.commitNode(from));
  queue.push(await repo.commitNode(to));
  const shown: string[] = [];
  let slop = SLOP;
  while (queue.size) {
    const commit = queue.pop();
    walked.add(commit.oid);
    const isHidden = hidden.has(commit.oid);
    if (!isHidden) shown.push(commit.oid);
    for (const parent of commit.parents) {
      if (isHidden) await hide(parent);
      if (seen.has(parent)) continue;
      seen.add(parent);
      queue.push(await repo.commitNode(parent));
    }
    if (queue.some((oid) => !hidden.has(oid))) slop = SLOP;
    else if (--slop < 0) break;
  }
  // In walk order (newest first), without those found reachable from `from` later on.
  return shown.filter((oid) => !hidden.has(oid)).reverse();
}
