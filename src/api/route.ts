import { Type, type Static, type TObject, type TSchema } from 'typebox';
import type { Ability } from '../auth/abilities.js';
import { Int32, Pagination } from '../schemas/common.js';
import type { Context } from '../services/context.js';
import type { ListResult, Page, PageQuery } from '../services/pagination.js';
import {
  isPathParameter,
  NESTED_SCOPES,
  PATH_PARAMETERS,
  pathParameterNames,
  scopeParameter,
  type NestedScopeName,
  type PathNames,
  type PathParameterName,
  type PathParameterTypes,
  type ScopeId,
  type ScopeName,
} from './params.js';
import type { ScopeAbility, ScopeEntry } from './scopes.js';

/** Who may call a route: anyone, any signed-in user, or administrators only. */
export type AuthRule = 'public' | 'user' | 'admin';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * An answer whose shape depends on the caller: administrators get `admin`, everyone else `other`. The
 * response check holds each caller to its own shape, so a field meant for administrators cannot reach
 * anyone else unnoticed.
 */
export class PerCaller<Admin extends TSchema = TSchema, Other extends TSchema = TSchema> {
  constructor(
    readonly admin: Admin,
    readonly other: Other,
  ) {}
}

export const perCaller = <Admin extends TSchema, Other extends TSchema>(admin: Admin, other: Other) => new PerCaller(admin, other);

/** A response: one schema, or one per caller kind. */
export type Shape = TSchema | PerCaller;
export type StaticShape<S> =
  // biome-ignore lint/suspicious/noConfusingVoidType: a route without a response schema answers nothing: its handler returns void
  S extends PerCaller<infer Admin, infer Other> ? Static<Admin> | Static<Other> : S extends TSchema ? Static<S> : void;

/** A route's path parameters: the scope's type for the first one when the route has a scope, the registry's for the rest. */
type ParamsOf<Path extends string, Scope extends ScopeName | undefined> = {
  [Name in PathNames<Path>[number]]: Scope extends ScopeName
    ? Name extends PathNames<Path>[0]
      ? ScopeId<Scope>
      : PathParameterType<Name>
    : PathParameterType<Name>;
};

/** A path parameter's type: the registry's, or a number for an ID it does not name (`:hook_id`, `:item_iid`). */
type PathParameterType<Name extends string> = Name extends PathParameterName
  ? PathParameterTypes[Name]
  : Name extends `${string}_id` | `${string}_iid`
    ? number
    : never;

/** A route's input: its own parameters, and the page it asks for when it is a list. */
// biome-ignore lint/complexity/noBannedTypes: `{}` is the identity of `&` here (no members added)
export type InputOf<Input extends TObject | undefined, Item extends Shape | undefined> = (Input extends TObject ? Static<Input> : {}) &
  // biome-ignore lint/complexity/noBannedTypes: `{}` is the identity of `&` here (no members added)
  (Item extends Shape ? PageQuery : {});

/**
 * What the table's type says of a route: everything but `run`. The in-process API's types come from it, so
 * the published types describe the API without reaching into the services and the database behind it.
 */
export interface RouteSpec<
  Path extends string = string,
  Scope extends ScopeName | undefined = ScopeName | undefined,
  Input extends TObject | undefined = TObject | undefined,
  Response extends Shape | undefined = Shape | undefined,
  Item extends Shape | undefined = Shape | undefined,
> {
  method: HttpMethod;
  /** Relative to `/api/v4` (to the mount point when `root`); `:name` marks a path parameter (see params.ts). */
  path: Path;
  /** Served beside `/api/v4` rather than under it (`/oauth/token`). */
  root?: boolean;
  summary: string;
  auth: AuthRule;
  /** GET routes that a token limited to the `read_user` scope may call. */
  readUser?: boolean;
  /** The resource the path's first parameter names: loaded before `run` (404 when missing), handed to it. */
  scope?: Scope;
  /** What the caller must be able to do with the scope's resource (403; 404 where its existence is hidden). */
  ability?: Ability;
  /** Query string, form fields and JSON body, merged. */
  input?: Input;
  /** The answer; absent for answers without content (204) and for lists. */
  response?: Response;
  /** A list of these: paginated (`page`, `per_page`), answered with `Link` and `X-*` headers. */
  list?: Item;
  /** Success status; 201 for POST and 204 without a response unless given. */
  status?: number;
  /** The last path parameter may end in `.json` and keeps it (a file path, say). */
  keepsJsonSuffix?: boolean;
  /** The answer is a file's bytes with its content type (`run` gives a RawFile), not JSON. */
  raw?: boolean;
  /** The largest request body HTTP reads for this route, in bytes; DEFAULT_BODY_LIMIT when not given. */
  bodyLimit?: number;
  /**
   * A write that waits on another server (a hook's receiver): it runs outside a transaction, so that none is held open
   * meanwhile, and writes what it writes in statements of its own.
   */
  waitsOnRemote?: boolean;
}

/** Enough for any parameter but a file: the body limit of routes that take no upload. */
export const DEFAULT_BODY_LIMIT = 256 * 1024;

/** Routes that take an avatar: the image (at most 200 KB) and the fields around it. */
export const AVATAR_BODY_LIMIT = 1024 * 1024;

/** A route as written in the table: its description and the service call it makes. */
export interface RouteDefinition<
  Path extends string,
  Scope extends ScopeName | undefined,
  Input extends TObject | undefined,
  Response extends Shape | undefined,
  Item extends Shape | undefined,
> extends RouteSpec<Path, Scope, Input, Response, Item> {
  /** Only an ability that applies to the scope's resource. */
  ability?: ScopeAbility<Scope>;
  run(
    ctx: Context,
    params: ParamsOf<Path, Scope> & ScopeEntry<Scope>,
    input: InputOf<Input, Item>,
  ): Promise<Item extends Shape ? Page<StaticShape<Item>> : StaticShape<Response>>;
  /** A sign-in route: the login it tries, so that failed sign-ins are throttled per login too. */
  signInLogin?(input: InputOf<Input, Item>): string | undefined;
  /** Response headers HTTP adds, from the answer (what the original also says in headers, for HEAD requests). */
  headers?(result: StaticShape<Response>): Record<string, string>;
}

/** A route as the pipeline runs it, its types erased and its schemas complete. */
export interface AnyRoute extends RouteSpec<string, ScopeName | undefined, TObject | undefined, Shape | undefined, Shape | undefined> {
  /** The path parameters, from the path (undefined without any). */
  params?: TObject;
  /** For lists, the route's own input and the pagination parameters. */
  input?: TObject;
  /** For lists, an array of the items. */
  response?: Shape;
  run(ctx: Context, params: Record<string, unknown>, input: Record<string, unknown>): Promise<unknown>;
  signInLogin?(input: Record<string, unknown>): string | undefined;
  headers?(result: unknown): Record<string, string>;
}

/** A route with its place in the table: `hosting.<group>.<name>`. */
export interface NamedRoute {
  group: string;
  name: string;
  route: AnyRoute;
}

const arrayOf = (item: Shape): Shape =>
  item instanceof PerCaller ? new PerCaller(Type.Array(item.admin), Type.Array(item.other)) : Type.Array(item);

/** The path parameters' schema: the scope's for the first, the registry's for the rest. */
function pathSchema(path: string, scope: ScopeName | undefined): TObject | undefined {
  const names = pathParameterNames(path);
  if (!names.length) return undefined;
  return Type.Object(
    Object.fromEntries(
      names.map((name, index) => {
        if (scope && index === 0) return [name, scopeParameter(scope)];
        if (isPathParameter(name)) return [name, PATH_PARAMETERS[name]];
        // An ID the registry does not name: a whole number, as every ID is.
        if (/_i?id$/.test(name)) return [name, Int32({ description: name.replaceAll('_', ' ') })];
        throw new Error(`${path}: the path parameter :${name} is not in PATH_PARAMETERS (src/api/params.ts), nor an ID`);
      }),
    ),
  );
}

export function defineRoute<
  const Path extends string,
  const Scope extends ScopeName | undefined = undefined,
  Input extends TObject | undefined = undefined,
  Response extends Shape | undefined = undefined,
  Item extends Shape | undefined = undefined,
>(route: RouteDefinition<Path, Scope, Input, Response, Item>): RouteSpec<Path, Scope, Input, Response, Item> {
  const list = route.list as Shape | undefined;
  const input = route.input as TObject | undefined;
  // Each scope the route's is in loads by a parameter of its own: the path must name it.
  for (let name: ScopeName | undefined = route.scope; name && name in NESTED_SCOPES; name = NESTED_SCOPES[name as NestedScopeName].parent) {
    const { parameter } = NESTED_SCOPES[name as NestedScopeName];
    if (!pathParameterNames(route.path).includes(parameter)) throw new Error(`${route.path}: the ${name} scope needs :${parameter}`);
  }
  const complete: AnyRoute = {
    ...(route as unknown as AnyRoute),
    params: pathSchema(route.path, route.scope),
    input: list ? Type.Object({ ...Pagination, ...input?.properties }) : input,
    response: list ? arrayOf(list) : (route.response as Shape | undefined),
  };
  // The table's type describes the route as written; the pipeline reads the completed route behind it.
  return complete as unknown as RouteSpec<Path, Scope, Input, Response, Item>;
}

export function successStatus(route: AnyRoute): number {
  return route.status ?? (!route.response ? 204 : route.method === 'POST' ? 201 : 200);
}

/** The schema a caller's answer is held to. */
export function responseFor(route: AnyRoute, admin: boolean): TSchema | undefined {
  const response = route.response;
  return response instanceof PerCaller ? (admin ? response.admin : response.other) : response;
}

// ---- the in-process signature of a route: (...path parameters, input?) => response ----

type PathArgs<Names extends string[], Params> = { [K in keyof Names]: Names[K] extends keyof Params ? Params[Names[K]] : never };

type InputArg<Input extends TObject | undefined, Item extends Shape | undefined> = Input extends TObject
  ? // biome-ignore lint/complexity/noBannedTypes: `{} extends T` asks whether every member of T is optional
    {} extends InputOf<Input, Item>
    ? [input?: InputOf<Input, Item>]
    : [input: InputOf<Input, Item>]
  : Item extends Shape
    ? [input?: PageQuery]
    : [];

export type RouteCall<R> =
  R extends RouteSpec<infer Path, infer Scope, infer Input, infer Response, infer Item>
    ? (
        ...args: [...PathArgs<PathNames<Path>, ParamsOf<Path, Scope>>, ...InputArg<Input, Item>]
      ) => Promise<Item extends Shape ? ListResult<StaticShape<Item>> : StaticShape<Response>>
    : never;
