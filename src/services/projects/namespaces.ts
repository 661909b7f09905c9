import type { FilterQuery } from '@mikro-orm/core';
import { Namespace, type User } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { can, type NamespaceInScope } from '../../auth/abilities.js';
import type { ListNamespacesQuery, Namespace as NamespaceShape } from '../../schemas/namespaces.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentNamespaces } from '../present/namespaces.js';
import { likePattern } from '../search.js';
import { administeredMemberCounts, findNamespaceInScope, ownOrMemberNamespaces, siblingTaken } from './namespace-store.js';
import { Service } from '../service.js';

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
export class NamespacesService extends Service {
  /**
   * Whether `path` names a namespace among the children of `parent` (null: the top level, where users'
   * namespaces and top-level groups meet), regardless of case; `except` is the namespace being renamed.
   */
  pathTaken(parent: Namespace | null, path: string, except?: { id: number }): Promise<boolean> {
    return siblingTaken(this.em, parent, 'path', path, except);
  }

  /**
   * The namespaces the caller may see (GET /namespaces): its own and the groups it is itself a member of;
   * every namespace for administrators. In ID order.
   */
  async list(query: ListNamespacesQuery & PageQuery): Promise<Page<NamespaceShape>> {
    const where: FilterQuery<Namespace>[] = [];
    if (!can(this.ctx.caller, 'read_all_resources')) where.push(ownOrMemberNamespaces(this.ctx.caller));
    if (query.search) {
      const pattern = likePattern(query.search);
      where.push({ $or: [{ name: { $ilike: pattern } }, { path: { $ilike: pattern } }] });
    }
    const page = await findPage(this.em, Namespace, where.length ? { $and: where } : {}, { id: 'asc' }, query, { plainRows: true });
    return { ...page, items: await this.present(page.items) };
  }

  /** A namespace by ID or full path (any case), with what the caller is to it; null when there is none. */
  findInScope(idOrPath: number | string): Promise<NamespaceInScope | null> {
    return findNamespaceInScope(this.ctx, idOrPath);
  }

  /** Namespaces in the caller's shape; the members' count of the groups it may administer, in one query for the page. */
  async present(namespaces: Namespace[]): Promise<NamespaceShape[]> {
    const groups = namespaces.filter((namespace) => namespace.kind === 'group').map((namespace) => namespace.id);
    const administered = groups.length && this.ctx.caller.user ? await administeredMemberCounts(this.ctx, groups) : new Map<number, number>();
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

