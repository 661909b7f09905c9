import type { ProjectInScope } from '../../auth/abilities.js';
import { ForbiddenError } from '../../errors.js';
import { ReferenceChangedError } from '../../git/errors.js';
import { commitsBetween } from '../../git/ancestry.js';
import { newestCommits } from '../../git/history.js';
import { BRANCH_PREFIX, type Repository, TAG_PREFIX } from '../../git/repository.js';
import { PUSH_COMMITS_KEPT, type ReferenceMoved } from '../../events/kinds.js';
import type { Context } from '../context.js';
import { isTransientDatabaseError } from '../../db/transient.js';
import { isArchived, takeRepositoryLock } from './repository-store.js';

/** A project's repository locked for the rest of the call: its writes are then this call's alone, here and in every process. */
export async function lockRepository(ctx: Context, projectId: number): Promise<void> {
  // Outside a transaction the lock would be released at once.
  if (!ctx.em.isInTransaction()) throw new Error('a repository is written by write calls only');
  await takeRepositoryLock(ctx.em, projectId);
}

/**
 * `work` under the repository's lock in a transaction of its own: what a failed call undoes runs once its own
 * transaction (and the lock with it) has ended, and must not meet another writer's lock files.
 */
async function underRepositoryLock(ctx: Context, projectId: number, work: () => Promise<void>): Promise<void> {
  // The database may be failing the call that is undone (a connection lost, a server restarting): tried a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.env.db.fork().transactional(async (em) => {
        await takeRepositoryLock(em, projectId);
        await work();
      });
    } catch (error) {
      if (attempt === UNDO_ATTEMPTS || !isTransientDatabaseError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, UNDO_RETRY_MS));
    }
  }
}

const UNDO_ATTEMPTS = 10;
const UNDO_RETRY_MS = 500;

/** A reference a write moves: from `old` (null: created) to `new` (null: deleted). */
export interface ReferenceUpdate {
  /** The full name: `refs/heads/<branch>`, `refs/tags/<tag>`. */
  name: string;
  old: string | null;
  new: string | null;
}

/** What a repository write built: its objects are written; these references are to move. */
export interface Built<T> {
  updates: ReferenceUpdate[];
  result: T;
}

/**
 * Every write to a repository, in one order. Under the project's lock (a PostgreSQL advisory lock taken in the
 * call's transaction, so it holds across processes and until the call commits): `build` reads what it needs
 * and writes the objects; the one event of a repository write runs (its changes in the call's transaction);
 * then the references move by compare-and-swap, last. A failure before that leaves unreferenced objects only
 * and rolls the database back; should the call fail after it, the references are moved back (docs/repositories.md).
 */
export async function writeRepository<T>(ctx: Context, scoped: ProjectInScope, build: (repo: Repository) => Promise<Built<T>>): Promise<T> {
  await lockRepository(ctx, scoped.project.id);
  // Archiving takes the same lock: a write that began before it finishes first, one that waited sees it.
  if (await isArchived(ctx.em, scoped.project.id)) throw new ForbiddenError();
  const repo = ctx.repositoryOf(scoped.project);
  const { updates, result } = await build(repo);
  await recordMoves(ctx, scoped, repo, updates);
  for (const update of updates) {
    await repo.updateReference(update.name, update.old, update.new);
    ctx.onFailure(() =>
      underRepositoryLock(ctx, scoped.project.id, () =>
        repo.updateReference(update.name, update.new, update.old).catch((error: unknown) => {
          // Another write has built on it since: it stays.
          if (!(error instanceof ReferenceChangedError)) throw error;
        }),
      ),
    );
  }
  return result;
}

/** The most commits a push reads for its event: of a branch's first push (its history), and of any other (the new ones). */
const PUSH_COMMITS_READ = 100;

/**
 * The event of each reference a write moves (`push` for a branch, `tag_push` for a tag), recorded before the references
 * move: its rules (src/services/repository/reference-rules.ts and the merge requests') run under the repository's lock,
 * in the write's transaction, so what they change commits with the move.
 */
async function recordMoves(ctx: Context, scoped: ProjectInScope, repo: Repository, updates: ReferenceUpdate[]): Promise<void> {
  // The first branch made in an empty repository becomes its default branch.
  const first = updates.find((update) => update.name.startsWith(BRANCH_PREFIX) && update.old === null && update.new !== null) ?? null;
  const empty = first !== null && (await repo.branches()).length === 0;
  for (const update of updates) {
    const tag = update.name.startsWith(TAG_PREFIX);
    if (!tag && !update.name.startsWith(BRANCH_PREFIX)) continue;
    const commits = await newCommits(repo, update, tag);
    const newest = commits[0] ? (await repo.readCommit(commits[0])).message : null;
    const data: ReferenceMoved = {
      ref: update.name,
      before: update.old,
      after: update.new,
      commit_count: commits.length,
      commits: commits.slice(0, PUSH_COMMITS_KEPT),
      commit_title: newest === null ? null : commitTitle(newest),
      ...(empty && update === first ? { first_branch: true } : {}),
    };
    await ctx.record({ kind: tag ? 'tag_push' : 'push', authorId: ctx.caller.user?.id ?? null, projectId: scoped.project.id, data });
  }
}

/**
 * The commits a reference's move brings, newest first, as the original counts them: those between its old and new
 * commit; for a new branch, those the default branch lacks (its first push: its newest commits); for a tag, the commit it
 * names.
 */
async function newCommits(repo: Repository, update: ReferenceUpdate, tag: boolean): Promise<string[]> {
  if (update.new === null) return [];
  if (tag) {
    const commit = await repo.peelToCommit(update.new);
    return commit ? [commit] : [];
  }
  if (update.old !== null) return (await commitsBetween(repo, update.old, update.new)).reverse().slice(0, PUSH_COMMITS_READ);
  const defaultBranch = await repo.headBranch();
  const base = defaultBranch && `${BRANCH_PREFIX}${defaultBranch}` !== update.name ? await repo.branch(defaultBranch) : null;
  if (base) return (await commitsBetween(repo, base, update.new)).reverse().slice(0, PUSH_COMMITS_READ);
  return newestCommits(repo, update.new, PUSH_COMMITS_READ);
}

/** A commit's title as a push event keeps it: its message's first line, cut at 70 characters as the original cuts it. */
function commitTitle(message: string): string {
  const line = message.split('\n', 1)[0];
  return line.length > 70 ? `${line.slice(0, 67)}...` : line;
}

/** Points the repository's HEAD at a branch (the default branch), under its lock; back again should the call fail. */
export async function setHeadBranch(ctx: Context, scoped: ProjectInScope, branch: string): Promise<void> {
  await lockRepository(ctx, scoped.project.id);
  const repo = ctx.repositoryOf(scoped.project);
  const previous = await repo.headBranch();
  await repo.setHeadBranch(branch);
  if (previous !== null) ctx.onFailure(() => underRepositoryLock(ctx, scoped.project.id, () => repo.setHeadBranch(previous)));
}
