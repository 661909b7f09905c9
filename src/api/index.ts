import { applicationSettings, customAttributes } from './administration.js';
import { emails, gpgKeys, sshKeys } from './keys.js';
import { instance } from './meta.js';
import type { AnyRoute, RouteCall } from './route.js';
import { impersonationTokens, oauth, personalAccessTokens, session } from './tokens.js';
import { users } from './users.js';

/** The route table: every endpoint, once. HTTP, the in-process API and the OpenAPI document all read it. */
export const routes = {
  users,
  sshKeys,
  gpgKeys,
  emails,
  customAttributes,
  applicationSettings,
  personalAccessTokens,
  impersonationTokens,
  session,
  oauth,
  instance,
};

export type RouteTable = typeof routes;

/** The in-process API: one typed method per route, grouped as the table groups them. */
export type Api = { [Group in keyof RouteTable]: { [Name in keyof RouteTable[Group]]: RouteCall<RouteTable[Group][Name]> } };

export interface NamedRoute {
  group: string;
  name: string;
  route: AnyRoute;
}

/** Every route with its group and name, in table order. */
export function allRoutes(): NamedRoute[] {
  return Object.entries(routes).flatMap(([group, members]) =>
    // Each route was made by defineRoute, which keeps `run` although the table's type leaves it out.
    Object.entries(members as unknown as Record<string, AnyRoute>).map(([name, route]) => ({ group, name, route })),
  );
}
