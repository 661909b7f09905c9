import type { FilterQuery } from '@mikro-orm/core';
import { can, type GroupInScope, type ProjectInScope } from '../../auth/abilities.js';
import { current, memberRowsSql, today, type MembersSource } from '../../auth/access-levels.js';
import { ACCESS_LEVELS, GROUP_ACCESS_LEVELS, PROJECT_ACCESS_LEVELS, User } from '../../db/entities/index.js';
import { ormRaw, queryRows, readRows } from '../../db/rows.js';
import { fixedSql, sql, type Sql } from '../../db/sql.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { AddMemberInput, EditMemberInput, ListMembersQuery, Member } from '../../schemas/members.js';
import type { Context } from '../context.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentUserBasic, USER_BASIC_FIELDS } from '../present/users.js';
import { likePattern } from '../search.js';

/** Whose members a call names: a project's or a group's, as its scope loaded it. */
export type MembersOf = { kind: 'project'; scoped: ProjectInScope } | { kind: 'group'; scoped: GroupInScope };

/** A membership's level and last day. */
interface Membership {
  access_level: number;
  expires_at: string | null;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'Guest', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };

/**
 * The day a membership or a share expires, from what the client sent (a date, or a timestamp whose date counts):
 * null for none; a day already past is refused, as the original refuses it.
 */
export function memberExpiry(expiresAt: string | null | undefined): string | null {
  if (!expiresAt) return null;
  const day = expiresAt.slice(0, 10);
  if (day < today()) throw BadRequestError.invalid('expires_at', 'cannot be a date in the past');
  return day;
}

/** The table and the key column of a source's own memberships: the only names these statements take. */
const TABLES = {
  project: { name: 'project_members', table: fixedSql('"project_members"'), key: fixedSql('"project_id"') },
  group: { name: 'group_members', table: fixedSql('"group_members"'), key: fixedSql('"group_id"') },
} as const;

/** Members of projects and groups: who has which level, until when, and who may change that. */
export class MembersService {
  constructor(private readonly ctx: Context) {}

  private get em() {
    return this.ctx.em;
  }

  /** GET …/members (its own members) and …/members/all (with those of the groups above it, each user at its highest level). */
  async list(of: MembersOf, query: ListMembersQuery & PageQuery, inherited: boolean): Promise<Page<Member>> {
    const rows = memberRowsSql(sourceOf(of), inherited);
    const where: FilterQuery<User>[] = [{ id: { $in: ormRaw(sql`(select m."user_id" from (${rows}) m)`) } }];
    if (query.query) {
      const pattern = likePattern(query.query);
      where.push({ $or: [{ name: { $ilike: pattern } }, { username: { $ilike: pattern } }] });
    }
    if (query.user_ids) where.push({ id: { $in: query.user_ids } });
    const page = await findPage(this.em, User, { $and: where }, { id: 'asc' }, query, { plainRows: true, fields: USER_BASIC_FIELDS });
    const memberships = await this.membershipsOf(rows, page.items.map((user) => user.id));
    return { ...page, items: await this.present(page.items, memberships) };
  }

  /** GET …/members/:user_id (its own membership) and …/members/all/:user_id (the highest, the groups above included). */
  async get(of: MembersOf, userId: number, inherited: boolean): Promise<Member> {
    const membership = (await this.membershipsOf(memberRowsSql(sourceOf(of), inherited), [userId])).get(userId);
    if (!membership) throw new NotFoundError('Member');
    const users = await readRows(this.em, User, sql`select * from "users" where "id" = ${userId}`);
    return (await this.present(users, new Map([[userId, membership]])))[0];
  }

  /** POST …/members: a user made a member (409 when it is one already). */
  async add(of: MembersOf, input: AddMemberInput): Promise<Member> {
    const source = sourceOf(of);
    await this.checkLevel(of, input.user_id, input.access_level);
    const expiresAt = memberExpiry(input.expires_at);
    const users = await readRows(this.em, User, sql`select * from "users" where "id" = ${input.user_id}`);
    if (!users.length) throw new NotFoundError('User');
    const { name, table, key } = TABLES[source.kind];
    // An expired membership is as good as none: it is replaced.
    const [added] = await queryRows(
      this.em,
      sql`insert into ${table} (${key}, "user_id", "access_level", "expires_at", "created_at") values (${source.id}, ${input.user_id}, ${input.access_level}, ${expiresAt}, now())
       on conflict (${key}, "user_id") do update set "access_level" = excluded."access_level", "expires_at" = excluded."expires_at", "created_at" = now()
       where not ${current(name)}
       returning "id"`,
    );
    if (!added) throw new ConflictError('Member already exists');
    return (await this.present(users, new Map([[input.user_id, { access_level: input.access_level, expires_at: expiresAt }]])))[0];
  }

  /** PUT …/members/:user_id: a member's level and last day changed. */
  async edit(of: MembersOf, userId: number, input: EditMemberInput): Promise<Member> {
    const source = sourceOf(of);
    const membership = await this.ownMembership(of, userId);
    await this.checkLevel(of, userId, input.access_level);
    // An owner's membership stepping down (owner is the highest level): the group must keep another.
    if (membership.access_level === ACCESS_LEVELS.owner && input.access_level !== ACCESS_LEVELS.owner) await this.keepAnOwner(of, userId);
    const expiresAt = input.expires_at === undefined ? membership.expires_at : memberExpiry(input.expires_at);
    const { table, key } = TABLES[source.kind];
    await queryRows(this.em, sql`update ${table} set "access_level" = ${input.access_level}, "expires_at" = ${expiresAt} where ${key} = ${source.id} and "user_id" = ${userId}`);
    return this.get(of, userId, false);
  }

  /** DELETE …/members/:user_id: a member removed by whoever administers the members, or leaving. */
  async remove(of: MembersOf, userId: number): Promise<void> {
    const source = sourceOf(of);
    const membership = await this.ownMembership(of, userId);
    if (userId !== this.ctx.currentUser.id && !this.administers(of)) throw new ForbiddenError();
    if (membership.access_level === ACCESS_LEVELS.owner) await this.keepAnOwner(of, userId);
    const { table, key } = TABLES[source.kind];
    await queryRows(this.em, sql`delete from ${table} where ${key} = ${source.id} and "user_id" = ${userId}`);
  }

  private administers(of: MembersOf): boolean {
    return of.kind === 'project' ? can(this.ctx.caller, 'admin_project_member', of.scoped) : can(this.ctx.caller, 'admin_group_member', of.scoped);
  }

  /** The user's own current membership of the source; 404 without one. */
  private async ownMembership(of: MembersOf, userId: number): Promise<Membership> {
    const membership = (await this.membershipsOf(memberRowsSql(sourceOf(of), false), [userId])).get(userId);
    if (!membership) throw new NotFoundError('Member');
    return membership;
  }

  /**
   * A level the source takes (owner is a group's only), and no lower than what the user has from a group above:
   * the original's rules and messages.
   */
  private async checkLevel(of: MembersOf, userId: number, level: number): Promise<void> {
    if (!(of.kind === 'project' ? PROJECT_ACCESS_LEVELS : GROUP_ACCESS_LEVELS).includes(level)) {
      throw BadRequestError.invalid('access_level', 'is not included in the list');
    }
    const [inherited] = await queryRows(
      this.em,
      sql`select m."access_level", m."source_name" from (${memberRowsSql(sourceOf(of), true)}) m
       where m."user_id" = ${userId} and m."source_name" is not null order by m."access_level" desc limit 1`,
    );
    if (inherited && Number(inherited.access_level) > level) {
      throw BadRequestError.invalid(
        'access_level',
        `should be greater than or equal to ${LEVEL_NAMES[Number(inherited.access_level)]} inherited membership from group ${inherited.source_name}`,
      );
    }
  }

  /** A group keeps at least one owner (its own or a group's above it): its last one may not leave or step down. */
  private async keepAnOwner(of: MembersOf, userId: number): Promise<void> {
    if (of.kind !== 'group') return;
    // Every owner's membership but the one changing, the groups above included (the same user may own one of those).
    const [{ others }] = await queryRows(
      this.em,
      sql`select count(*)::int as "others" from (${memberRowsSql(sourceOf(of), true)}) m
       where m."access_level" = ${ACCESS_LEVELS.owner} and not (m."user_id" = ${userId} and m."source_name" is null)`,
    );
    if (Number(others) === 0) throw new ForbiddenError('A group must have at least one owner');
  }

  /** Each user's highest current membership among `rows`, for the users given. */
  private async membershipsOf(rows: Sql, userIds: number[]): Promise<Map<number, Membership>> {
    const memberships = new Map<number, Membership>();
    if (!userIds.length) return memberships;
    const found = (await queryRows(
      this.em,
      sql`select distinct on (m."user_id") m."user_id", m."access_level", m."expires_at" from (${rows}) m
       where m."user_id" = any(${userIds}) order by m."user_id", m."access_level" desc`,
    )) as { user_id: number; access_level: number; expires_at: string | null }[];
    for (const row of found) memberships.set(Number(row.user_id), { access_level: Number(row.access_level), expires_at: row.expires_at });
    return memberships;
  }

  private async present(users: User[], memberships: Map<number, Membership>): Promise<Member[]> {
    const view = await this.ctx.view();
    return users.map((user) => ({ ...presentUserBasic(user, view), ...memberships.get(user.id)! }));
  }
}

const sourceOf = (of: MembersOf): MembersSource => (of.kind === 'project' ? { kind: 'project', id: of.scoped.project.id } : { kind: 'group', id: of.scoped.group.id });
