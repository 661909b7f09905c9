import type { AnyRoute, NamedRoute } from '../api/route.js';

/** A path segment: literal text, or a parameter after an optional literal start (`:id`; `archive.:format`). */
type Segment = { literal: string } | { prefix: string; name: string };

interface CompiledRoute {
  route: AnyRoute;
  segments: Segment[];
}

export interface RouteMatch {
  route: AnyRoute;
  params: Record<string, string>;
}

function segmentOf(text: string): Segment {
  const at = text.indexOf(':');
  return at < 0 ? { literal: text } : { prefix: text.slice(0, at), name: text.slice(at + 1) };
}

/** How specific a segment is, for the order routes are tried in: literal, then parameter after a literal start, then parameter. */
const rankOf = (segment: Segment) => ('literal' in segment ? '0' : segment.prefix ? '1' : '2');

const kindOf = (method: string, root: boolean, segments: number) => `${method} ${root ? 'root' : 'api'} ${segments}`;

/**
 * Matches request paths against the route table. Literal segments win over parameters
 * (`/runners/all` before `/runners/:id`), and a parameter after a literal start (`archive.:format`) sits
 * between the two; each segment is decoded on its own, so an encoded `group%2Fproject` stays one parameter.
 */
export class RouteMatcher {
  /** The routes by method, place (API or root) and number of segments: a request is compared with its own kind only. */
  private readonly routes = new Map<string, CompiledRoute[]>();

  constructor(routes: NamedRoute[]) {
    const compiled = routes.map(({ route }) => ({ route, segments: route.path.split('/').filter(Boolean).map(segmentOf) }));
    const rank = (entry: CompiledRoute) => entry.segments.map(rankOf).join('');
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
        const text = candidate[index];
        if ('literal' in segment) return segment.literal === text;
        // A parameter is never empty, nor is what follows a literal start.
        if (text.length <= segment.prefix.length || !text.startsWith(segment.prefix)) return false;
        params[segment.name] = text.slice(segment.prefix.length);
        return true;
      });
      if (matches) return { route, params };
    }
    return undefined;
  }
}
