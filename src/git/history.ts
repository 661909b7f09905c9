import { LruMap } from './lru.js';
import type { CommitNode, Repository } from './repository.js';

/** Which commits of a history a list shows. */
export interface HistoryFilter {
  /** Committed at or after this instant (seconds since the epoch). */
  since?: number;
  /** Committed at or before this instant. */
  until?: number;
  /** Only commits that changed this file or directory (git's default history simplification). */
  path?: string;
  /** Follow the first parent of merges only. */
  firstParent?: boolean;
}

/** Walked histories kept per repository, by start and filter: a commit's history never changes. */
const KEPT_WALKS = 64;
const walks = new WeakMap<Repository, LruMap<string, string[]>>();
const historySets = new WeakMap<Repository, LruMap<string, ReadonlySet<string>>>();
const lastChanges = new WeakMap<Repository, LruMap<string, string | null>>();

function keptFor<V>(kept: WeakMap<Repository, LruMap<string, V>>, repo: Repository, size: number): LruMap<string, V> {
  let map = kept.get(repo);
  if (!map) kept.set(repo, (map = new LruMap(size)));
  return map;
}

/** Commits by committer date, newest first; equal dates in the order they were met (git log's order). */
export class CommitQueue {
  private readonly heap: { commit: CommitNode; order: number }[] = [];
  private counter = 0;

  get size(): number {
    return this.heap.length;
  }

  /** The newest queued commit's time. */
  peekTime(): number {
    return this.heap[0].commit.time;
  }

  /** Whether a queued commit satisfies `test` (queues stay about as wide as the history, so a scan is cheap). */
  some(test: (oid: string) => boolean): boolean {
    return this.heap.some((entry) => test(entry.commit.oid));
  }

  private before(a: { commit: CommitNode; order: number }, b: { commit: CommitNode; order: number }): boolean {
    const dates = a.commit.time - b.commit.time;
    return dates > 0 || (dates === 0 && a.order < b.order);
  }

  push(commit: CommitNode): void {
    const heap = this.heap;
    heap.push({ commit, order: this.counter++ });
    for (let index = heap.length - 1; index > 0; ) {
      const parent = (index - 1) >> 1;
      if (!this.before(heap[index], heap[parent])) break;
      [heap[index], heap[parent]] = [heap[parent], heap[index]];
      index = parent;
    }
  }

  pop(): CommitNode {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length) {
      heap[0] = last;
      for (let index = 0; ; ) {
        const left = 2 * index + 1;
        const right = left + 1;
        let first = index;
        if (left < heap.length && this.before(heap[left], heap[first])) first = left;
        if (right < heap.length && this.before(heap[right], heap[first])) first = right;
        if (first === index) break;
        [heap[index], heap[first]] = [heap[first], heap[index]];
        index = first;
      }
    }
    return top.commit;
  }
}

/** The object ID at `path` in a commit's tree (null when absent); the whole tree for the empty path. */
async function objectAt(repo: Repository, commit: CommitNode, path: string): Promise<string | null> {
  return (await repo.entryAt(commit.tree, path))?.oid ?? null;
}

/** A commit a walk meets: whether the filter shows it, and whether the walk has been one line of commits up to it. */
interface Met {
  commit: CommitNode;
  shows: boolean;
  /**
   * Every commit met so far led to the next alone (one parent followed, the queue otherwise empty): the rest of
   * the walk is then this commit's own walk, as none of the commits met before can be among its ancestors.
   */
  line: boolean;
}

/** Every commit of the history of `start`, in `git log` order, with whether the filter shows it. */
async function* walk(repo: Repository, start: string | string[], filter: HistoryFilter): AsyncGenerator<Met> {
  const queue = new CommitQueue();
  const starts = [...new Set([start].flat())];
  const seen = new Set<string>(starts);
  // The graph's records without a turn of the event loop; a commit it does not list read from its object.
  const graph = await repo.commitGraph();
  for (const oid of starts) queue.push(graph?.node(oid) ?? (await repo.commitNode(oid)));
  const path = filter.path?.replace(/^\/+|\/+$/g, '');
  // The path's object in each commit met, kept for the walk: a commit is looked at as a parent, then as itself.
  const atPath = new Map<string, string | null>();
  const pathObject = async (commit: CommitNode) => {
    let found = atPath.get(commit.oid);
    if (found === undefined) {
      // From memory when the trees on the way are there, without a turn of the event loop.
      const entry = repo.entryInMemory(commit.tree, path!);
      atPath.set(commit.oid, (found = entry === undefined ? await objectAt(repo, commit, path!) : (entry?.oid ?? null)));
    }
    return found;
  };
  let line = true;
  while (queue.size) {
    const commit = queue.pop();
    line &&= queue.size === 0;
    let parents = filter.firstParent ? commit.parents.slice(0, 1) : commit.parents;
    let shows = true;
    if (path) {
      const mine = await pathObject(commit);
      if (parents.length === 0) shows = mine !== null;
      else {
        const same: string[] = [];
        for (const parent of parents)
          if ((await pathObject(graph?.node(parent) ?? (await repo.commitNode(parent)))) === mine) same.push(parent);
        if (same.length) {
          shows = false;
          // A merge that kept the path as one parent had it: the other side's changes never reached it.
          if (parents.length > 1) parents = same.slice(0, 1);
        }
      }
    }
    const time = commit.time;
    yield {
      commit,
      shows: shows && (filter.since === undefined || time >= filter.since) && (filter.until === undefined || time <= filter.until),
      line,
    };
    for (const parent of parents) {
      if (seen.has(parent)) continue;
      seen.add(parent);
      queue.push(graph?.node(parent) ?? (await repo.commitNode(parent)));
    }
  }
}

/**
 * Every commit of the filtered history of one or more starts (every branch and tag: `all`), in order: kept, so
 * that the pages of one list and its count read it once. A branch that moved on by new commits reuses the walk
 * kept for where it was: only the new commits are walked.
 */
export async function historyOf(repo: Repository, start: string | string[], filter: HistoryFilter = {}): Promise<string[]> {
  const kept = keptFor(walks, repo, KEPT_WALKS);
  const filterKey = JSON.stringify([filter.since ?? null, filter.until ?? null, filter.path ?? null, filter.firstParent ?? false]);
  const keyOf = (from: string | string[]) => JSON.stringify(from) + filterKey;
  const found = kept.get(keyOf(start));
  if (found) return found;
  // Without a path, a history whose commits the commit-graph all lists is walked over its records alone.
  if (!filter.path) {
    const walked = (await repo.commitGraph())?.history([...new Set([start].flat())], filter.firstParent);
    if (walked) {
      const oids = walked
        .filter(({ time }) => (filter.since === undefined || time >= filter.since) && (filter.until === undefined || time <= filter.until))
        .map(({ oid }) => oid);
      kept.set(keyOf(start), oids);
      return oids;
    }
  }
  let oids: string[] = [];
  for await (const { commit, shows, line } of walk(repo, start, filter)) {
    const rest = line && commit.oid !== start ? kept.get(keyOf(commit.oid)) : undefined;
    if (rest) {
      oids = oids.concat(rest);
      break;
    }
    if (shows) oids.push(commit.oid);
  }
  kept.set(keyOf(start), oids);
  return oids;
}

/** The commits of `start`'s history as a set, kept: a branch list asks of every branch whether the default branch has it. */
export async function historySetOf(repo: Repository, start: string): Promise<ReadonlySet<string>> {
  const kept = keptFor(historySets, repo, 4);
  let found = kept.get(start);
  if (!found) kept.set(start, (found = new Set(await historyOf(repo, start))));
  return found;
}

/**
 * The last commit of `start`'s history that changed `path` (a file's `last_commit_id`), or null. A branch that
 * moved on reuses the answer kept for where it was, once the new commits are found not to change the path.
 */
export async function lastCommitChanging(repo: Repository, start: string, path: string): Promise<string | null> {
  const kept = keptFor(lastChanges, repo, 1024);
  const found = kept.get(`${start}:${path}`);
  if (found !== undefined) return found;
  let last: string | null = null;
  for await (const { commit, shows, line } of walk(repo, start, { path })) {
    const earlier = line && commit.oid !== start ? kept.get(`${commit.oid}:${path}`) : undefined;
    if (earlier !== undefined) {
      last = earlier;
      break;
    }
    if (shows) {
      last = commit.oid;
      break;
    }
  }
  kept.set(`${start}:${path}`, last);
  return last;
}

/** An author of a history, by e-mail address: the name of its newest commit, and how many commits it wrote. */
export interface HistoryAuthor {
  name: string;
  email: string;
  commits: number;
}

const authorsKept = new WeakMap<Repository, LruMap<string, readonly HistoryAuthor[]>>();

/**
 * The authors of the newest `limit` commits of `start`'s history that are not merges, by e-mail address (as
 * written, case and all), in the order their newest commit is met: what the original counts as a repository's
 * contributors. The walk reads the commit-graph's records where it lists the commits, so a merge is skipped
 * without reading its object; each commit counted is read once, and the answer is kept per start and limit.
 */
export async function authorsOf(repo: Repository, start: string, limit: number): Promise<readonly HistoryAuthor[]> {
  const kept = keptFor(authorsKept, repo, 16);
  const key = `${start}:${limit}`;
  const found = kept.get(key);
  if (found) return found;
  const authors = new Map<string, HistoryAuthor>();
  let counted = 0;
  if (limit > 0) {
    for await (const { commit } of walk(repo, start, {})) {
      if (commit.parents.length > 1) continue;
      const { author } = await repo.readCommit(commit.oid);
      const known = authors.get(author.email);
      if (known) {
        known.commits += 1;
        // The newest commit's name, unless it had none.
        if (!known.name.trim()) known.name = author.name;
      } else {
        authors.set(author.email, { name: author.name, email: author.email, commits: 1 });
      }
      if (++counted >= limit) break;
    }
  }
  const result = Object.freeze([...authors.values()].map((author) => Object.freeze(author)));
  kept.set(key, result);
  return result;
}

/** The newest commits of `start`'s history, at most `limit`, newest first (`git log -n limit start`). */
export async function newestCommits(repo: Repository, start: string, limit: number): Promise<string[]> {
  const queue = new CommitQueue();
  const seen = new Set([start]);
  queue.push(await repo.commitNode(start));
  const found: string[] = [];
  while (queue.size && found.length < limit) {
    const commit = queue.pop();
    found.push(commit.oid);
    for (const parent of commit.parents) {
      if (seen.has(parent)) continue;
      seen.add(parent);
      queue.push(await repo.commitNode(parent));
    }
  }
  return found;
}
