import { CreateProjectHookInput, ProjectHook, UpdateProjectHookInput } from '../schemas/hooks.js';
import { projectItems } from './scoped.js';
import { ProjectHooksService } from '../services/hooks/hooks.js';
import { defineModule } from './module.js';
import * as hooksSchemas from '../schemas/hooks.js';
import * as hooksTables from '../db/entities/hooks.js';

/** The original's hooks API authenticates every call; a project's hooks are its maintainers'. */
const auth = 'user' as const;
const ability = 'admin_project' as const;

const hook = projectItems({ path: '/hooks', id: 'hook_id', service: (ctx) => new ProjectHooksService(ctx) });

export const projectHooks = {
  list: hook.list({
    summary: 'A project’s hooks, oldest first (its maintainers); their tokens are never answered',
    auth,
    ability,
    list: ProjectHook,
  }),
  get: hook.get({
    summary: 'One of the project’s hooks (its maintainers); `404 Hook Not Found` for another’s',
    auth,
    ability,
    response: ProjectHook,
  }),
  create: hook.create({
    summary:
      'Add a hook (its maintainers): `url` an http(s) URL, not a local address unless allowed ' +
      '(`allow_local_requests_from_web_hooks_and_services`); the events it asks for (`push_events` by default); a `token` sent ' +
      'as `X-Gitlab-Token`; 400 naming what is wrong with the URL',
    auth,
    ability,
    input: CreateProjectHookInput,
    response: ProjectHook,
  }),
  update: hook.update({
    summary: 'Change a hook (its maintainers): what is given changes, `url` checked again',
    auth,
    ability,
    input: UpdateProjectHookInput,
    response: ProjectHook,
  }),
  delete: hook.delete({ summary: 'Delete a hook and the record of its deliveries (its maintainers)', auth, ability }),
};

export const hooksModule = defineModule({
  routes: { projectHooks },
  descriptions: {
    projectHooks: 'Projects’ webhooks: where the events a project’s maintainers choose are delivered, with the original’s payloads',
  },
  schemas: { ...hooksSchemas },
  entities: [hooksTables.WebHook, hooksTables.WebHookLog],
  migrations: [
    () => import('../db/migrations/Migration20261128000002_web_hooks.js'),
    () => import('../db/migrations/Migration20261128000003_web_hook_requests_as_sent.js'),
  ],
});
