import type { Caller } from './caller.js';
import type { Policy } from './policy.js';
import { awardEmojiPolicy } from './policies/award-emoji.js';
import { groupPolicy } from './policies/group.js';
import { issuePolicy } from './policies/issue.js';
import { mergeRequestPolicy } from './policies/merge-request.js';
import { notePolicy } from './policies/note.js';
import { namespacePolicy } from './policies/namespace.js';
import { projectPolicy } from './policies/project.js';
import { protectedBranchPolicy } from './policies/protected-branch.js';
import { runnerPolicy } from './policies/runner.js';
import { globalPolicy, personalAccessTokenPolicy, userPolicy } from './policies/user.js';

export { mergesToBranch, pushesToBranch, type BranchProtection, type ProjectInScope } from './policies/project.js';
export type { AwardInScope } from './policies/award-emoji.js';
export type { GroupInScope } from './policies/group.js';
export type { IssueFacts, IssueInScope } from './policies/issue.js';
export type { NoteableInScope, NoteInScope } from './policies/note.js';
export type { MergeRequestFacts, MergeRequestInScope } from './policies/merge-request.js';
export type { NamespaceInScope } from './policies/namespace.js';
export type { ProtectedBranchInScope } from './policies/protected-branch.js';
export type { RunnerInScope } from './policies/runner.js';

/**
 * Every policy, by the kind of subject it answers for. Services and routes ask for an ability by name (`can`),
 * never compare access levels themselves; each ability belongs to one policy. The policy table
 * (test/policies.table.md) lists what each kind of caller may do with each kind of subject.
 */
export const POLICIES = {
  global: globalPolicy,
  user: userPolicy,
  personalAccessToken: personalAccessTokenPolicy,
  namespace: namespacePolicy,
  group: groupPolicy,
  project: projectPolicy,
  protectedBranch: protectedBranchPolicy,
  issue: issuePolicy,
  mergeRequest: mergeRequestPolicy,
  note: notePolicy,
  awardEmoji: awardEmojiPolicy,
  runner: runnerPolicy,
};

type Policies = typeof POLICIES;
type AbilitiesOf<P> = P extends Policy<unknown, infer A> ? A : never;
type SubjectOf<P> = P extends Policy<infer S, string> ? S : never;

/** An ability's name, as the original service's policies name it. */
export type Ability = AbilitiesOf<Policies[keyof Policies]>;

/** The subject an ability is asked of: a project in scope, a group in scope, a user, ...; `null` for the instance's own. */
export type AbilityResource<A extends Ability> = {
  [K in keyof Policies]: A extends AbilitiesOf<Policies[K]> ? SubjectOf<Policies[K]> : never;
}[keyof Policies];

const POLICY_OF = new Map<string, Policy<never, string>>();
for (const policy of Object.values(POLICIES) as Policy<never, string>[]) {
  for (const ability of policy.abilities) {
    if (POLICY_OF.has(ability)) throw new Error(`two policies answer ${ability}`);
    POLICY_OF.set(ability, policy);
  }
}

const policyOf = (ability: Ability) => POLICY_OF.get(ability) as Policy<unknown, string>;

/** Whether the caller may do `ability` with `resource` (no resource for the instance's own abilities). */
export function can<A extends Ability>(
  caller: Caller,
  ability: A,
  ...[resource]: AbilityResource<A> extends null ? [] : [AbilityResource<A>]
): boolean {
  return policyOf(ability).allows(caller, ability, resource ?? null);
}

/** Whether a refusal of `ability` answers 404 to those who may not see its subject (rather than 403 to all). */
export const abilityMayHide = (ability: Ability): boolean => policyOf(ability).mayHide(ability);

/** Whether a refusal of `ability` on `resource` answers 404 (hiding that it exists) rather than 403. */
export function refusalHides<A extends Ability>(caller: Caller, ability: A, resource: AbilityResource<A>): boolean {
  return policyOf(ability).hides(caller, ability, resource);
}
