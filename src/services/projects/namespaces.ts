import type { FilterQuery } from '@mikro-orm/core';
import { Namespace, type User } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { can, type NamespaceInScope } from '../../auth/abilities.js';
import type { ListNamespacesQuery, Namespace as NamespaceShape, NamespaceExists, NamespaceExistsQuery } from '../../schemas/namespaces.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentNamespaces } from '../present/namespaces.js';
import { likePattern } from '../search.js';
import { administeredMemberCounts, findNamespaceInScope, ownOrMemberNamespaces, siblingTaken, takenPaths } from './namespace-store.js';
import { Service } from '../service.js';

/** A new user's own namespace, named by its username; written with the user (its `traversalIds` after: `setTraversalIds`). */
export function createUserNamespace(em: EntityManager, user: User): Namespace {
  return em.create(Namespace, {
    kind: 'user',
    name: user.username,
    path: user.username,
    fullPath: user.username,
    fullName: user.name,
    owner: user,
    traversalIds: [],
  });
}

/**
 * A namespace's chain of IDs from its top-level group down to itself, once its insert has given it an ID:
 * written with the next flush.
 */
export function setTraversalIds(namespace: Namespace, parent: Namespace | null): void {
  namespace.traversalIds = [...(parent?.traversalIds ?? []), namespace.id];
}

/** Paths a suggestion tries in one statement: `path`, `path1`, ... */
const SUGGESTIONS_AT_ONCE = 100;
/** Statements a suggestion may take before it gives up: a path taken with 1,000 numbers after it has none. */
const SUGGESTION_ROUNDS = 10;

/**
 * A path made from any text as the original's `Namespace.clean_path` makes it: what precedes an `@`, of letters,
 * digits, `_`, `-` and `.` only, without a trailing `.git`, `.atom` or `.`, nor a leading `-`; `blank` when
 * nothing is left.
 */
export function cleanPath(text: string): string {
  let path = text.replace(/@.*$/s, '').replace(/[^a-zA-Z0-9_\-.]/g, '');
  for (let before = ''; before !== path; ) {
    before = path;
    for (const ending of ['.git', '.atom', '.']) if (path.endsWith(ending)) path = path.slice(0, -ending.length);
  }
  path = path.replace(/^-+/, '');
  return path || 'blank';
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
    if (!can(this.ctx.caller, 'read_all_resources')) where.push(ownOrMemberNamespaces(this.ctx.caller, this.ctx.today()));
    if (query.search) {
      const pattern = likePattern(query.search);
      where.push({ $or: [{ name: { $ilike: pattern } }, { path: { $ilike: pattern } }] });
    }
    const page = await findPage(this.em, Namespace, where.length ? { $and: where } : {}, { id: 'asc' }, query, { plainRows: true });
    return { ...page, items: await this.present(page.items) };
  }

  /**
   * GET /namespaces/:id/exists (later clients): whether a namespace has the path (any case) at the top level or,
   * with `parent_id`, among the group's subgroups, whether or not the caller may see it, as the original answers;
   * when it has, a free path like it (`path1`, `path2`, ...: cleanPath, then the first number free among the same
   * siblings' paths).
   */
  async exists(path: string, query: NamespaceExistsQuery): Promise<NamespaceExists> {
    const parent = query.parent_id ?? 0;
    const taken = (candidates: string[]) => takenPaths(this.em, parent, candidates);
    if (!(await taken([path])).size) return { exists: false, suggests: [] };
    const base = cleanPath(path);
    for (let round = 0; round < SUGGESTION_ROUNDS; round++) {
      const candidates = Array.from({ length: SUGGESTIONS_AT_ONCE }, (_, index) => {
        const counter = round * SUGGESTIONS_AT_ONCE + index;
        return counter === 0 ? base : `${base}${counter}`;
      });
      const used = await taken(candidates);
      const free = candidates.find((candidate) => !used.has(candidate.toLowerCase()));
      if (free) return { exists: true, suggests: [free] };
    }
    return { exists: true, suggests: [] };
  }

  /** A namespace by ID or full path (any case), with what the caller is to it; null when there is none. */
  findInScope(idOrPath: number | string): Promise<NamespaceInScope | null> {
    return findNamespaceInScope(this.ctx, idOrPath);
  }

  /** Namespaces in the caller's shape; the members' count of the groups it may administer, in one query for the page. */
  async present(namespaces: Namespace[]): Promise<NamespaceShape[]> {
    const groups = namespaces.filter((namespace) => namespace.kind === 'group').map((namespace) => namespace.id);
    const administered =
      groups.length && this.ctx.caller.user ? await administeredMemberCounts(this.ctx, groups) : new Map<number, number>();
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
