import type { ProjectInScope } from '../../auth/abilities.js';
import { NotFoundError } from '../../errors.js';
import { commitsBetween, mergeBase } from '../../git/ancestry.js';
import { changesBetween, diffOf, type Change, type FileDiff } from '../../git/diff.js';
import { LruMap } from '../../git/lru.js';
import type { Repository } from '../../git/repository.js';
import type { Compare, CompareQuery, Diff } from '../../schemas/repository.js';
import { pageOf, type Page, type PageQuery } from '../pagination.js';
import { presentCommit } from '../present/commits.js';
import { projectWebUrl } from '../present/projects.js';
import { Service } from '../service.js';
import { CommitsService } from './commits.js';

/**
 * What a comparison shows of its diffs, as the original bounds them (Gitlab::Git::DiffCollection's default limits):
 * past 100 files, or once the diffs reach 5,000 lines or 500 KB (the diff that reaches them left out too), the rest
 * is left out and `compare_timeout` says so.
 */
export const COMPARE_LIMITS = { files: 100, lines: 5000, bytes: 100 * 5 * 1024 };

/** A change as the original shows it: git's modes (`0` for a missing side), hunks only, `Binary files … differ` for binary content. */
export function presentDiff(file: FileDiff): Diff {
  const changed = file.oldOid !== file.newOid;
  const binaryText =
    `Binary files ${file.oldOid ? `a/${file.oldPath}` : '/dev/null'} ` + `and ${file.newOid ? `b/${file.newPath}` : '/dev/null'} differ\n`;
  return {
    diff: file.binary && changed ? binaryText : file.diff,
    new_path: file.newPath,
    old_path: file.oldPath,
    a_mode: file.oldMode ?? '0',
    b_mode: file.newMode ?? '0',
    new_file: file.status === 'added',
    renamed_file: file.status === 'renamed',
    deleted_file: file.status === 'deleted',
  };
}

/**
 * Comparisons made lately, by the project's URL (its commits' `web_url` start with it) and the commits compared:
 * commits are named by their content, so their comparison never changes. One answered from here reads nothing, where
 * making it takes a walk, two trees and every changed file's blobs, each a turn of the event loop waiting for the disk.
 * Kept as JSON text, which weighs what it holds (two bytes a character) and gives each caller a copy of its own (an
 * in-process caller may change what it is given) faster than a structured clone.
 */
const KEPT_COMPARISON_BYTES = 32 * 1024 * 1024;
const keptComparisons = new LruMap<string, string>(KEPT_COMPARISON_BYTES, undefined, (text) => 2 * text.length);

/** The line ends of a text (a diff's lines, as the original counts them). */
function countLines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

/** Diffs: a commit's, and a comparison of two refs (merge requests' changes will be these too). */
export class DiffService extends Service {
  /** The diffs of a list of changes, their text made. */
  private async diffsOf(repo: Repository, changes: Change[]): Promise<Diff[]> {
    const diffs: Diff[] = [];
    // One at a time: each reads both sides of a file.
    for (const change of changes) diffs.push(presentDiff(await diffOf(repo, change)));
    return diffs;
  }

  /**
   * GET /projects/:id/repository/commits/:sha/diff: what the commit changed against its first parent (everything, for a first commit), a
   * page of files.
   */
  async commitDiff(scoped: ProjectInScope, revision: string, query: PageQuery): Promise<Page<Diff>> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const commit = await new CommitsService(this.ctx).commitOf(repo, revision);
    const parentTree = commit.parents.length ? (await repo.readCommit(commit.parents[0])).tree : null;
    // Only the page's files are diffed: the list of changes is the tree walk alone.
    const page = pageOf(await changesBetween(repo, parentTree, commit.tree), query);
    return { ...page, items: await this.diffsOf(repo, page.items) };
  }

  /**
   * GET /projects/:id/repository/compare: the commits `to` has and `from` has not (oldest first), and the files
   * changed from the merge base of the two (`straight`: from `from` itself) to `to`; 404 `Ref Not Found` for a
   * ref that names no commit.
   */
  async compare(scoped: ProjectInScope, query: CompareQuery): Promise<Compare> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const [from, to] = await Promise.all([repo.resolveCommit(query.from), repo.resolveCommit(query.to)]);
    if (!from || !to) throw new NotFoundError('Ref');
    if (from === to) return { commit: null, commits: [], diffs: [], compare_timeout: false, compare_same_ref: true };
    const projectUrl = projectWebUrl(scoped.project, scoped.namespace, this.ctx.baseUrl);
    const key = `${projectUrl}\n${from}\n${to}\n${query.straight === true}`;
    const kept = keptComparisons.get(key);
    if (kept) return JSON.parse(kept) as Compare;
    const compare = await this.compareCommits(repo, projectUrl, from, to, query.straight === true);
    keptComparisons.set(key, JSON.stringify(compare));
    return compare;
  }

  /** The comparison of two commits, made. */
  private async compareCommits(repo: Repository, projectUrl: string, from: string, to: string, straight: boolean): Promise<Compare> {
    const commits = await Promise.all(
      (await commitsBetween(repo, from, to)).map(async (oid) => presentCommit(await repo.readCommit(oid), projectUrl)),
    );
    // Unrelated histories have no merge base: everything `to` has is new, as the original diffs them.
    const base = straight ? from : await mergeBase(repo, from, to);
    const { diffs, overflow } = await this.boundedDiffs(repo, base, to);
    return { commit: commits.at(-1) ?? null, commits, diffs, compare_timeout: overflow, compare_same_ref: false };
  }

  /**
   * The files changed from one commit (null: from nothing) to another, diffed one at a time and no further than
   * the limits the original sets (COMPARE_LIMITS): `overflow` when some were left out. A compare's and a merge
   * request's changes.
   */
  async boundedDiffs(repo: Repository, from: string | null, to: string): Promise<{ diffs: Diff[]; overflow: boolean }> {
    const fromTree = from ? (await repo.readCommit(from)).tree : null;
    const changes = await changesBetween(repo, fromTree, (await repo.readCommit(to)).tree);
    const diffs: Diff[] = [];
    let overflow = changes.length > COMPARE_LIMITS.files;
    let lines = 0;
    let bytes = 0;
    for (const change of changes.slice(0, COMPARE_LIMITS.files)) {
      const diff = presentDiff(await diffOf(repo, change));
      lines += countLines(diff.diff);
      bytes += Buffer.byteLength(diff.diff);
      if (lines >= COMPARE_LIMITS.lines || bytes >= COMPARE_LIMITS.bytes) {
        overflow = true;
        break;
      }
      diffs.push(diff);
    }
    return { diffs, overflow };
  }
}
