/**
 * Access levels and every rule that compares them, in one place: what a membership, a share or a branch protection
 * may hold, who a new project or group is given to, and what a protection lets. Services name these rules; they
 * compare no level themselves (test/policies.test.ts fails when one does).
 */

/** Access levels on members, as the original service has them. */
export const ACCESS_LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[keyof typeof ACCESS_LEVELS];

/** The levels a project membership or share may have (owner is a group's only), and a group membership. */
const MEMBER_LEVELS = {
  project: [ACCESS_LEVELS.guest, ACCESS_LEVELS.reporter, ACCESS_LEVELS.developer, ACCESS_LEVELS.maintainer] as readonly number[],
  group: Object.values(ACCESS_LEVELS) as readonly number[],
};

const LEVEL_NAMES: Record<number, string> = { 10: 'Guest', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };

/** Whether a membership (or, for a project, a share with a group) may have the level. */
export const isMemberLevel = (kind: 'project' | 'group', level: number) => MEMBER_LEVELS[kind].includes(level);

/**
 * The original's refusal of a membership below what the user has from a group above (`inherited`), or null when
 * the level is allowed.
 */
export function belowInherited(level: number, inherited: { access_level: number; source_name: string } | undefined): string | null {
  if (!inherited || inherited.access_level <= level) return null;
  return (
    `should be greater than or equal to ${LEVEL_NAMES[inherited.access_level]} inherited membership from ` +
    `group ${inherited.source_name}`
  );
}

/** Whether a change of a membership (`next` undefined: its removal) takes an owner away, which a group must survive. */
export const takesAnOwnerAway = (current: number, next?: number) => current === ACCESS_LEVELS.owner && next !== ACCESS_LEVELS.owner;

/** The level of whoever makes a group, and of a user on a project made in its own namespace (as the original gives them). */
export const CREATOR_LEVELS = { group: ACCESS_LEVELS.owner, project: ACCESS_LEVELS.maintainer } as const;

/** Whether a level is the one a group's creator gets: a group keeps one such member at least. */
export const isGroupCreatorLevel = (level: number) => level === CREATOR_LEVELS.group;

// ---- branch protections: the lowest level that may push to, and merge into, a branch (0: no one) ----

export interface ProtectionLevels {
  pushAccessLevel: number;
  mergeAccessLevel: number;
}

/** A protection that does not say otherwise: maintainers only. */
export const MAINTAINERS_ONLY: ProtectionLevels = { pushAccessLevel: ACCESS_LEVELS.maintainer, mergeAccessLevel: ACCESS_LEVELS.maintainer };

/** What a branch's protection lets: developers push (merge), or maintainers only; `undefined`: not said. */
export const developersLevel = (developers: boolean | undefined) =>
  developers === undefined ? null : developers ? ACCESS_LEVELS.developer : ACCESS_LEVELS.maintainer;

/** Whether a protection level lets developers in (`developers_can_push`, `developers_can_merge`). */
export const letsDevelopers = (level: number | undefined) => level === ACCESS_LEVELS.developer;

/** The strictest of the protections matching a branch: the one that asks the highest level to push. */
export const strictest = <P extends Pick<ProtectionLevels, 'pushAccessLevel'>>(protections: P[]): P =>
  protections.reduce((strictest, protection) => (protection.pushAccessLevel > strictest.pushAccessLevel ? protection : strictest));

/** What `default_branch_protection` gives the first branch: 0 nothing, 1 developers push (maintainers merge), 2 maintainers only. */
export const defaultBranchProtection = (setting: number): ProtectionLevels | null =>
  setting === 0 ? null : { ...MAINTAINERS_ONLY, pushAccessLevel: setting === 1 ? ACCESS_LEVELS.developer : ACCESS_LEVELS.maintainer };

const PROTECTION_DESCRIPTIONS: Record<number, string> = { 0: 'No one', 30: 'Developers + Maintainers', 40: 'Maintainers' };

/** A protection level as the protected branches API describes it. */
export const protectionDescription = (level: number) => PROTECTION_DESCRIPTIONS[level] ?? 'Maintainers';
