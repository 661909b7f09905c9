import { MAINTAINERS_ONLY } from '../../auth/levels.js';
import type { ProtectedBranch } from '../../db/entities/index.js';
import { clockOf } from '../../clock.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';

/** Branch protections' hand-written statements: who may push to and merge into the branches a name or pattern matches. */

/** A protection as the database has it: a name, or a pattern where `*` stands for any characters. */
export type ProtectionRow = Pick<ProtectedBranch, 'name' | 'pushAccessLevel' | 'mergeAccessLevel'>;

/** Who may push to and merge into a protected branch (the lowest access level). */
type Levels = Pick<ProtectedBranch, 'pushAccessLevel' | 'mergeAccessLevel'>;

/** The project's protections, each with its name or pattern. */
export async function protectionsOf(em: EntityManager, projectId: number): Promise<ProtectionRow[]> {
  return (await queryRows(
    em,
    sql`select "name", "push_access_level" as "pushAccessLevel", "merge_access_level" as "mergeAccessLevel" from "protected_branches"
      where "project_id" = ${projectId}`,
  )) as ProtectionRow[];
}

/** A new protection; its ID, or null when the name or pattern is protected already. */
export async function insertProtection(em: EntityManager, projectId: number, name: string, levels: Levels): Promise<number | null> {
  const [created] = await queryRows(
    em,
    sql`insert into "protected_branches" ("project_id", "name", "push_access_level", "merge_access_level", "created_at")
     values (${projectId}, ${name}, ${levels.pushAccessLevel}, ${levels.mergeAccessLevel}, ${clockOf(em).now()})
     on conflict do nothing returning "id"`,
  );
  return created ? (created.id as number) : null;
}

/** The first branch's protection, unless it has one already. */
export async function protectFirstBranch(em: EntityManager, projectId: number, branch: string, protection: Levels): Promise<void> {
  await queryRows(
    em,
    sql`insert into "protected_branches" ("project_id", "name", "push_access_level", "merge_access_level", "created_at")
      values (${projectId}, ${branch}, ${protection.pushAccessLevel}, ${protection.mergeAccessLevel}, ${clockOf(em).now()})
      on conflict do nothing`,
  );
}

/**
 * A branch protected by name: a new protection with the levels given (maintainers for a level not given), or,
 * protected already, the levels given changed and the others kept.
 */
export async function protectBranch(
  em: EntityManager,
  projectId: number,
  name: string,
  push: number | null,
  merge: number | null,
): Promise<void> {
  await queryRows(
    em,
    sql`insert into "protected_branches" ("project_id", "name", "push_access_level", "merge_access_level", "created_at")
     values (${projectId}, ${name}, ${push ?? MAINTAINERS_ONLY.pushAccessLevel}, ${merge ?? MAINTAINERS_ONLY.mergeAccessLevel},
       ${clockOf(em).now()})
     on conflict ("project_id", "name") do update set "push_access_level" = coalesce(${push}::int,
       "protected_branches"."push_access_level"),
       "merge_access_level" = coalesce(${merge}::int, "protected_branches"."merge_access_level")`,
  );
}
