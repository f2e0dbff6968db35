import { API_PREFIX, isMalformedUrl, requestIdFrom, writeProblem, type RawRequestHandler, type RawRequestKit } from '@pasar/service-kit';
import { callerOf } from '../auth/middleware';
import type { SessionDeps } from '../auth/sessions';
import { apiAnswerHeaders } from '../http/security';
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
  const answerHeaders = apiAnswerHeaders(deps.corsOrigins);
  const { log } = deps.live;
  return (kit) => (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || !url?.startsWith(API_ROOT) || url.includes('#') || isMalformedUrl(url)) return false;
    const query = url.indexOf('?');
    const path = url.slice(API_PREFIX.length, query === -1 ? undefined : query);
    const target = path.endsWith('/events') ? livePathOf(path) : undefined;
    if (!target) return false;

    const requestId = requestIdFrom(req.headers);
    const route = `${API_PREFIX}${path.replace(IDS, '{id}')}`;
    // what express's problemHandler does with an error nobody expected: log it, answer 500 (or cut a stream)
    const unexpected = (err: unknown) => {
      log.error({ reqId: requestId, err }, 'live stream failed');
      if (res.headersSent) return void res.destroy();
      writeProblem(res, req.method, 500, 'internal_error', 'something went wrong on our side', requestId);
    };
    try {
      kit.track(req, res, { requestId: () => requestId, route: () => route });
      res.setHeader('x-request-id', requestId);
      answerHeaders(req, res);
      if (target.kind === 'malformed') {
        writeProblem(res, req.method, 400, 'validation_failed', target.detail, requestId);
        return true;
      }
      callerOf(deps.session, req.headers.cookie)
        .then(
          async (caller) => {
            if (caller.renewedCookie) res.setHeader('Set-Cookie', caller.renewedCookie);
            if (!caller.identity || !caller.session) return writeProblem(res, req.method, 401, 'unauthenticated', 'sign in first', requestId);
            if (target.kind === 'vendor' && caller.identity.role !== 'vendor') return writeProblem(res, req.method, 403, 'forbidden', 'this needs the vendor role', requestId);
            const refused = await openLiveStream(deps.live, { identity: caller.identity, session: caller.session }, target, { headers: req.headers, requestId }, res);
            if (refused) {
              res.writeHead(refused.status, { 'content-type': 'application/problem+json; charset=utf-8' });
              res.end(JSON.stringify(refused.body));
            }
          },
          (err: unknown) => {
            log.error({ reqId: requestId, err }, 'could not resolve the session');
            writeProblem(res, req.method, 503, 'service_unavailable', 'sessions cannot be checked right now; try again', requestId);
          },
        )
        .catch(unexpected);
    } catch (err) {
      unexpected(err);
    }
    return true;
  };
}
