import type { ProjectInScope } from '../../auth/abilities.js';
import { defaultBranchProtection as protectionBySetting, type ProtectionLevels } from '../../auth/levels.js';
import { Project } from '../../db/entities/index.js';
import { BRANCH_PREFIX, type Repository } from '../../git/repository.js';
import type { Context } from '../context.js';
import { branchMoved } from '../work-items/merge-request-store.js';
import { protectFirstBranch } from './protected-branch-store.js';
import type { ReferenceUpdate } from './writes.js';

/**
 * The one event of every write that moves a reference: a file edit, a batch commit, a cherry-pick, a branch or
 * tag made or deleted (and, as they come, a merge and a push over git). It runs under the repository's lock, in
 * the call's transaction, just before the references move, so that what it changes commits with the move and
 * nothing else needs its rules. What it keeps is derived from the references themselves, so that a later
 * move sets right what a crash between the move and the commit left out.
 *
 * Now: the project's last activity; the first branch of an empty repository becomes the default branch (HEAD
 * names it) and is protected as `default_branch_protection` says; the open merge requests from and into a branch
 * that moved take its new head (their merge base and merge status are then worked out again).
 */
export async function referencesMoved(ctx: Context, scoped: ProjectInScope, repo: Repository, updates: ReferenceUpdate[]): Promise<void> {
  const changes: Partial<Project> = { lastActivityAt: new Date() };
  const created = updates.find((update) => update.name.startsWith(BRANCH_PREFIX) && update.old === null && update.new !== null);
  if (created && (await repo.branches()).length === 0) {
    const branch = created.name.slice(BRANCH_PREFIX.length);
    changes.defaultBranch = branch;
    // HEAD may name a branch that has no commit yet: the repository is empty until the branch moves.
    await repo.setHeadBranch(branch);
    await protectDefaultBranch(ctx, scoped.project.id, branch);
  }
  await ctx.em.nativeUpdate(Project, { id: scoped.project.id }, changes);
  for (const update of updates) {
    if (update.name.startsWith(BRANCH_PREFIX))
      await branchMoved(ctx.em, scoped.project.id, update.name.slice(BRANCH_PREFIX.length), update.new);
  }
}

/** What `default_branch_protection` gives the first branch: 0 nothing, 1 developers push (maintainers merge), 2 maintainers only. */
export async function defaultBranchProtection(ctx: Context): Promise<ProtectionLevels | null> {
  return protectionBySetting((await ctx.settings()).default_branch_protection);
}

async function protectDefaultBranch(ctx: Context, projectId: number, branch: string): Promise<void> {
  const protection = await defaultBranchProtection(ctx);
  if (!protection) return;
  await protectFirstBranch(ctx.em, projectId, branch, protection);
}
