import type { FilterQuery } from '@mikro-orm/core';
import { can, type GroupInScope, type ProjectInScope } from '../../auth/abilities.js';
import type { Day, MembersSource } from '../../auth/access-levels.js';
import { belowInherited, isMemberLevel, takesAnOwnerAway } from '../../auth/levels.js';
import { User } from '../../db/entities/index.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { AddMemberInput, EditMemberInput, ListMembersQuery, Member } from '../../schemas/members.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentUserBasic, USER_BASIC_FIELDS } from '../present/users.js';
import { likePattern } from '../search.js';
import {
  deleteMembership,
  inheritedMembership,
  insertMembership,
  membersWhere,
  membershipsOf,
  otherOwners,
  updateMembership,
  userById,
  type Membership,
} from './member-store.js';
import { Service } from '../service.js';

/** Whose members a call names: a project's or a group's, as its scope loaded it. */
export type MembersOf = { kind: 'project'; scoped: ProjectInScope } | { kind: 'group'; scoped: GroupInScope };

/**
 * The day a membership or a share expires, from what the client sent (a date, or a timestamp whose date counts):
 * null for none; a day already past is refused, as the original refuses it.
 */
export function memberExpiry(expiresAt: string | null | undefined, today: Day): string | null {
  if (!expiresAt) return null;
  const day = expiresAt.slice(0, 10);
  if (day < today) throw BadRequestError.invalid('expires_at', 'cannot be a date in the past');
  return day;
}

/** Members of projects and groups: who has which level, until when, and who may change that. */
export class MembersService extends Service {
  /** GET …/members (its own members) and …/members/all (with those of the groups above it, each user at its highest level). */
  async list(of: MembersOf, query: ListMembersQuery & PageQuery, inherited: boolean): Promise<Page<Member>> {
    const source = sourceOf(of);
    const where: FilterQuery<User>[] = [membersWhere(source, inherited, this.ctx.today())];
    if (query.query) {
      const pattern = likePattern(query.query);
      where.push({ $or: [{ name: { $ilike: pattern } }, { username: { $ilike: pattern } }] });
    }
    if (query.user_ids) where.push({ id: { $in: query.user_ids } });
    const page = await findPage(this.em, User, { $and: where }, { id: 'asc' }, query, { plainRows: true, fields: USER_BASIC_FIELDS });
    const memberships = await membershipsOf(
      this.em,
      source,
      inherited,
      page.items.map((user) => user.id),
      this.ctx.today(),
    );
    return { ...page, items: await this.present(page.items, memberships) };
  }

  /** GET …/members/:user_id (its own membership) and …/members/all/:user_id (the highest, the groups above included). */
  async get(of: MembersOf, userId: number, inherited: boolean): Promise<Member> {
    const membership = (await membershipsOf(this.em, sourceOf(of), inherited, [userId], this.ctx.today())).get(userId);
    const user = membership && (await userById(this.em, userId));
    if (!membership || !user) throw new NotFoundError('Member');
    return (await this.present([user], new Map([[userId, membership]])))[0];
  }

  /** POST …/members: a user made a member (409 when it is one already). */
  async add(of: MembersOf, input: AddMemberInput): Promise<Member> {
    const source = sourceOf(of);
    await this.checkLevel(of, input.user_id, input.access_level);
    const expiresAt = memberExpiry(input.expires_at, this.ctx.today());
    const user = await userById(this.em, input.user_id);
    if (!user) throw new NotFoundError('User');
    const membership = { access_level: input.access_level, expires_at: expiresAt };
    if (!(await insertMembership(this.em, source, input.user_id, membership, this.ctx.now())))
      throw new ConflictError('Member already exists');
    await this.recordEvent('member.added', of, input.user_id, input.access_level);
    return (await this.present([user], new Map([[input.user_id, membership]])))[0];
  }

  /** PUT …/members/:user_id: a member's level and last day changed. */
  async edit(of: MembersOf, userId: number, input: EditMemberInput): Promise<Member> {
    const source = sourceOf(of);
    const membership = await this.ownMembership(of, userId);
    await this.checkLevel(of, userId, input.access_level);
    // An owner's membership stepping down (owner is the highest level): the group must keep another.
    if (takesAnOwnerAway(membership.access_level, input.access_level)) await this.keepAnOwner(of, userId);
    const expiresAt = input.expires_at === undefined ? membership.expires_at : memberExpiry(input.expires_at, this.ctx.today());
    await updateMembership(this.em, source, userId, { access_level: input.access_level, expires_at: expiresAt });
    await this.recordEvent('member.updated', of, userId, input.access_level);
    return this.get(of, userId, false);
  }

  /** DELETE …/members/:user_id: a member removed by whoever administers the members, or leaving. */
  async remove(of: MembersOf, userId: number): Promise<void> {
    const source = sourceOf(of);
    const membership = await this.ownMembership(of, userId);
    if (userId !== this.ctx.currentUser.id && !this.administers(of)) throw new ForbiddenError();
    if (takesAnOwnerAway(membership.access_level)) await this.keepAnOwner(of, userId);
    await deleteMembership(this.em, source, userId);
    await this.recordEvent('member.removed', of, userId, membership.access_level);
  }

  /**
   * An event of a membership, by the member (as the original's Events API has it: the user joined or left), naming the
   * project or group.
   */
  private recordEvent(kind: 'member.added' | 'member.updated' | 'member.removed', of: MembersOf, userId: number, level: number) {
    const source = sourceOf(of);
    return this.ctx.record({
      kind,
      authorId: userId,
      ...(source.kind === 'project' ? { projectId: source.id } : { groupId: source.id }),
      data: { source_type: source.kind === 'project' ? 'Project' : 'Group', user_id: userId, access_level: level },
    });
  }

  private administers(of: MembersOf): boolean {
    return of.kind === 'project'
      ? can(this.ctx.caller, 'admin_project_member', of.scoped)
      : can(this.ctx.caller, 'admin_group_member', of.scoped);
  }

  /** The user's own current membership of the source; 404 without one. */
  private async ownMembership(of: MembersOf, userId: number): Promise<Membership> {
    const membership = (await membershipsOf(this.em, sourceOf(of), false, [userId], this.ctx.today())).get(userId);
    if (!membership) throw new NotFoundError('Member');
    return membership;
  }

  /**
   * A level the source takes (owner is a group's only), and no lower than what the user has from a group above:
   * the original's rules and messages.
   */
  private async checkLevel(of: MembersOf, userId: number, level: number): Promise<void> {
    if (!isMemberLevel(of.kind, level)) throw BadRequestError.invalid('access_level', 'is not included in the list');
    const refusal = belowInherited(level, await inheritedMembership(this.em, sourceOf(of), userId, this.ctx.today()));
    if (refusal) throw BadRequestError.invalid('access_level', refusal);
  }

  /** A group keeps at least one owner (its own or a group's above it): its last one may not leave or step down. */
  private async keepAnOwner(of: MembersOf, userId: number): Promise<void> {
    if (of.kind !== 'group') return;
    // Every owner's membership but the one changing, the groups above included (the same user may own one of those).
    if ((await otherOwners(this.em, sourceOf(of), userId, this.ctx.today())) === 0)
      throw new ForbiddenError('A group must have at least one owner');
  }

  private async present(users: User[], memberships: Map<number, Membership>): Promise<Member[]> {
    const view = await this.ctx.view();
    return users.map((user) => ({ ...presentUserBasic(user, view), ...memberships.get(user.id)! }));
  }
}

const sourceOf = (of: MembersOf): MembersSource =>
  of.kind === 'project' ? { kind: 'project', id: of.scoped.project.id } : { kind: 'group', id: of.scoped.group.id };
