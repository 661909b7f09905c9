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

/**
 * Matches request paths against the route table. Literal segments win over parameters
 * (`/runners/all` before `/runners/:id`), and each segment is decoded on its own, so an encoded
 * `group%2Fproject` stays one parameter.
 */
export class RouteMatcher {
  private readonly routes: CompiledRoute[];

  constructor(routes: NamedRoute[]) {
    const compiled = routes.map(({ route }) => ({ route, segments: route.path.split('/').filter(Boolean) }));
    const rank = (entry: CompiledRoute) => entry.segments.map((segment) => (isParameter(segment) ? '1' : '0')).join('');
    this.routes = compiled.sort((a, b) => rank(a).localeCompare(rank(b)));
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
    for (const { route, segments } of this.routes) {
      if (route.method !== wanted || Boolean(route.root) !== root) continue;
      const candidate = route.keepsJsonSuffix ? decoded : stripped;
      if (candidate.length !== segments.length) continue;
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
