import type { Static, TArray, TObject, TSchema } from 'typebox';
import type { Context } from '../services/context.js';

/** Who may call a route: anyone, any signed-in user, or administrators only. */
export type AuthRule = 'public' | 'user' | 'admin';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One page of a list, as services return it: the page's items and the size of the whole list. */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  perPage: number;
}

type Maybe<S extends TSchema | undefined> = S extends TSchema ? Static<S> : Record<string, never>;

/** What `run` resolves to: the response, a page of it for lists, nothing for 204 answers. */
export type RunResult<R extends TSchema | undefined, Paginated extends boolean> = R extends TSchema
  ? Paginated extends true
    ? R extends TArray<infer Item>
      ? Page<Static<Item>>
      : never
    : Static<R>
  : void;

/**
 * What the table's type says of a route: everything but `run`. The in-process API's types come from it, so
 * the published types describe the API without reaching into the services and the database behind it.
 */
export interface RouteSpec<
  Path extends string = string,
  Params extends TObject | undefined = TObject | undefined,
  Input extends TObject | undefined = TObject | undefined,
  Response extends TSchema | undefined = TSchema | undefined,
  Paginated extends boolean = boolean,
> {
  method: HttpMethod;
  /** Relative to `/api/v4` (to the mount point when `root`); `:name` marks a path parameter. */
  path: Path;
  /** Served beside `/api/v4` rather than under it (`/oauth/token`). */
  root?: boolean;
  summary: string;
  auth: AuthRule;
  /** GET routes that a token limited to the `read_user` scope may call. */
  readUser?: boolean;
  params?: Params;
  /** Query string, form fields and JSON body, merged. */
  input?: Input;
  /** Absent for answers without content (204). */
  response?: Response;
  /** Success status; 201 for POST and 204 without a response unless given. */
  status?: number;
  paginated?: Paginated;
  /** The last path parameter may end in `.json` and keeps it (a file path, say). */
  keepsJsonSuffix?: boolean;
  /** The answer is a file's bytes with its content type (`run` gives a RawFile), not JSON. */
  raw?: boolean;
  /** The largest request body HTTP reads for this route, in bytes; DEFAULT_BODY_LIMIT when not given. */
  bodyLimit?: number;
}

/** Enough for any parameter but a file: the body limit of routes that take no upload. */
export const DEFAULT_BODY_LIMIT = 256 * 1024;

/** A route as written in the table: its description and the service call it makes. */
export interface RouteDefinition<
  Path extends string = string,
  Params extends TObject | undefined = TObject | undefined,
  Input extends TObject | undefined = TObject | undefined,
  Response extends TSchema | undefined = TSchema | undefined,
  Paginated extends boolean = boolean,
> extends RouteSpec<Path, Params, Input, Response, Paginated> {
  run(ctx: Context, params: Maybe<Params>, input: Maybe<Input>): Promise<RunResult<Response, Paginated>>;
  /** A sign-in route: the login it tries, so that failed sign-ins are throttled per login too. */
  signInLogin?(input: Maybe<Input>): string | undefined;
}

/** A route as the pipeline runs it, its types erased. */
export type AnyRoute = RouteSpec<string, TObject | undefined, TObject | undefined, TSchema | undefined, boolean> & {
  run(ctx: Context, params: Record<string, never>, input: Record<string, never>): Promise<unknown>;
  signInLogin?(input: Record<string, never>): string | undefined;
};

export function defineRoute<
  const Path extends string,
  Params extends TObject | undefined = undefined,
  Input extends TObject | undefined = undefined,
  Response extends TSchema | undefined = undefined,
  Paginated extends boolean = false,
>(route: RouteDefinition<Path, Params, Input, Response, Paginated>): RouteSpec<Path, Params, Input, Response, Paginated> {
  return route;
}

export function successStatus(route: AnyRoute): number {
  return route.status ?? (!route.response ? 204 : route.method === 'POST' ? 201 : 200);
}

// ---- the in-process signature of a route: (...path parameters, input?) => response ----

type PathNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? [Name, ...PathNames<Rest>]
  : P extends `${string}:${infer Name}`
    ? [Name]
    : [];

type PathArgs<Names extends string[], Params> = { [K in keyof Names]: Names[K] extends keyof Params ? Params[Names[K]] : never };

type InputArg<Input extends TObject | undefined> = Input extends TObject
  ? {} extends Static<Input>
    ? [input?: Static<Input>]
    : [input: Static<Input>]
  : [];

type Returned<R extends TSchema | undefined> = R extends TSchema ? Static<R> : void;

export type RouteCall<R> =
  R extends RouteSpec<infer Path, infer Params, infer Input, infer Response, boolean>
    ? (...args: [...PathArgs<PathNames<Path>, Maybe<Params>>, ...InputArg<Input>]) => Promise<Returned<Response>>
    : never;

/** The names of a path's parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1]);
}
