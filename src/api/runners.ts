import {
  EnableRunnerInput,
  ListAllRunnersQuery,
  ListRunnersQuery,
  RegisterRunnerInput,
  RegistrationTokenReset,
  Runner,
  RunnerDetails,
  RunnerRegistration,
  RunnerVerified,
  UnregisterRunnerInput,
  UpdateRunnerInput,
  VerifyRunnerInput,
} from '../schemas/runners.js';
import { defineRoute } from './route.js';
import { projectRoute } from './scoped.js';
import { RunnersService } from '../services/ci/runners.js';
import { defineModule } from './module.js';
import * as runnersSchemas from '../schemas/runners.js';
import * as runnersTables from '../db/entities/runners.js';

export const runners = {
  list: defineRoute({
    method: 'GET',
    path: '/runners',
    summary:
      'The runners the caller owns (of the projects and groups it maintains), newest first: by `scope` (`active`, `paused`, `online`), ' +
      '`type`, `status`, `tag_list`',
    auth: 'user',
    input: ListRunnersQuery,
    list: Runner,
    run: (ctx, _params, input) => new RunnersService(ctx).list(input),
  }),
  all: defineRoute({
    method: 'GET',
    path: '/runners/all',
    summary: 'Every runner, specific and shared (administrators): by `scope` (also `specific`, `shared`), `type`, `status`, `tag_list`',
    auth: 'admin',
    input: ListAllRunnersQuery,
    list: Runner,
    run: (ctx, _params, input) => new RunnersService(ctx).all(input),
  }),
  get: defineRoute({
    method: 'GET',
    path: '/runners/:id',
    summary:
      'A runner’s detail (its owners and administrators; a shared one any signed-in user); its token to administrators and to those who ' +
      'maintain all it belongs to',
    auth: 'user',
    scope: 'runner',
    ability: 'read_runner',
    response: RunnerDetails,
    run: (ctx, { runner }) => new RunnersService(ctx).get(runner),
  }),
  update: defineRoute({
    method: 'PUT',
    path: '/runners/:id',
    summary: 'Change a runner (its owners and administrators; at least one attribute): `tag_list` is the full set of its tags',
    auth: 'user',
    scope: 'runner',
    ability: 'update_runner',
    input: UpdateRunnerInput,
    response: RunnerDetails,
    run: (ctx, { runner }, input) => new RunnersService(ctx).update(runner, input),
  }),
  delete: defineRoute({
    method: 'DELETE',
    path: '/runners/:id',
    summary: 'Remove a runner (administrators; its owners while it is enabled in at most one project)',
    auth: 'user',
    scope: 'runner',
    ability: 'update_runner',
    run: (ctx, { runner }) => new RunnersService(ctx).delete(runner),
  }),
  register: defineRoute({
    method: 'POST',
    path: '/runners',
    summary:
      'Register a runner with a registration token: the instance’s (a shared runner), a group’s or a project’s; ' +
      'answers its ID and its token, once (403 for an unknown token)',
    auth: 'public',
    input: RegisterRunnerInput,
    response: RunnerRegistration,
    run: (ctx, _params, input) => new RunnersService(ctx).register(input),
  }),
  verify: defineRoute({
    method: 'POST',
    path: '/runners/verify',
    summary: 'A runner checks its token (403 for an unknown one); it counts as its contact with the instance',
    auth: 'public',
    input: VerifyRunnerInput,
    response: RunnerVerified,
    status: 200,
    run: (ctx, _params, input) => new RunnersService(ctx).verify(input),
  }),
  unregister: defineRoute({
    method: 'DELETE',
    path: '/runners',
    summary: 'A runner removes itself with its token (403 for an unknown one)',
    auth: 'public',
    input: UnregisterRunnerInput,
    run: (ctx, _params, input) => new RunnersService(ctx).unregister(input),
  }),
  resetRegistrationToken: defineRoute({
    method: 'POST',
    path: '/runners/reset_registration_token',
    summary: 'A new registration token for shared runners (administrators, as later clients ask): the old one registers nothing any more',
    auth: 'admin',
    response: RegistrationTokenReset,
    run: (ctx) => new RunnersService(ctx).resetRegistrationToken(),
  }),
};

export const projectRunners = {
  list: projectRoute({
    method: 'GET',
    path: '/runners',
    summary: 'The runners a project may use (its maintainers): its own, its groups’, and the shared ones while it lets them take its jobs',
    auth: 'user',
    ability: 'admin_runner',
    input: ListAllRunnersQuery,
    list: Runner,
    run: (ctx, { project }, input) => new RunnersService(ctx).projectRunners(project, input),
  }),
  enable: projectRoute({
    method: 'POST',
    path: '/runners',
    summary:
      'Enable a specific runner the caller owns in the project too (its maintainers): not a locked, shared or group one; ' +
      '400 when it is already',
    auth: 'user',
    ability: 'admin_runner',
    input: EnableRunnerInput,
    response: Runner,
    run: (ctx, { project }, input) => new RunnersService(ctx).enable(project, input),
  }),
  disable: projectRoute({
    method: 'DELETE',
    path: '/runners/:runner_id',
    summary: 'Disable a runner in the project (its maintainers); 403 when it is the runner’s only project: remove the runner instead',
    auth: 'user',
    ability: 'admin_runner',
    run: (ctx, { project, runner_id }) => new RunnersService(ctx).disable(project, runner_id),
  }),
};

export const runnersModule = defineModule({
  routes: { runners, projectRunners },
  descriptions: {
    runners:
      'CI runners: registered with the instance’s, a group’s or a project’s token; listed (the caller’s own, or all ' +
      'for administrators), read, changed, paused and removed; runners check their token and remove themselves',
    projectRunners: 'The runners of a project: those it may use, listed; specific runners enabled in it and disabled (its maintainers)',
  },
  schemas: { ...runnersSchemas },
  entities: [runnersTables.Runner, runnersTables.RunnerProject, runnersTables.RunnerGroup],
  migrations: [() => import('../db/migrations/Migration20261127000000_runners.js')],
});
