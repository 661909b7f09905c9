import type { TObject } from 'typebox';
import type { Context } from '../services/context.js';
import type { Page } from '../services/pagination.js';
import {
  pathParameterNames,
  type NESTED_SCOPES,
  type NestedScopeName,
  type PathNames,
  type PathParameterName,
  type PathParameterTypes,
  type ScopeName,
} from './params.js';
import {
  defineRoute,
  type AuthRule,
  type HttpMethod,
  type InputOf,
  type RouteDefinition,
  type RouteSpec,
  type Shape,
  type StaticShape,
} from './route.js';
import { SCOPES, type ScopeEntry } from './scopes.js';

/** Who may call a scope's routes that do not say: those that read (GET), and those that write. */
interface ScopeAuth {
  read: AuthRule;
  write: AuthRule;
}

/**
 * A route under its scope's path, as written: `path` after the scope's (`/repository/tree` under `/projects/:id`,
 * '' for the scope's resource itself), the scope implied (or one nested in it, which the path's next parameter
 * names), and `auth` the scope's for the method unless the route gives its own.
 */
export type ScopedDefinition<
  Base extends string,
  Scope extends ScopeName,
  Path extends string,
  Input extends TObject | undefined,
  Response extends Shape | undefined,
  Item extends Shape | undefined,
> = Omit<RouteDefinition<`${Base}${Path}`, Scope, Input, Response, Item>, 'path' | 'scope' | 'auth'> & {
  path: Path;
  scope?: Scope;
  auth?: AuthRule;
};

/** The scopes a nested scope is in: an issue's note is in the issue and in its project. */
type ScopesAround<S extends ScopeName> = S extends NestedScopeName
  ? (typeof NESTED_SCOPES)[S]['parent'] | ScopesAround<(typeof NESTED_SCOPES)[S]['parent']>
  : never;

/** The scopes nested in a scope, however deep: a project's protected branch, an issue's note. */
type NestedIn<Scope extends ScopeName> = {
  [Nested in NestedScopeName]: [Scope] extends [ScopesAround<Nested>] ? Nested : never;
}[NestedScopeName];

/** What a family's routes do, by name: the method, and whether the path goes on to name one item (`/:<id>`). */
const OPERATIONS = {
  list: { method: 'GET', item: false },
  get: { method: 'GET', item: true },
  create: { method: 'POST', item: false },
  update: { method: 'PUT', item: true },
  delete: { method: 'DELETE', item: true },
} as const satisfies Record<string, { method: HttpMethod; item: boolean }>;

type Operation = keyof typeof OPERATIONS;
type OperationPath<Name extends Operation, Path extends string, Id extends string> = (typeof OPERATIONS)[Name]['item'] extends true
  ? `${Path}/:${Id}`
  : Path;

/** The values of path parameters, by their names. */
type PathValues<Names extends string[]> = { [K in keyof Names]: Names[K] extends PathParameterName ? PathParameterTypes[Names[K]] : never };
type ScopeResource<Scope extends ScopeName> = ScopeEntry<Scope>[keyof ScopeEntry<Scope>];

/**
 * The call an operation makes of its family's service, as the service must offer it: the scope's resource, the
 * values of the path's parameters after the scope's, then the input; answering the route's shape.
 */
type ServiceCall<
  Scope extends ScopeName,
  Path extends string,
  Input extends TObject | undefined,
  Response extends Shape | undefined,
  Item extends Shape | undefined,
> = (
  resource: ScopeResource<Scope>,
  ...rest: [...PathValues<PathNames<Path>>, InputOf<Input, Item>]
) => Promise<Item extends Shape ? Page<StaticShape<Item>> : StaticShape<Response>>;

/** Nothing more when the service offers the call; otherwise a property no route has, which names what is missing. */
type Offers<Service, Name extends Operation, Call> = Service extends { [N in Name]: Call }
  ? unknown
  : { service: `the family's service has no ${Name} method that takes this route's parameters and input and answers its shape` };

/** A kind of item under a scope: where its list is, the path parameter that names one, and the service that serves them. */
interface Family<Path extends string, Id extends PathParameterName, Service> {
  /** After the scope's path: `/repository/branches`; it may name a parent (`/repository/commits/:sha/comments`). */
  path: Path;
  /** Without one, the family is only listed and added to (a commit's comments). */
  id?: Id;
  service(ctx: Context): Service;
}

/**
 * The routes under a scope's path (`/projects/:id` names a project): `route` writes one with its path after the
 * scope's, `items` a family of them.
 */
function routesUnder<const Base extends string, const Scope extends ScopeName>(base: Base, scope: Scope, auth: ScopeAuth) {
  const key = SCOPES[scope].key;

  function route<
    const Path extends string,
    const Inner extends Scope | NestedIn<Scope> = Scope,
    Input extends TObject | undefined = undefined,
    Response extends Shape | undefined = undefined,
    Item extends Shape | undefined = undefined,
  >(definition: ScopedDefinition<Base, Inner, Path, Input, Response, Item>): RouteSpec<`${Base}${Path}`, Inner, Input, Response, Item> {
    const complete = {
      ...definition,
      path: `${base}${definition.path}`,
      scope: definition.scope ?? scope,
      auth: definition.auth ?? (definition.method === 'GET' ? auth.read : auth.write),
    };
    return defineRoute(complete as unknown as RouteDefinition<`${Base}${Path}`, Inner, Input, Response, Item>);
  }

  /**
   * A family: items of a kind listed, read, created, changed and deleted alike, each operation a route that calls
   * the service's method of its name. `list` is GET `<path>`, `get` GET `<path>/:<id>`, `create` POST `<path>`,
   * `update` PUT `<path>/:<id>`, `delete` DELETE `<path>/:<id>`; each calls its method with the scope's resource,
   * the path's other parameters in order (the parent's, then the item's), and the input: `branches.get(project, branch)`.
   */
  function items<const Path extends string, Service, const Id extends PathParameterName = never>(family: Family<Path, Id, Service>) {
    const operation =
      <Name extends Operation>(name: Name) =>
      <
        Input extends TObject | undefined = undefined,
        Response extends Shape | undefined = undefined,
        Item extends Shape | undefined = undefined,
      >(
        // A route without the method, path, scope and `run` that the family gives it.
        definition: Omit<
          ScopedDefinition<Base, Scope, OperationPath<Name, Path, Id>, Input, Response, Item>,
          'method' | 'path' | 'scope' | 'run'
        > &
          Offers<Service, Name, ServiceCall<Scope, OperationPath<Name, Path, Id>, Input, Response, Item>>,
      ): RouteSpec<`${Base}${OperationPath<Name, Path, Id>}`, Scope, Input, Response, Item> => {
        type Written = ScopedDefinition<Base, Scope, OperationPath<Name, Path, Id>, Input, Response, Item>;
        const path = OPERATIONS[name].item ? `${family.path}/:${family.id}` : family.path;
        const names = pathParameterNames(path);
        // The service offers the call (Offers); the compiler cannot follow it through the parameters' names.
        const run = (ctx: Context, params: Record<string, unknown>, input: unknown) => {
          const service = family.service(ctx) as Record<Name, (...args: unknown[]) => Promise<never>>;
          return service[name](params[key], ...names.map((parameter) => params[parameter]), input);
        };
        return route({ ...definition, method: OPERATIONS[name].method, path, run } as unknown as Written);
      };
    const operations = {
      list: operation('list'),
      get: operation('get'),
      create: operation('create'),
      update: operation('update'),
      delete: operation('delete'),
    };
    const { list, create } = operations;
    return (family.id === undefined ? { list, create } : operations) as [Id] extends [never]
      ? { list: typeof list; create: typeof create }
      : typeof operations;
  }

  return { route, items };
}

const project = routesUnder('/projects/:id', 'project', { read: 'public', write: 'user' });
const group = routesUnder('/groups/:id', 'group', { read: 'public', write: 'user' });
const userForAdministrators = routesUnder('/users/:id', 'user', { read: 'admin', write: 'admin' });

/**
 * A route of a project (`/projects/:id...`, the project by ID or full path; `path` is what follows, '' for the
 * project itself): reading is as public as the project (its ability decides, and hides a private one: 404),
 * writing takes a signed-in user.
 */
export const projectRoute = project.route;
/**
 * A family of a project's items, listed, read, created, changed and deleted alike: with
 * `projectItems({ path: '/repository/branches', id: 'branch', service: (ctx) => new BranchesService(ctx) })`, its `get({ ... })`
 * is GET `/projects/:id/repository/branches/:branch`, which `new BranchesService(ctx).get(project, branch)` answers.
 */
export const projectItems = project.items;
/** A route of a group (`/groups/:id...`, the group by ID or full path): as a project's, reading as public as the group. */
export const groupRoute = group.route;
/** A family of a group's items, as `projectItems` for a project's. */
export const groupItems = group.items;
/** What administrators do to a user (`/users/:id...`, the user by ID), and families of what it has. */
export const adminUserRoute = userForAdministrators.route;
export const adminUserItems = userForAdministrators.items;
