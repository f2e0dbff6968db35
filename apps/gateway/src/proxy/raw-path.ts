import { API_PREFIX, isMalformedUrl, writeProblem, type RawRequestHandler, type RawRequestKit } from '@pasar/service-kit';
import type { Logger } from 'pino';
import type { SessionDeps } from '../auth/sessions';
import { normalisedPath } from '../http/abuse-limits';
import { outsideExpress } from '../auth/outside-express';
import type { UpstreamProxy } from './proxy';
import type { GatewayRoute, Upstream } from './route-table';
import { decideAccess, matchRoute } from './rules';

/** A route the gateway proxies to a domain service. */
export type ProxiedRoute = GatewayRoute & { to: Upstream };

const API_ROOT = `${API_PREFIX}/`;

/**
 * The proxied route a request goes down without express, or undefined when express serves it as
 * before: the gateway's own routes (and the live stream paths), paths no route serves (404), a URL express refuses (malformed,
 * not in the plain /api/v1/ form), CORS preflights (OPTIONS), and the rate-limited endpoints.
 */
export function rawRouteOf(
  method: string | undefined,
  url: string | undefined,
  compiled: readonly GatewayRoute[],
  limited: readonly { method: string; path: string }[],
  servedHere: (path: string) => boolean,
): ProxiedRoute | undefined {
  if (!method || method === 'OPTIONS' || !url?.startsWith(API_ROOT) || url.includes('#')) return undefined;
  const query = url.indexOf('?');
  const path = url.slice(API_PREFIX.length, query === -1 ? undefined : query);
  const route = matchRoute(compiled, path);
  if (!route || route.to === 'gateway' || servedHere(path)) return undefined;
  if (isMalformedUrl(url)) return undefined;
  if (limited.length > 0) {
    const normalised = normalisedPath(path);
    if (limited.some((entry) => entry.method === method && entry.path === normalised)) return undefined;
  }
  return route as ProxiedRoute;
}

export interface RawPathDeps {
  compiled: readonly GatewayRoute[];
  /** The rate-limited endpoints (method, path under /api/v1): express applies their limits. */
  limited: readonly { method: string; path: string }[];
  /** Paths under a proxied prefix that the gateway serves itself (the live streams: their GETs are taken before this path, other methods go to express). */
  servedHere: (path: string) => boolean;
  corsOrigins: string[];
  session: SessionDeps & { production: boolean };
  proxy: UpstreamProxy;
  log: Logger;
}

/**
 * The proxied path: requests to a domain service never enter express. What the express stack did
 * for them is done here once, with what could be computed ahead computed at start: the request
 * id, the request metric and log line, helmet's headers, CORS, the session (through its cache),
 * the route gate (401/403 problem+json) and the signed forward. Everything else goes to express.
 */
export function rawProxyPath(deps: RawPathDeps): (kit: RawRequestKit) => RawRequestHandler {
  const answer = outsideExpress(deps);
  const labels = new Map(deps.compiled.map((route) => [route, `${API_PREFIX}${route.prefix}`]));
  return (kit) => (req, res) => {
    const route = rawRouteOf(req.method, req.url, deps.compiled, deps.limited, deps.servedHere);
    if (!route) return false;
    answer(kit, req, res, labels.get(route) as string, ({ requestId, withCaller }) =>
      withCaller((caller) => {
        const decision = decideAccess(route.access, caller.identity);
        if (decision === 'unauthenticated') return writeProblem(res, req.method, 401, 'unauthenticated', 'sign in first', requestId);
        if (decision === 'forbidden') return writeProblem(res, req.method, 403, 'forbidden', `this needs the ${route.access} role`, requestId);
        deps.proxy.forward(req, res, route, caller.identity, requestId);
      }),
    );
    return true;
  };
}
