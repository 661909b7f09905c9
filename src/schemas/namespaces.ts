import { Type, type Static } from 'typebox';
import { BoundedText, Int32 } from './common.js';

/**
 * A namespace: a user's own, or a group's. Groups add `parent_id`, and `members_count_with_descendants` for
 * callers who may administer the group (its maintainers and owners, inherited, and administrators).
 */
export const Namespace = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    path: Type.String(),
    kind: Type.Union([Type.Literal('user'), Type.Literal('group')]),
    full_path: Type.String(),
    parent_id: Type.Optional(Type.Union([Type.Null(), Type.Integer()])),
    members_count_with_descendants: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false, title: 'Namespace' },
);
export type Namespace = Static<typeof Namespace>;

export const ListNamespacesQuery = Type.Object({ search: Type.Optional(BoundedText({ description: 'part of the name or the path' })) });
export type ListNamespacesQuery = Static<typeof ListNamespacesQuery>;

/** GET /namespaces/:id/exists: whether a namespace has the path, among the top level or a parent's subgroups. */
export const NamespaceExistsQuery = Type.Object({
  parent_id: Type.Optional(Int32({ description: 'the parent group whose subgroups are looked at (the top level when omitted)' })),
});
export type NamespaceExistsQuery = Static<typeof NamespaceExistsQuery>;

/** Whether the path is taken, and (when it is) a free one like it. */
export const NamespaceExists = Type.Object(
  { exists: Type.Boolean(), suggests: Type.Array(Type.String()) },
  { additionalProperties: false, title: 'NamespaceExists' },
);
export type NamespaceExists = Static<typeof NamespaceExists>;
