import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { belongsTo, timestamps } from './columns.js';
import { Project } from './projects.js';

/** Where a project's environment stands: `available` until stopped. */
export const ENVIRONMENT_STATES = ['available', 'stopped'] as const;
export type EnvironmentState = (typeof ENVIRONMENT_STATES)[number];

/**
 * A project's deployment environment (the original's Environment): a name unique in the project, the slug made
 * from it once (it stays when the environment is renamed), an optional external URL, unique in the project too,
 * as the original validates it. Named apart from the hosting's own `Environment` (src/services/context.ts).
 */
export const ProjectEnvironment = defineEntity({
  name: 'ProjectEnvironment',
  tableName: 'environments',
  uniques: [{ properties: ['project', 'name'] }, { properties: ['project', 'slug'] }, { properties: ['project', 'externalUrl'] }],
  indexes: [
    // The list's `states` filter; its `name` filter has the unique index above.
    { properties: ['project', 'state'] },
    // Its `search`: a case-insensitive prefix of the name, as the original's `LOWER(name) LIKE LOWER(?) || '%'`.
    {
      name: 'environments_project_name_prefix_index',
      expression: 'create index "environments_project_name_prefix_index" on "environments" ("project_id", lower("name") text_pattern_ops)',
    },
  ],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project),
    name: p.string().length(255),
    /** At most 24 characters (the original's OpenShift limit): lowercase letters, digits and `-`, from a letter. */
    slug: p.string().length(24),
    externalUrl: p.string().length(255).nullable(),
    state: p.enum(ENVIRONMENT_STATES).default('available'),
    ...timestamps(),
  },
});
export type ProjectEnvironment = InferEntity<typeof ProjectEnvironment>;
