import type { AnyRoute, NamedRoute } from '../api/route.js';

interface CompiledRoute {
  route: AnyRoute;
  segments: string[];
}

export interface RouteMatch {
  route: AnyRoute;
  params: Record<string, string>;
}

const isParameter = (segment: string) => segment.startsWith(':');

const kindOf = (method: string, root: boolean, segments: number) => `${method} ${root ? 'root' : 'api'} ${segments}`;

/**
 * Matches request paths against the route table. Literal segments win over parameters
 * (`/runners/all` before `/runners/:id`), and each segment is decoded on its own, so an encoded
 * `group%2Fproject` stays one parameter.
 */
export class RouteMatcher {
  /** The routes by method, place (API or root) and number of segments: a request is compared with its own kind only. */
  private readonly routes = new Map<string, CompiledRoute[]>();

  constructor(routes: NamedRoute[]) {
    const compiled = routes.map(({ route }) => ({ route, segments: route.path.split('/').filter(Boolean) }));
    const rank = (entry: CompiledRoute) => entry.segments.map((segment) => (isParameter(segment) ? '1' : '0')).join('');
    for (const entry of compiled.sort((a, b) => rank(a).localeCompare(rank(b)))) {
      const key = kindOf(entry.route.method, Boolean(entry.route.root), entry.segments.length);
      this.routes.set(key, [...(this.routes.get(key) ?? []), entry]);
    }
  }

  /** `rawPath` is still percent-encoded. A `.json` suffix is dropped unless the route keeps it. */
  match(method: string, rawPath: string, root: boolean): RouteMatch | undefined {
    // A segment that is not valid percent-encoding is taken as it is: the route still matches, and its
    // parameter validation or lookup answers for it.
    const decoded = rawPath
      .split('/')
      .filter(Boolean)
      .map((segment) => {
        try {
          return decodeURIComponent(segment);
        } catch {
          return segment;
        }
      });
    const last = decoded.length - 1;
    const stripped = last >= 0 && decoded[last].endsWith('.json') ? [...decoded.slice(0, last), decoded[last].slice(0, -5)] : decoded;
    const wanted = method === 'HEAD' ? 'GET' : method;
    for (const { route, segments } of this.routes.get(kindOf(wanted, root, decoded.length)) ?? []) {
      const candidate = route.keepsJsonSuffix ? decoded : stripped;
      const params: Record<string, string> = {};
      const matches = segments.every((segment, index) => {
        if (isParameter(segment)) {
          if (candidate[index] === '') return false;
          params[segment.slice(1)] = candidate[index];
          return true;
        }
        return segment === candidate[index];
      });
      if (matches) return { route, params };
    }
    return undefined;
  }
}
