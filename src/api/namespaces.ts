import { ListNamespacesQuery, Namespace, NamespaceExists, NamespaceExistsQuery } from '../schemas/namespaces.js';
import { defineRoute } from './route.js';
import { NamespacesService } from '../services/projects/namespaces.js';
import { defineModule } from './module.js';
import * as namespacesSchemas from '../schemas/namespaces.js';

export const namespaces = {
  list: defineRoute({
    method: 'GET',
    path: '/namespaces',
    summary: "The caller's namespaces: its own and those of the groups it is a member of; every namespace for administrators",
    auth: 'user',
    input: ListNamespacesQuery,
    list: Namespace,
    run: (ctx, _params, input) => new NamespacesService(ctx).list(input),
  }),
  exists: defineRoute({
    method: 'GET',
    path: '/namespaces/:namespace/exists',
    summary:
      'Whether a namespace has the path at the top level (or, with `parent_id`, among a group’s subgroups), ' +
      'and a free path like it when it has (as later clients ask)',
    auth: 'user',
    input: NamespaceExistsQuery,
    response: NamespaceExists,
    status: 200,
    run: (ctx, { namespace }, input) => new NamespacesService(ctx).exists(namespace, input),
  }),
  get: defineRoute({
    method: 'GET',
    path: '/namespaces/:id',
    summary: 'One namespace, by ID or full path, if it is among the caller’s',
    auth: 'user',
    scope: 'namespace',
    ability: 'read_namespace',
    response: Namespace,
    run: async (ctx, { namespace }) => (await new NamespacesService(ctx).present([namespace.namespace]))[0],
  }),
};

export const namespacesModule = defineModule({
  routes: { namespaces },
  descriptions: {
    namespaces: "Namespaces: each user's own, and groups'",
  },
  schemas: { ...namespacesSchemas },
});
