import { CreateEnvironmentInput, Environment, ListEnvironmentsQuery, UpdateEnvironmentInput } from '../schemas/environments.js';
import { projectItems, projectRoute } from './scoped.js';
import { EnvironmentsService } from '../services/ci/environments.js';
import { defineModule } from './module.js';
import * as environmentsSchemas from '../schemas/environments.js';
import * as environmentsTables from '../db/entities/environments.js';

/** The original's Environments API authenticates every call, reads too. */
const auth = 'user' as const;

const environment = projectItems({ path: '/environments', id: 'environment_id', service: (ctx) => new EnvironmentsService(ctx) });

const CREATE_SUMMARY =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: `${}` are characters a name may contain, not a placeholder
  'Create an environment (developers): `name` unique in the project, of letters, digits, spaces and `-_/${}.`, not starting ' +
  'or ending with `/`; ' +
  'its `slug` made from it; an http(s) `external_url`, unique in the project; 400 with the validation messages otherwise';

export const environments = {
  list: environment.list({
    summary:
      'A project’s environments, oldest first (reporters): `name` exactly, or `search` a case-insensitive prefix of the name (not both); ' +
      '`states` `available` or `stopped`',
    auth,
    ability: 'read_environment',
    input: ListEnvironmentsQuery,
    list: Environment,
  }),
  get: environment.get({
    summary: 'One of the project’s environments (reporters; later clients); `404 Not found` for another project’s',
    auth,
    ability: 'read_environment',
    response: Environment,
  }),
  create: environment.create({
    summary: `${CREATE_SUMMARY}; the path the specification’s sample request and clients post to`,
    auth,
    ability: 'create_environment',
    input: CreateEnvironmentInput,
    response: Environment,
  }),
  // The path as the specification writes it.
  createSingular: projectRoute({
    method: 'POST',
    path: '/environment',
    summary: `${CREATE_SUMMARY}; the path as the specification writes it`,
    auth,
    ability: 'create_environment',
    input: CreateEnvironmentInput,
    response: Environment,
    run: (ctx, { project }, input) => new EnvironmentsService(ctx).create(project, input),
  }),
  update: environment.update({
    summary: 'Rename an environment (its slug stays) or change its `external_url` (maintainers); 400 with the validation messages',
    auth,
    ability: 'update_environment',
    input: UpdateEnvironmentInput,
    response: Environment,
  }),
  delete: environment.delete({
    summary: 'Delete an environment, available or stopped (maintainers)',
    auth,
    ability: 'destroy_environment',
  }),
  stop: projectRoute({
    method: 'POST',
    path: '/environments/:environment_id/stop',
    summary: 'Stop an environment (maintainers): 200 with it, `stopped`',
    auth,
    ability: 'read_environment',
    response: Environment,
    status: 200,
    run: (ctx, { project, environment_id }) => new EnvironmentsService(ctx).stop(project, environment_id),
  }),
};

export const environmentsModule = defineModule({
  routes: { environments },
  descriptions: {
    environments:
      'Deployment environments of projects: named, with a slug made from the name once and an external URL; stopped, renamed and deleted',
  },
  schemas: { ...environmentsSchemas },
  entities: [environmentsTables.ProjectEnvironment],
  migrations: [() => import('../db/migrations/Migration20261127000001_environments.js')],
});
