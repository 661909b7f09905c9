import { can, type ProjectInScope, pushesToBranch, type BranchProtection } from '../../auth/abilities.js';
import { mergeBase } from '../../git/ancestry.js';
import type { CommandResult, PushCommand } from '../../git/receive-pack.js';
import { BRANCH_PREFIX, TAG_PREFIX } from '../../git/repository.js';
import type { Context } from '../context.js';
import { projectProtections, protectionOf } from './branch-protection.js';
import { defaultBranchProtection } from './reference-rules.js';
import { REFUSALS } from './refusals.js';
import { type ReferenceUpdate, writeRepository } from './writes.js';

/**
 * A git push's reference updates, applied as any repository write is (src/services/repository/writes.ts): under the
 * repository's lock, each decided by the caller's abilities and the branch's protection as the API's writes are, those
 * allowed moved by compare-and-swap with the events and rules of a write (merge requests' heads, issues closed by
 * commits, the first branch made the default). The pack's objects are in the repository already.
 */

/** Each command's outcome: done, or refused with the reason git shows (`ng <ref> <reason>`). */
export type PushResults = Map<string, CommandResult>;

const ZERO_ID = '0'.repeat(40);

/** The original's words for what a push may not do. */
export const PUSH_REFUSALS = {
  protectedBranch: 'You are not allowed to push code to protected branches on this project.',
  forcePushProtected: 'You are not allowed to force push code to a protected branch on this project.',
  deleteProtected: 'You are not allowed to delete protected branches from this project.',
  deleteDefault: REFUSALS.removeDefaultBranch,
  changeTags: REFUSALS.changeExistingTags,
  otherReference: 'You can push branches (refs/heads/) and tags (refs/tags/) only.',
  stale: 'stale info: the reference has moved since it was read',
  atomic: 'atomic push failed: another reference of the push was refused',
} as const;

/** Applies a push's commands (those the push itself did not rule out); with `atomic`, all of them or none. */
export async function applyPush(ctx: Context, scoped: ProjectInScope, commands: PushCommand[], atomic: boolean): Promise<PushResults> {
  const results: PushResults = new Map();
  await writeRepository(ctx, scoped, async (repo) => {
    const protections = await projectProtections(ctx, scoped.project.id);
    const branches = await repo.branches();
    // In an empty repository every branch is the first, protected as the default branch will be.
    const firstBranch = branches.length === 0 ? await defaultBranchProtection(ctx) : null;
    const defaultBranch = scoped.project.defaultBranch ?? null;
    const updates: ReferenceUpdate[] = [];
    for (const command of commands) {
      const reason = await refusal(ctx, scoped, command, {
        current: await currentOf(repo, command.ref),
        protection: command.ref.startsWith(BRANCH_PREFIX)
          ? (protectionOf(protections, command.ref.slice(BRANCH_PREFIX.length)) ?? firstBranch)
          : null,
        defaultBranch,
        isAncestor: (older, newer) => mergeBase(repo, older, newer).then((base) => base === older),
      });
      results.set(command.ref, reason ? { ok: false, reason } : { ok: true });
      if (!reason) updates.push({ name: command.ref, old: nullable(command.old), new: nullable(command.new) });
    }
    if (atomic && updates.length < commands.length) {
      for (const { name } of updates) results.set(name, { ok: false, reason: PUSH_REFUSALS.atomic });
      return { updates: [], result: undefined };
    }
    return { updates, result: undefined };
  });
  return results;
}

const nullable = (oid: string) => (oid === ZERO_ID ? null : oid);

async function currentOf(repo: { branch(name: string): Promise<string | null>; tag(name: string): Promise<string | null> }, ref: string) {
  if (ref.startsWith(BRANCH_PREFIX)) return repo.branch(ref.slice(BRANCH_PREFIX.length));
  if (ref.startsWith(TAG_PREFIX)) return repo.tag(ref.slice(TAG_PREFIX.length));
  return null;
}

/** Why a command may not be applied; undefined when it may. */
async function refusal(
  ctx: Context,
  scoped: ProjectInScope,
  command: PushCommand,
  facts: {
    current: string | null;
    protection: BranchProtection | null;
    defaultBranch: string | null;
    isAncestor(older: string, newer: string): Promise<boolean>;
  },
): Promise<string | undefined> {
  const { ref } = command;
  if (!ref.startsWith(BRANCH_PREFIX) && !ref.startsWith(TAG_PREFIX)) return PUSH_REFUSALS.otherReference;
  // What the client read is no longer there: another write came first.
  if ((facts.current ?? ZERO_ID) !== command.old) return PUSH_REFUSALS.stale;
  const deleting = command.new === ZERO_ID;
  if (ref.startsWith(TAG_PREFIX)) {
    // Developers add tags; moving or deleting one is the maintainers'.
    if (command.old !== ZERO_ID && !can(ctx.caller, 'admin_project', scoped)) return PUSH_REFUSALS.changeTags;
    return undefined;
  }
  const branch = ref.slice(BRANCH_PREFIX.length);
  if (deleting && branch === facts.defaultBranch) return PUSH_REFUSALS.deleteDefault;
  if (facts.protection && deleting) return PUSH_REFUSALS.deleteProtected;
  if (!pushesToBranch(ctx.caller, scoped, facts.protection)) return PUSH_REFUSALS.protectedBranch;
  if (facts.protection && command.old !== ZERO_ID && !deleting && !(await facts.isAncestor(command.old, command.new))) {
    return PUSH_REFUSALS.forcePushProtected;
  }
  return undefined;
}
