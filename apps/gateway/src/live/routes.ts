import { sendProblem } from '@pasar/service-kit';
import type { RequestHandler } from 'express';
import { sessionOf } from '../auth/middleware';
import { openLiveStream, type LiveDeps } from './live';
import { livePathOf } from './rules';

/**
 * GET /account/orders/{id}/events, /vendor/shipments/events and /b2b/{companyId}/orders/events:
 * served by the gateway itself, ahead of the route gate and the proxy (their prefixes belong to
 * services). Signed in; the shipment stream needs the vendor role; whose order or company it is,
 * the owning service says while the stream opens.
 */
export function liveRoutes(deps: LiveDeps): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'GET') return next();
    const target = livePathOf(req.path);
    if (!target) return next();
    res.locals.routeLabel = `${req.baseUrl}${req.path.replace(/[0-9a-f-]{36}/gi, '{id}')}`;
    if (target.kind === 'malformed') return sendProblem(res, 400, 'validation_failed', target.detail);
    const session = sessionOf(res);
    if (!req.identity || !session) return sendProblem(res, 401, 'unauthenticated', 'sign in first');
    if (target.kind === 'vendor' && req.identity.role !== 'vendor') return sendProblem(res, 403, 'forbidden', 'this needs the vendor role');
    openLiveStream(deps, { identity: req.identity, session }, target, { headers: req.headers, requestId: req.requestId }, res).then(
      (answer) => {
        if (answer) res.status(answer.status).type('application/problem+json').json(answer.body);
      },
      (err: unknown) => {
        if (res.headersSent) {
          req.log.error({ err }, 'live stream failed');
          return void res.destroy();
        }
        next(err);
      },
    );
  };
}
