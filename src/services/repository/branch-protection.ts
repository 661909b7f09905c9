import { type BranchProtection, type ProjectInScope, pushesToBranch } from '../../auth/abilities.js';
import { strictest } from '../../auth/levels.js';
import { BadRequestError } from '../../errors.js';
import { isValidReferenceName } from '../../git/refs.js';
import type { Context } from '../context.js';
import { protectionsOf, type ProtectionRow } from './protected-branch-store.js';
import { defaultBranchProtection } from './reference-rules.js';
import { REFUSALS } from './refusals.js';

/** Which branches may be pushed to, by whom: the project's protections, by name or pattern (`release/*`). */

const matches = (pattern: string, branch: string) =>
  pattern === branch ||
  (pattern.includes('*') &&
    new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    ).test(branch));

/**
 * Whether a name can be a branch's, by the original's rules: a valid git reference name that does not start
 * with `-`, is not `HEAD`, and does not name a reference itself (`refs/heads/...`).
 */
export const isValidBranchName = (name: string) =>
  isValidReferenceName(name) && !name.startsWith('-') && name !== 'HEAD' && !name.startsWith('refs/');

/** The project's protections, each with its name or pattern. */
export async function projectProtections(ctx: Context, projectId: number): Promise<ProtectionRow[]> {
  return protectionsOf((await ctx.view()).rows, projectId);
}

/** What protects a branch: the strictest of the protections whose name or pattern matches it; null for none. */
export function protectionOf(protections: ProtectionRow[], branch: string): ProtectionRow | null {
  const matching = protections.filter((protection) => matches(protection.name, branch));
  if (!matching.length) return null;
  return strictest(matching);
}

/**
 * 400 unless the caller may push to the branch (its protection considered), as the original refuses a commit.
 * In an empty repository every branch is the first, protected as `default_branch_protection` will protect it.
 */
export async function checkPush(ctx: Context, scoped: ProjectInScope, branch: string): Promise<void> {
  let protection: BranchProtection | null = protectionOf(await projectProtections(ctx, scoped.project.id), branch);
  if (!protection && (await ctx.repositoryOf(scoped.project).branches()).length === 0) protection = await defaultBranchProtection(ctx);
  if (!pushesToBranch(ctx.caller, scoped, protection)) throw new BadRequestError(REFUSALS.pushNotAllowed);
}
