import { Type } from 'typebox';
import { MODULE_DESCRIPTIONS, MODULE_ROUTES } from './modules.js';
import { buildOpenApiDocument } from './openapi.js';
import { defineRoute, type AnyRoute, type NamedRoute, type RouteCall } from './route.js';

/** The route table: every endpoint, once. HTTP, the in-process API and the OpenAPI document all read it. */
export const routes = {
  ...MODULE_ROUTES,
  instance: {
    ...MODULE_ROUTES.instance,
    // Defined beside the table it describes, so that the document's builder needs nothing from the table.
    openapi: defineRoute({
      method: 'GET',
      path: '/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document',
      auth: 'public',
      keepsJsonSuffix: true,
      response: Type.Record(Type.String(), Type.Unknown()),
      run: async (ctx) => openApiDocument(ctx.baseUrl),
    }),
  },
};

export type RouteTable = typeof routes;

/**
 * The in-process API: one typed method per route, grouped as the table groups them. Path parameters come
 * first, in path order, then the input object. Lists resolve to the requested page, an array that also tells
 * the size of the whole list (`total`, `totalPages`, `page`, `perPage`).
 */
// Written out as plain interfaces in src/types.ts (`Api`, scripts/types.mjs): what HostingService and the
// published declarations carry.
export type RouteApi = { [Group in keyof RouteTable]: { [Name in keyof RouteTable[Group]]: RouteCall<RouteTable[Group][Name]> } };

/** Every route with its group and name, in table order. */
export function allRoutes(): NamedRoute[] {
  return Object.entries(routes).flatMap(([group, members]) =>
    // Each route was made by defineRoute, which keeps `run` although the table's type leaves it out.
    Object.entries(members as unknown as Record<string, AnyRoute>).map(([name, route]) => ({ group, name, route })),
  );
}

/**
 * The OpenAPI 3.1 document of the table. Served, its server is the service's base URL; without one
 * (docs/openapi.json) it is `/`, and a client gives its own.
 */
export function openApiDocument(baseUrl?: string): Record<string, unknown> {
  return buildOpenApiDocument(allRoutes(), MODULE_DESCRIPTIONS, baseUrl);
}
