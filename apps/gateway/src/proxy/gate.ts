import { API_PREFIX, sendProblem } from '@pasar/service-kit';
import type { RequestHandler, Response } from 'express';
import type { GatewayRoute } from './route-table';
import { decideAccess, matchRoute } from './rules';

/** The route-table entry the gate matched for this request. */
export function routeOf(res: Response): GatewayRoute | undefined {
  return res.locals.gatewayRoute as GatewayRoute | undefined;
}

/**
 * First stop under /api/v1 after authentication: finds the route (404 when none), applies its
 * coarse role gate (401 anonymous, 403 wrong role) and remembers the route for the proxy.
 */
export function routeGate(compiled: readonly GatewayRoute[]): RequestHandler {
  return (req, res, next) => {
    const route = matchRoute(compiled, req.path);
    if (!route) return sendProblem(res, 404, 'not_found', `no route for ${req.method} ${API_PREFIX}${req.path}`);
    res.locals.gatewayRoute = route;
    res.locals.routeLabel = `${API_PREFIX}${route.prefix}`;
    const decision = decideAccess(route.access, req.identity);
    if (decision === 'unauthenticated') return sendProblem(res, 401, 'unauthenticated', 'sign in first');
    if (decision === 'forbidden') return sendProblem(res, 403, 'forbidden', `this needs the ${route.access} role`);
    next();
  };
}
