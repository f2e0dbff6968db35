import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestIdFrom, writeProblem, type RawRequestKit } from '@pasar/service-kit';
import type { Logger } from 'pino';
import { callerOf, type Caller } from './middleware';
import type { SessionDeps } from './sessions';
import { apiAnswerHeaders } from '../http/security';

export interface OutsideExpressDeps {
  session: SessionDeps & { production: boolean };
  corsOrigins: string[];
  log: Logger;
}

/** What `serve` gets: the request's id, and (from `withCaller`) who its session cookie says it is. */
export interface OutsideExpress {
  requestId: string;
  /** Resolves the caller through the session cache (a renewed cookie set on the answer), then runs `then`; 503 when sessions cannot be checked. */
  withCaller(then: (caller: Caller) => void | Promise<unknown>): void;
}

/**
 * What express gives a request, for the gateway's answers served without it (the proxied path and
 * the live streams): the request id, the request metric and log line under `route`, helmet's and
 * CORS headers, the session through its cache, and what express's problemHandler does with an
 * error nobody expected (log it, answer 500, or cut the connection once an answer started).
 * Returns the handler that takes a request `serve` was chosen for.
 */
export function outsideExpress(deps: OutsideExpressDeps): (kit: RawRequestKit, req: IncomingMessage, res: ServerResponse, route: string, serve: (request: OutsideExpress) => void) => void {
  const answerHeaders = apiAnswerHeaders(deps.corsOrigins);
  return (kit, req, res, route, serve) => {
    const requestId = requestIdFrom(req.headers);
    const unexpected = (err: unknown) => {
      deps.log.error({ reqId: requestId, err }, 'unhandled error');
      if (res.headersSent) return void res.destroy();
      writeProblem(res, req.method, 500, 'internal_error', 'something went wrong on our side', requestId);
    };
    const withCaller = (then: (caller: Caller) => void | Promise<unknown>) => {
      callerOf(deps.session, req.headers.cookie)
        .then(
          (caller) => {
            if (caller.renewedCookie) res.setHeader('Set-Cookie', caller.renewedCookie);
            return then(caller);
          },
          (err: unknown) => {
            deps.log.error({ reqId: requestId, err }, 'could not resolve the session');
            writeProblem(res, req.method, 503, 'service_unavailable', 'sessions cannot be checked right now; try again', requestId);
          },
        )
        .catch(unexpected);
    };
    try {
      kit.track(req, res, { requestId: () => requestId, route: () => route });
      res.setHeader('x-request-id', requestId);
      answerHeaders(req, res);
      serve({ requestId, withCaller });
    } catch (err) {
      unexpected(err);
    }
  };
}
