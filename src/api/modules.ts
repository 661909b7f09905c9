import type { DatabaseSchema } from '../db/orm.js';
import type { Rule } from '../services/rules.js';
import { administrationModule } from './administration.js';
import { branchesModule } from './branches.js';
import { commitStatusesModule } from './commit-statuses.js';
import { commitsModule } from './commits.js';
import { environmentsModule } from './environments.js';
import { eventsModule } from './events.js';
import { groupsModule } from './groups.js';
import { hooksModule } from './hooks.js';
import { issuesModule } from './issues.js';
import { keysModule } from './keys.js';
import { labelsModule } from './labels.js';
import { membersModule } from './members.js';
import { mergeRequestsModule } from './merge-requests.js';
import { instanceModule } from './meta.js';
import { milestonesModule } from './milestones.js';
import type { ResourceModule } from './module.js';
import { namespacesModule } from './namespaces.js';
import { projectsModule } from './projects.js';
import { repositoryFilesModule } from './repository-files.js';
import { repositoryModule } from './repository.js';
import { runnersModule } from './runners.js';
import { tagsModule } from './tags.js';
import { tokensModule } from './tokens.js';
import { usersModule } from './users.js';

/**
 * Every resource forgekit serves, in the order of the route table and of the record's rules: the one list a new
 * resource joins (docs/development.md, "Adding a resource"). Everything else is built from it.
 */
export const MODULES = [
  usersModule,
  keysModule,
  administrationModule,
  tokensModule,
  namespacesModule,
  projectsModule,
  membersModule,
  groupsModule,
  branchesModule,
  repositoryFilesModule,
  commitsModule,
  tagsModule,
  commitStatusesModule,
  repositoryModule,
  issuesModule,
  mergeRequestsModule,
  labelsModule,
  milestonesModule,
  runnersModule,
  environmentsModule,
  hooksModule,
  eventsModule,
  instanceModule,
] as const;

type Modules = (typeof MODULES)[number];
type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;

/** Every module's route groups, as one object: `{ users: {...}, sshKeys: {...}, ... }`. */
export type ModuleRoutes = Intersection<Modules['routes']>;
/** Every module's schemas, by name. */
export type ModuleSchemas = Intersection<NonNullable<Modules['schemas']>>;

const modules = MODULES as readonly ResourceModule[];

export const MODULE_ROUTES = Object.assign({}, ...modules.map((module) => module.routes)) as ModuleRoutes;
export const MODULE_DESCRIPTIONS: Record<string, string> = Object.assign({}, ...modules.map((module) => module.descriptions));
export const MODULE_SCHEMAS = Object.assign({}, ...modules.map((module) => module.schemas ?? {})) as ModuleSchemas;

/** The tables of every module, and the migrations that make them. */
export const DATABASE_SCHEMA: DatabaseSchema = {
  entities: modules.flatMap((module) => module.entities ?? []),
  migrations: modules.flatMap((module) => module.migrations ?? []),
};

/** The record's rules, in the modules' order (a module's in the order it lists them). */
export const EVENT_RULES: Rule[] = modules.flatMap((module) => module.rules ?? []);
