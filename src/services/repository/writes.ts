import type { ProjectInScope } from '../../auth/abilities.js';
import { ForbiddenError } from '../../errors.js';
import { ReferenceChangedError } from '../../git/errors.js';
import type { Repository } from '../../git/repository.js';
import type { Context } from '../context.js';
import { referencesMoved } from './events.js';
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
  await ctx.env.db.fork().transactional(async (em) => {
    await takeRepositoryLock(em, projectId);
    await work();
  });
}

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
  await referencesMoved(ctx, scoped, repo, updates);
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

/** Points the repository's HEAD at a branch (the default branch), under its lock; back again should the call fail. */
export async function setHeadBranch(ctx: Context, scoped: ProjectInScope, branch: string): Promise<void> {
  await lockRepository(ctx, scoped.project.id);
  const repo = ctx.repositoryOf(scoped.project);
  const previous = await repo.headBranch();
  await repo.setHeadBranch(branch);
  if (previous !== null) ctx.onFailure(() => underRepositoryLock(ctx, scoped.project.id, () => repo.setHeadBranch(previous)));
}
