import type { DatabaseSchema } from '../db/orm.js';
import type { Rule } from '../services/rules.js';
import type { RouteSpec } from './route.js';

/** A module's route groups (`hosting.<group>.<name>`), each a set of routes by name. */
// biome-ignore lint/suspicious/noExplicitAny: routes of every shape
export type RouteGroups = Record<string, Record<string, RouteSpec<any, any, any, any, any>>>;

/**
 * A resource, declared in one place: its routes (what each group is: the OpenAPI document's tags), its schemas, its
 * tables (entities, and the migrations that make them) and the rules of the record it follows. The route table, the
 * OpenAPI document, the in-process API, the database and the record's rules are built from the list of modules
 * (src/api/modules.ts); the services behind the routes are the module's own, made by its routes for each call.
 */
export interface ResourceModule<Groups extends RouteGroups = RouteGroups, Schemas extends object = object> {
  routes: Groups;
  descriptions: { [Group in keyof Groups]: string };
  /** Its schemas (a schema file's exports: `import * as schemas`): components of the OpenAPI document, `schemas.*`. */
  schemas?: Schemas;
  entities?: DatabaseSchema['entities'];
  /** Each migration's module, loaded when a database is first opened (all modules' run in the order of their names). */
  migrations?: DatabaseSchema['migrations'];
  rules?: Rule[];
}

export const defineModule = <const Groups extends RouteGroups, const Schemas extends object = object>(
  module: ResourceModule<Groups, Schemas>,
) => module;
