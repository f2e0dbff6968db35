import { API_PREFIX, isMalformedUrl, writeProblem, type RawRequestHandler, type RawRequestKit } from '@pasar/service-kit';
import type { SessionDeps } from '../auth/sessions';
import { outsideExpress } from '../auth/outside-express';
import { openLiveStream, type LiveDeps } from './live';
import { livePathOf } from './rules';

const API_ROOT = `${API_PREFIX}/`;
const IDS = /[0-9a-f-]{36}/gi;

export interface LiveRouteDeps {
  live: LiveDeps;
  session: SessionDeps & { production: boolean };
  corsOrigins: string[];
}

/**
 * GET /account/orders/{id}/events, /vendor/shipments/events and /b2b/{companyId}/orders/events:
 * served by the gateway itself (their prefixes belong to services), without express. A stream
 * keeps its request and response for as long as it is open, and with them whatever express made
 * for the request (router frames, the request logger's accessor, its own request and response
 * shapes): several KiB per open stream. What express did is done here as on the proxied path
 * (raw-path.ts): the request id, the metric and log line, helmet's headers, CORS, the session
 * through its cache. Then a malformed id → 400, not signed in → 401, the shipment stream without
 * the vendor role → 403; whose order or company it is, the owning service says while the stream
 * opens (its refusal is the answer). Any other method or path is left to the next handler.
 */
export function rawLiveStreams(deps: LiveRouteDeps): (kit: RawRequestKit) => RawRequestHandler {
  const answer = outsideExpress({ session: deps.session, corsOrigins: deps.corsOrigins, log: deps.live.log });
  return (kit) => (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || !url?.startsWith(API_ROOT) || url.includes('#') || isMalformedUrl(url)) return false;
    const query = url.indexOf('?');
    const path = url.slice(API_PREFIX.length, query === -1 ? undefined : query);
    const target = path.endsWith('/events') ? livePathOf(path) : undefined;
    if (!target) return false;
    answer(kit, req, res, `${API_PREFIX}${path.replace(IDS, '{id}')}`, ({ requestId, withCaller }) => {
      if (target.kind === 'malformed') return writeProblem(res, req.method, 400, 'validation_failed', target.detail, requestId);
      withCaller(async (caller) => {
        if (!caller.identity || !caller.session) return writeProblem(res, req.method, 401, 'unauthenticated', 'sign in first', requestId);
        if (target.kind === 'vendor' && caller.identity.role !== 'vendor') return writeProblem(res, req.method, 403, 'forbidden', 'this needs the vendor role', requestId);
        const refused = await openLiveStream(deps.live, { identity: caller.identity, session: caller.session }, target, { headers: req.headers, requestId }, res);
        if (refused && !('body' in refused)) {
          res.writeHead(refused.status);
          res.end();
        } else if (refused) {
          res.writeHead(refused.status, { 'content-type': 'application/problem+json; charset=utf-8' });
          res.end(JSON.stringify(refused.body));
        }
      });
    });
    return true;
  };
}
