import { Namespace, type User } from '../db/entities/index.js';
import type { EntityManager } from '../db/orm.js';
import type { Context } from './context.js';

/** A new user's own namespace, named by its username (its `traversalIds` once its insert gives it an ID). */
export function createUserNamespace(em: EntityManager, user: User): Namespace {
  return em.create(Namespace, { kind: 'user', name: user.username, path: user.username, fullPath: user.username, fullName: user.name, owner: user, traversalIds: [] });
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

  /** A new user's own namespace: written with the user. */
  createForUser(user: User): Namespace {
    return createUserNamespace(this.em, user);
  }

  /** The user's namespace after a change of its username or name. */
  async renameForUser(user: User): Promise<void> {
    const namespace = await this.em.findOneOrFail(Namespace, { owner: user });
    namespace.name = user.username;
    namespace.path = user.username;
    namespace.fullPath = user.username;
    namespace.fullName = user.name;
  }

  /**
   * A namespace's chain of IDs from its top-level group down to itself, once its insert has given it an ID:
   * written with the next flush.
   */
  setTraversalIds(namespace: Namespace, parent: Namespace | null): void {
    namespace.traversalIds = [...(parent?.traversalIds ?? []), namespace.id];
  }
}

