import type { FilterQuery } from '@mikro-orm/core';
import { current, type Day, dayOf, memberRowsSql, ownerSql, type MembersSource } from '../../auth/access-levels.js';
import { User } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { ormRaw, queryRows, readRows } from '../../db/rows.js';
import { fixedSql, sql } from '../../db/sql.js';

/**
 * Memberships' hand-written statements: a project's or a group's own members (`project_members`,
 * `group_members`), and with `inherited` those of the groups above it (memberRowsSql).
 */

/** A membership's level and last day. */
export interface Membership {
  access_level: number;
  expires_at: string | null;
}

/** The table and the key column of a source's own memberships: the only names these statements take. */
const TABLES = {
  project: { name: 'project_members', table: fixedSql('"project_members"'), key: fixedSql('"project_id"') },
  group: { name: 'group_members', table: fixedSql('"group_members"'), key: fixedSql('"group_id"') },
} as const;

/** The source's members (with `inherited`, those above it too) as a condition on users. */
export const membersWhere = (source: MembersSource, inherited: boolean, today: Day): FilterQuery<User> => ({
  id: { $in: ormRaw(sql`(select m."user_id" from (${memberRowsSql(source, inherited, today)}) m)`) },
});

/** Each user's highest current membership of the source (with `inherited`, the groups above included), for the users given. */
export async function membershipsOf(
  em: EntityManager,
  source: MembersSource,
  inherited: boolean,
  userIds: number[],
  today: Day,
): Promise<Map<number, Membership>> {
  const memberships = new Map<number, Membership>();
  if (!userIds.length) return memberships;
  const found = (await queryRows(
    em,
    sql`select distinct on (m."user_id") m."user_id", m."access_level", m."expires_at" from (${memberRowsSql(source, inherited, today)}) m
     where m."user_id" = any(${userIds}) order by m."user_id", m."access_level" desc`,
  )) as { user_id: number; access_level: number; expires_at: string | null }[];
  for (const row of found) memberships.set(Number(row.user_id), { access_level: Number(row.access_level), expires_at: row.expires_at });
  return memberships;
}

/** The highest membership the user has of a group above the source, and that group's name; undefined for none. */
export async function inheritedMembership(
  em: EntityManager,
  source: MembersSource,
  userId: number,
  today: Day,
): Promise<{ access_level: number; source_name: string } | undefined> {
  const [row] = await queryRows(
    em,
    sql`select m."access_level", m."source_name" from (${memberRowsSql(source, true, today)}) m
     where m."user_id" = ${userId} and m."source_name" is not null order by m."access_level" desc limit 1`,
  );
  return row && { access_level: Number(row.access_level), source_name: String(row.source_name) };
}

/** How many owners' memberships the source has (its own and the groups' above it) beside the user's own one. */
export async function otherOwners(em: EntityManager, source: MembersSource, userId: number, today: Day): Promise<number> {
  const [{ others }] = await queryRows(
    em,
    sql`select count(*)::int as "others" from (${memberRowsSql(source, true, today)}) m
     where ${ownerSql('m')} and not (m."user_id" = ${userId} and m."source_name" is null)`,
  );
  return Number(others);
}

/** A user by ID, as the member lists present it; undefined when there is none. */
export async function userById(em: EntityManager, userId: number): Promise<User | undefined> {
  const [user] = await readRows(em, User, sql`select * from "users" where "id" = ${userId}`);
  return user;
}

/**
 * A new membership, made `now` (the instance's time); an expired one is as good as none and is replaced. False when the user is a member
 * already.
 */
export async function insertMembership(
  em: EntityManager,
  source: MembersSource,
  userId: number,
  membership: Membership,
  now: Date,
): Promise<boolean> {
  const { name, table, key } = TABLES[source.kind];
  const [added] = await queryRows(
    em,
    sql`insert into ${table} (${key}, "user_id", "access_level", "expires_at", "created_at")
      values (${source.id}, ${userId}, ${membership.access_level}, ${membership.expires_at}, ${now})
     on conflict (${key}, "user_id") do update set "access_level" = excluded."access_level", "expires_at" = excluded."expires_at",
       "created_at" = excluded."created_at"
     where not ${current(name, dayOf(now))}
     returning "id"`,
  );
  return added !== undefined;
}

/** A member's own membership of the source changed. */
export async function updateMembership(em: EntityManager, source: MembersSource, userId: number, membership: Membership): Promise<void> {
  const { table, key } = TABLES[source.kind];
  await queryRows(
    em,
    sql`update ${table} set "access_level" = ${membership.access_level}, "expires_at" = ${membership.expires_at}
      where ${key} = ${source.id} and "user_id" = ${userId}`,
  );
}

/** A member's own membership of the source removed. */
export async function deleteMembership(em: EntityManager, source: MembersSource, userId: number): Promise<void> {
  const { table, key } = TABLES[source.kind];
  await queryRows(em, sql`delete from ${table} where ${key} = ${source.id} and "user_id" = ${userId}`);
}
