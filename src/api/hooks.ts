import {
  CreateProjectHookInput,
  CreateSystemHookInput,
  GroupHook,
  HookEvent,
  HookTestResult,
  ListHookEventsQuery,
  ProjectHook,
  ResentHookEvent,
  SystemHook,
  SystemHookTest,
  UpdateProjectHookInput,
} from '../schemas/hooks.js';
import { defineRoute } from './route.js';
import { groupItems, groupRoute, projectItems, projectRoute } from './scoped.js';
import { GroupHooksService, ProjectHooksService, SystemHooksService } from '../services/hooks/hooks.js';
import { defineModule } from './module.js';
import * as hooksSchemas from '../schemas/hooks.js';
import * as hooksTables from '../db/entities/hooks.js';

/** The original's hooks API authenticates every call; a project's hooks are its maintainers', a group's its owners'. */
const auth = 'user' as const;
const projectAbility = 'admin_project' as const;
const groupAbility = 'admin_group' as const;

const projectHook = projectItems({ path: '/hooks', id: 'hook_id', service: (ctx) => new ProjectHooksService(ctx) });

export const projectHooks = {
  list: projectHook.list({
    summary: 'A project’s hooks, oldest first (its maintainers); their tokens are never answered',
    auth,
    ability: projectAbility,
    list: ProjectHook,
  }),
  get: projectHook.get({
    summary: 'One of the project’s hooks (its maintainers); `404 Hook Not Found` for another’s',
    auth,
    ability: projectAbility,
    response: ProjectHook,
  }),
  create: projectHook.create({
    summary:
      'Add a hook (its maintainers): `url` an http(s) URL, not a local address unless allowed ' +
      '(`allow_local_requests_from_web_hooks_and_services`); the events it asks for (`push_events` by default); a `token` sent ' +
      'as `X-Gitlab-Token`; 400 naming what is wrong with the URL',
    auth,
    ability: projectAbility,
    input: CreateProjectHookInput,
    response: ProjectHook,
  }),
  update: projectHook.update({
    summary: 'Change a hook (its maintainers): what is given changes, `url` checked again',
    auth,
    ability: projectAbility,
    input: UpdateProjectHookInput,
    response: ProjectHook,
  }),
  delete: projectHook.delete({
    summary: 'Delete a hook and the record of its deliveries (its maintainers)',
    auth,
    ability: projectAbility,
  }),
  test: projectRoute({
    method: 'POST',
    path: '/hooks/:hook_id/test/:trigger',
    summary:
      'Send the hook a sample of a kind of event, made from the project’s latest (later versions; its maintainers): 201 when ' +
      'the receiver took it (2xx), 422 with why not (what the project lacks for a sample, the receiver’s status)',
    auth,
    ability: projectAbility,
    response: HookTestResult,
    waitsOnRemote: true,
    run: (ctx, { project, hook_id, trigger }) => new ProjectHooksService(ctx).test(project, hook_id, trigger),
  }),
  events: projectRoute({
    method: 'GET',
    path: '/hooks/:hook_id/events',
    summary:
      'The record of the hook’s deliveries of the last two days, newest first (later versions; its maintainers): ' +
      'the request as sent, what came back; `status` a response status or `successful`, `client_failure`, `server_failure`',
    auth,
    ability: projectAbility,
    input: ListHookEventsQuery,
    list: HookEvent,
    run: (ctx, { project, hook_id }, query) => new ProjectHooksService(ctx).events(project, hook_id, query),
  }),
  resend: projectRoute({
    method: 'POST',
    path: '/hooks/:hook_id/events/:hook_log_id/resend',
    summary: 'Send a recorded delivery again, at once, as recorded (later versions; its maintainers): 201 with the receiver’s status',
    auth,
    ability: projectAbility,
    response: ResentHookEvent,
    waitsOnRemote: true,
    run: (ctx, { project, hook_id, hook_log_id }) => new ProjectHooksService(ctx).resend(project, hook_id, hook_log_id),
  }),
};

const groupHook = groupItems({ path: '/hooks', id: 'hook_id', service: (ctx) => new GroupHooksService(ctx) });

export const groupHooks = {
  list: groupHook.list({
    summary: 'A group’s hooks, oldest first (later versions; its owners)',
    auth,
    ability: groupAbility,
    list: GroupHook,
  }),
  get: groupHook.get({ summary: 'One of the group’s hooks (its owners)', auth, ability: groupAbility, response: GroupHook }),
  create: groupHook.create({
    summary: 'Add a hook hearing of every project of the group and of its subgroups (later versions; its owners): as a project’s hook',
    auth,
    ability: groupAbility,
    input: CreateProjectHookInput,
    response: GroupHook,
  }),
  update: groupHook.update({
    summary: 'Change a group’s hook (its owners): what is given changes',
    auth,
    ability: groupAbility,
    input: UpdateProjectHookInput,
    response: GroupHook,
  }),
  delete: groupHook.delete({ summary: 'Delete a group’s hook and the record of its deliveries (its owners)', auth, ability: groupAbility }),
  events: groupRoute({
    method: 'GET',
    path: '/hooks/:hook_id/events',
    summary: 'The record of the group hook’s deliveries of the last two days, newest first (its owners), as a project hook’s',
    auth,
    ability: groupAbility,
    input: ListHookEventsQuery,
    list: HookEvent,
    run: (ctx, { group, hook_id }, query) => new GroupHooksService(ctx).events(group, hook_id, query),
  }),
  resend: groupRoute({
    method: 'POST',
    path: '/hooks/:hook_id/events/:hook_log_id/resend',
    summary: 'Send a recorded delivery of the group hook again, at once (its owners): 201 with the receiver’s status',
    auth,
    ability: groupAbility,
    response: ResentHookEvent,
    waitsOnRemote: true,
    run: (ctx, { group, hook_id, hook_log_id }) => new GroupHooksService(ctx).resend(group, hook_id, hook_log_id),
  }),
};

export const systemHooks = {
  list: defineRoute({
    method: 'GET',
    path: '/hooks',
    summary: 'The system hooks, oldest first (administrators)',
    auth: 'admin',
    list: SystemHook,
    run: (ctx, _params, query) => new SystemHooksService(ctx).listAll(query),
  }),
  create: defineRoute({
    method: 'POST',
    path: '/hooks',
    summary:
      'Add a system hook (administrators): it hears of projects, users, memberships, keys and groups made, changed and ' +
      'removed, and of what it asks for (`push_events`, `tag_push_events`, `merge_requests_events`, `repository_update_events`)',
    auth: 'admin',
    input: CreateSystemHookInput,
    response: SystemHook,
    run: (ctx, _params, input) => new SystemHooksService(ctx).add(input),
  }),
  test: defineRoute({
    method: 'GET',
    path: '/hooks/:hook_id',
    summary: 'Test a system hook (administrators): a made-up `project_create` sent at once, and answered',
    auth: 'admin',
    response: SystemHookTest,
    run: (ctx, { hook_id }) => new SystemHooksService(ctx).test(hook_id),
  }),
  testByPost: defineRoute({
    method: 'POST',
    path: '/hooks/:hook_id',
    summary: 'Test a system hook as later versions do (administrators): the same made-up `project_create`, 201 with it',
    auth: 'admin',
    response: SystemHookTest,
    waitsOnRemote: true,
    run: (ctx, { hook_id }) => new SystemHooksService(ctx).test(hook_id),
  }),
  delete: defineRoute({
    method: 'DELETE',
    path: '/hooks/:hook_id',
    summary: 'Delete a system hook and the record of its deliveries (administrators)',
    auth: 'admin',
    run: (ctx, { hook_id }) => new SystemHooksService(ctx).remove(hook_id),
  }),
};

export const hooksModule = defineModule({
  routes: { projectHooks, groupHooks, systemHooks },
  descriptions: {
    projectHooks: 'Projects’ webhooks: where the events a project’s maintainers choose are delivered, with the original’s payloads',
    groupHooks: 'Groups’ webhooks (later versions): the events of every project of a group, delivered as a project’s hooks deliver them',
    systemHooks: 'System hooks (administrators): what happens to projects, users, groups and keys across the instance',
  },
  schemas: { ...hooksSchemas },
  entities: [hooksTables.WebHook, hooksTables.WebHookLog],
  migrations: [
    () => import('../db/migrations/Migration20261128000002_web_hooks.js'),
    () => import('../db/migrations/Migration20261128000003_web_hook_requests_as_sent.js'),
    () => import('../db/migrations/Migration20261128000004_removals_recorded.js'),
  ],
});
