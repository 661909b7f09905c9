import { raw } from '@mikro-orm/core';
import { ACCESS_LEVELS, Namespace, type User } from '../db/entities/index.js';
import type { EntityManager } from '../db/orm.js';
import type { NamespaceInScope } from '../auth/abilities.js';
import { groupAccessLevelSql, memberGroupIdsSql, membersWithDescendantsSql } from '../auth/access-levels.js';
import { keyOf, readRows } from '../db/rows.js';
import type { ListNamespacesQuery, Namespace as NamespaceShape } from '../schemas/namespaces.js';
import type { Context } from './context.js';
import { findPage, type Page, type PageQuery } from './pagination.js';
import { presentNamespaces } from './present/namespaces.js';
import { likePattern } from './search.js';

/** A new user's own namespace, named by its username; written with the user (its `traversalIds` after: `setTraversalIds`). */
export function createUserNamespace(em: EntityManager, user: User): Namespace {
  return em.create(Namespace, { kind: 'user', name: user.username, path: user.username, fullPath: user.username, fullName: user.name, owner: user, traversalIds: [] });
}

/**
 * A namespace's chain of IDs from its top-level group down to itself, once its insert has given it an ID:
 * written with the next flush.
 */
export function setTraversalIds(namespace: Namespace, parent: Namespace | null): void {
  namespace.traversalIds = [...(parent?.traversalIds ?? []), namespace.id];
}

/** Namespaces: users' own, made, renamed and removed with their users, and groups'. */
export class NamespacesService {
  constructor(private readonly ctx: Context) {}

  private get em() {
    return this.ctx.em;
  }

  /**
   * Whether `path` names a namespace among the children of `parent` (null: the top level, where users'
   * namespaces and top-level groups meet), regardless of case; `except` is the namespace being renamed.
   */
  async pathTaken(parent: Namespace | null, path: string, except?: { id: number }): Promise<boolean> {
    // The expression of the namespaces_sibling_path_index, so that the index answers.
    const [{ taken }] = await this.em.execute<{ taken: boolean }[]>(
      'select exists (select 1 from "namespaces" where coalesce("parent_id", 0) = ? and lower("path") = lower(?) and "id" <> ?) as "taken"',
      [parent?.id ?? 0, path, except?.id ?? 0],
    );
    return taken;
  }

  /**
   * The namespaces the caller may see (GET /namespaces): its own and the groups it is itself a member of;
   * every namespace for administrators. In ID order.
   */
  async list(query: ListNamespacesQuery & PageQuery): Promise<Page<NamespaceShape>> {
    const where: object[] = [];
    if (!this.ctx.isAdmin) where.push({ $or: [{ owner: this.ctx.currentUser.id }, { id: { $in: raw(`(${memberGroupIdsSql(this.ctx.caller)})`) } }] });
    if (query.search) {
      const pattern = likePattern(query.search);
      where.push({ $or: [{ name: { $ilike: pattern } }, { path: { $ilike: pattern } }] });
    }
    const page = await findPage(this.em, Namespace, where.length ? { $and: where } : {}, { id: 'asc' }, query, { plainRows: true });
    return { ...page, items: await this.present(page.items) };
  }

  /** A namespace by ID or full path (any case), with whether the caller may see it; null when there is none. */
  async findInScope(idOrPath: number | string): Promise<NamespaceInScope | null> {
    const [namespace] =
      typeof idOrPath === 'number'
        ? await readRows(this.em, Namespace, 'select * from "namespaces" where "id" = ?', [idOrPath])
        : await readRows(this.em, Namespace, 'select * from "namespaces" where lower("full_path") = lower(?)', [idOrPath]);
    if (!namespace) return null;
    const user = this.ctx.caller.user;
    if (this.ctx.isAdmin || (namespace.kind === 'user' && user && keyOf(namespace.owner) === user.id)) return { namespace, visible: true };
    if (namespace.kind !== 'group' || !user) return { namespace, visible: false };
    const [{ member }] = await this.em.execute<{ member: boolean }[]>(`select ? in (${memberGroupIdsSql(this.ctx.caller)}) as "member"`, [namespace.id]);
    return { namespace, visible: member };
  }

  /** Namespaces in the caller's shape; the members' count of the groups it may administer, in one query for the page. */
  async present(namespaces: Namespace[]): Promise<NamespaceShape[]> {
    const groups = namespaces.filter((namespace) => namespace.kind === 'group').map((namespace) => namespace.id);
    const administered = new Map<number, number>();
    const user = this.ctx.caller.user;
    if (groups.length && user) {
      const administers = this.ctx.isAdmin ? 'true' : `${groupAccessLevelSql(user.id, 'g')} >= ${ACCESS_LEVELS.maintainer}`;
      const rows = await this.em.execute<{ id: number; members: number }[]>(
        `select g."id", ${membersWithDescendantsSql('g')} as "members" from "namespaces" g where g."id" in (${groups.join(', ')}) and ${administers}`,
      );
      for (const row of rows) administered.set(row.id, row.members);
    }
    return presentNamespaces(namespaces, administered, await this.ctx.view());
  }

  /** The user's namespace after a change of its username or name. */
  async renameForUser(user: User): Promise<void> {
    const namespace = await this.em.findOneOrFail(Namespace, { owner: user });
    namespace.name = user.username;
    namespace.path = user.username;
    namespace.fullPath = user.username;
    namespace.fullName = user.name;
  }
}

