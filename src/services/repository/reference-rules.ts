import { Project } from '../../db/entities/index.js';
import { BRANCH_PREFIX } from '../../git/repository.js';
import type { Context } from '../context.js';
import { rule } from '../rules.js';
import { branchMoved } from '../work-items/merge-request-store.js';
import { defaultBranchProtection as protectionBySetting, type ProtectionLevels } from '../../auth/levels.js';
import { protectFirstBranch } from './protected-branch-store.js';
import { queueHousekeeping } from './housekeeping.js';
import { countPush } from './housekeeping-store.js';

/**
 * What a reference that moves changes beside it, in the write's transaction (under the repository's lock, just before
 * the reference moves): what these keep is derived from the references themselves, so that a later move sets right
 * what a crash between the move and the commit left out.
 */
export const referenceRules = [
  /**
   * The project's last activity; and every PUSHES_BETWEEN_HOUSEKEEPING branch pushes, its repository's housekeeping
   * queued, as the original counts `pushes_since_gc`.
   */
  rule(['push', 'tag_push'], async (ctx, event) => {
    if (await countPush(ctx.em, event.project_id!, event.kind === 'push' && event.data.after !== null)) {
      await queueHousekeeping(ctx.env.jobs, ctx.em, event.project_id!);
    }
  }),
  /**
   * The first branch of an empty repository becomes the default branch (HEAD names it), protected as
   * `default_branch_protection` says.
   */
  rule(['push'], async (ctx, event) => {
    if (!event.data.first_branch) return;
    const branch = event.data.ref.slice(BRANCH_PREFIX.length);
    const projectId = event.project_id!;
    await ctx.em.nativeUpdate(Project, { id: projectId }, { defaultBranch: branch });
    // HEAD may name a branch that has no commit yet: the repository is empty until the branch moves.
    await ctx.repositoryOf(await projectStorage(ctx, projectId)).setHeadBranch(branch);
    const protection = await defaultBranchProtection(ctx);
    if (protection) await protectFirstBranch(ctx.em, projectId, branch, protection);
  }),
  /** The open merge requests from and into the branch take its new head (their merge status is then worked out again). */
  rule(['push'], (ctx, event) => branchMoved(ctx.em, event.project_id!, event.data.ref.slice(BRANCH_PREFIX.length), event.data.after)),
];

/** Where the project's repository is. */
async function projectStorage(ctx: Context, projectId: number): Promise<{ id: number; repositoryStorage: string }> {
  const project = await ctx.em.findOneOrFail(Project, projectId, { fields: ['id', 'repositoryStorage'] });
  return { id: project.id, repositoryStorage: project.repositoryStorage };
}

/** What `default_branch_protection` gives the first branch: 0 nothing, 1 developers push (maintainers merge), 2 maintainers only. */
export async function defaultBranchProtection(ctx: Context): Promise<ProtectionLevels | null> {
  return protectionBySetting((await ctx.settings()).default_branch_protection);
}
