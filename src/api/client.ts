import type { CallerIdentity } from '../auth/caller.js';
import type { Environment } from '../services/context.js';
import { allRoutes, type RouteApi } from './index.js';
import { invoke } from './invoke.js';
import { listResult, type Page } from '../services/pagination.js';
import { pathParameterNames } from './params.js';

/** The in-process API bound to one caller: `api.users.get(5)`, `api.sshKeys.create({ title, key })`. */
export function createApi(env: Environment, identity: CallerIdentity): RouteApi {
  const api: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const { group, name, route } of allRoutes()) {
    const names = pathParameterNames(route.path);
    (api[group] ??= {})[name] = async (...args: unknown[]) => {
      const params = Object.fromEntries(names.map((parameter, index) => [parameter, args[index]]));
      const result = await invoke(env, route, { identity, params, input: args[names.length] ?? {} });
      return route.list ? listResult(result as Page<unknown>) : result;
    };
  }
  return api as unknown as RouteApi;
}
