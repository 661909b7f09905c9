import { Namespace, type User } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { can, type NamespaceInScope } from '../../auth/abilities.js';
import { administeredGroupsSql, memberGroupIdsSql, membersWithDescendantsSql, namespaceAccessColumnsSql } from '../../auth/access-levels.js';
import { ormRaw, queryRows, rowAs } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import type { ListNamespacesQuery, Namespace as NamespaceShape } from '../../schemas/namespaces.js';
import type { Context } from '../context.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentNamespaces } from '../present/namespaces.js';
import { likePattern } from '../search.js';

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
    const [{ taken }] = await queryRows(
      this.em,
      sql`select exists (select 1 from "namespaces" where coalesce("parent_id", 0) = ${parent?.id ?? 0} and lower("path") = lower(${path}) and "id" <> ${except?.id ?? 0}) as "taken"`,
    );
    return taken === true;
  }

  /**
   * The namespaces the caller may see (GET /namespaces): its own and the groups it is itself a member of;
   * every namespace for administrators. In ID order.
   */
  async list(query: ListNamespacesQuery & PageQuery): Promise<Page<NamespaceShape>> {
    const where: object[] = [];
    if (!can(this.ctx.caller, 'read_all_resources')) where.push({ $or: [{ owner: this.ctx.currentUser.id }, { id: { $in: ormRaw(sql`(${memberGroupIdsSql(this.ctx.caller)})`) } }] });
    if (query.search) {
      const pattern = likePattern(query.search);
      where.push({ $or: [{ name: { $ilike: pattern } }, { path: { $ilike: pattern } }] });
    }
    const page = await findPage(this.em, Namespace, where.length ? { $and: where } : {}, { id: 'asc' }, query, { plainRows: true });
    return { ...page, items: await this.present(page.items) };
  }

  /** A namespace by ID or full path (any case), with what the caller is to it; null when there is none. */
  async findInScope(idOrPath: number | string): Promise<NamespaceInScope | null> {
    const where = typeof idOrPath === 'number' ? sql`n."id" = ${idOrPath}` : sql`lower(n."full_path") = lower(${idOrPath})`;
    const [row] = await queryRows(this.em, sql`select to_jsonb(n) as "namespace", ${namespaceAccessColumnsSql(this.ctx.caller)} from "namespaces" n where ${where}`);
    if (!row) return null;
    return { namespace: rowAs(this.em, Namespace, row.namespace), own: row.own === true, member: row.member === true, accessLevel: Number(row.access_level) };
  }

  /** Namespaces in the caller's shape; the members' count of the groups it may administer, in one query for the page. */
  async present(namespaces: Namespace[]): Promise<NamespaceShape[]> {
    const groups = namespaces.filter((namespace) => namespace.kind === 'group').map((namespace) => namespace.id);
    const administered = new Map<number, number>();
    if (groups.length && this.ctx.caller.user) {
      const rows = await queryRows(
        this.em,
        sql`select g."id", ${membersWithDescendantsSql('g')} as "members" from "namespaces" g where g."id" = any(${groups}) and ${administeredGroupsSql(this.ctx.caller, 'g')}`,
      );
      for (const row of rows) administered.set(row.id as number, row.members as number);
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

