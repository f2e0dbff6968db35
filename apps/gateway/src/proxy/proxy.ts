import { Agent, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { parse as parseUrl } from 'node:url';
import {
  bodyNotAllowed,
  bodySha256,
  hasEncodedBody,
  isBodyNotAllowed,
  problemOf,
  readRawBody,
  redactUrl,
  signIdentityHeaders,
  startHttpClientSpan,
  unsupportedEncoding,
  writeProblem,
  type Identity,
} from '@pasar/service-kit';
import type { RequestHandler } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin, type Plugin } from 'http-proxy-middleware';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import { routeOf } from './gate';
import type { GatewayRoute, Upstream } from './route-table';
import { UPSTREAM_TIMEOUT_CODE, bodyLimitOf, classifyProxyError, forwardHeaders, joinedVary } from './rules';
import { downReasonOf, mayRetryElsewhere, startHealthProbe, UpstreamPool } from './upstreams';

type ProxyConfig = Pick<
  GatewayConfig,
  | 'CHECKOUT_URL'
  | 'B2B_URL'
  | 'VENDOR_URL'
  | 'ADMIN_URL'
  | 'UPSTREAM_TIMEOUT_MS'
  | 'UPSTREAM_MAX_SOCKETS'
  | 'IDENTITY_SECRET'
  | 'UPSTREAM_HEALTH_INTERVAL_MS'
  | 'UPSTREAM_RETRY_DOWN_AFTER_MS'
>;

export interface UpstreamProxy {
  /** Mount after the route gate: proxies what the table sends upstream, passes the rest on. */
  middleware: RequestHandler;
  /**
   * Sends a request that passed the gate to an instance of the route's upstream, signed for
   * `identity`; `req.url` is the path as received (/api/v1/...). Failures answer 502/503/504 problem+json.
   */
  forward(req: IncomingMessage, res: ServerResponse, route: GatewayRoute & { to: Upstream }, identity: Identity | null, requestId: string): void;
  /** The base URL of the instance of `upstream` next in the rotation (the gateway's own calls to a service). */
  instanceOf(upstream: Upstream): string;
  /** Closes the pooled upstream sockets. */
  close(): void;
}

/** A request on its way upstream: where it went, and whether it was already sent again elsewhere. */
interface InFlight {
  upstream: Upstream;
  /** The instance holding its place (UpstreamPool.take); '' once given back. */
  url: string;
  requestId: string;
  retried: boolean;
  /** The body as read (and signed), sent to the instance in place of the consumed request stream. */
  body: Buffer;
  /** The request to the instance, once it has a socket. */
  proxyReq?: ClientRequest;
  /** The attempt's connection to the instance is open (or was never seen opening: assumed open). */
  reachedInstance: boolean;
  /** The service answers a repeat as the first one (an Idempotency-Key, or a `repeatable` route). */
  repeatable: boolean;
  /** The client closed its connection before the answer: nothing more goes upstream for it. */
  clientGone: boolean;
}

/** http-proxy's own extension point: a pass before `stream` that pipes the signed body instead of the request. */
interface ProxyPasses {
  before(type: 'web', passName: 'stream', pass: (req: IncomingMessage, res: ServerResponse, options: { buffer?: Readable }) => void): void;
}

/**
 * Forwards requests to the domain services with http-proxy-middleware over a keep-alive agent:
 * one proxy per instance (a fixed target; the instance is picked before, round robin over those
 * that answer). The body is read whole first (1 MB, more on the routes BODY_LIMITS lists: 413
 * above; 415 for a Content-Encoding) and forwarded byte for byte, its SHA-256 among the signed
 * headers; the path is kept as is (/api/v1/...); identity travels in signed headers only.
 *
 * No request waits for an upstream: each instance takes as many requests at a time as it has
 * sockets (UPSTREAM_MAX_SOCKETS), and when every instance of the service is full the answer is a
 * 503 `service_busy` with Retry-After at once. A request whose client has gone (closed the
 * connection before the answer) is not sent, or is aborted when already sent: http-proxy would
 * only notice a client that left while still sending its body. Together these keep a service that
 * falls behind from getting requests nobody waits for any more, signed longer ago than it accepts.
 */
export function createUpstreamProxy(config: ProxyConfig, log: Logger): UpstreamProxy {
  // as many idle sockets kept as may be open: a burst does not close and reopen connections
  const agent = new Agent({ keepAlive: true, maxSockets: config.UPSTREAM_MAX_SOCKETS, maxFreeSockets: config.UPSTREAM_MAX_SOCKETS, timeout: 60_000 });
  // trial requests only without the probe: with it, a client's request never goes to an instance known down
  const probing = config.UPSTREAM_HEALTH_INTERVAL_MS > 0;
  const poolOptions = { ...(probing ? {} : { retryDownAfterMs: config.UPSTREAM_RETRY_DOWN_AFTER_MS }), maxInFlight: config.UPSTREAM_MAX_SOCKETS };
  const pools: Record<Upstream, UpstreamPool> = {
    checkout: new UpstreamPool('checkout', config.CHECKOUT_URL, poolOptions),
    b2b: new UpstreamPool('b2b', config.B2B_URL, poolOptions),
    vendor: new UpstreamPool('vendor', config.VENDOR_URL, poolOptions),
    admin: new UpstreamPool('admin', config.ADMIN_URL, poolOptions),
  };
  const probe = startHealthProbe(Object.values(pools), { intervalMs: config.UPSTREAM_HEALTH_INTERVAL_MS, timeoutMs: 2_000 });
  const inFlight = new WeakMap<IncomingMessage, InFlight>();

  const fail = (req: IncomingMessage, res: ServerResponse | Socket, status: number, code: string, detail: string) => {
    if (!isResponse(res)) return void res.destroy();
    if (res.headersSent) return void res.destroy();
    writeProblem(res, req.method, status, code, detail, inFlight.get(req)?.requestId);
  };

  // each attempt sends the body read for the request (the stream itself was consumed to sign it)
  const signedBodyPlugin = (server: unknown) =>
    (server as ProxyPasses).before('web', 'stream', (req, _res, options) => {
      const body = inFlight.get(req)?.body;
      if (body && body.length > 0) options.buffer = Readable.from([body]);
    });

  const proxyTo = (url: string) =>
    createProxyMiddleware<IncomingMessage, ServerResponse>({
      target: parseUrl(url), // parsed once here, not by http-proxy for every request
      agent,
      changeOrigin: true,
      xfwd: true,
      // the default plugins without the logger plugin, which formats a line (parsing a URL) for every
      // proxied response even with no logger; failures are logged by the error handler below
      ejectPlugins: true,
      plugins: [debugProxyErrorsPlugin, proxyEventsPlugin, signedBodyPlugin] as Plugin[] as unknown as Plugin<IncomingMessage, ServerResponse>[],
      on: {
        proxyReq: (proxyReq, req) => {
          const sent = inFlight.get(req);
          if (sent) sent.proxyReq = proxyReq;
          // its client left while it waited for the socket: not sent at all
          if (sent?.clientGone) return void proxyReq.destroy();
          const socket = proxyReq.socket;
          if (sent && socket?.connecting && !proxyReq.reusedSocket) {
            sent.reachedInstance = false;
            socket.once('connect', () => (sent.reachedInstance = true));
          }
          proxyReq.setTimeout(config.UPSTREAM_TIMEOUT_MS, () => {
            const err = Object.assign(new Error(`no answer within ${config.UPSTREAM_TIMEOUT_MS} ms`), { code: UPSTREAM_TIMEOUT_CODE });
            proxyReq.destroy(err);
          });
        },
        proxyRes: (proxyRes, req, res) => {
          const sent = inFlight.get(req);
          if (sent) pools[sent.upstream].markUp(sent.url);
          // the upstream's headers are copied over the gateway's next: its Vary must keep the gateway's
          const ours = res.getHeader('vary');
          if (ours !== undefined && proxyRes.headers.vary !== undefined) proxyRes.headers.vary = joinedVary(String(ours), proxyRes.headers.vary);
          // and the gateway's server span answers for the request: the upstream's traceresponse
          // (its own span, deeper in the same trace) must not replace the gateway's
          if (res.hasHeader('traceresponse')) delete proxyRes.headers.traceresponse;
        },
        error: (err, req, res) => {
          const code = (err as NodeJS.ErrnoException).code;
          const sent = inFlight.get(req);
          if (!sent) return fail(req, res, 502, 'bad_gateway', 'the service gave no valid answer');
          if (sent.clientGone) return; // nobody to answer
          const pool = pools[sent.upstream];
          const down = downReasonOf(code, sent.reachedInstance, UPSTREAM_TIMEOUT_CODE);
          if (down) pool.markDown(sent.url, down);
          // to the next instance, once, when that cannot do a request twice (mayRetryElsewhere)
          const attempt = { reachedInstance: sent.reachedInstance, code, method: req.method ?? '', repeatable: sent.repeatable };
          if (!sent.retried && pool.urls.length > 1 && mayRetryElsewhere(attempt) && isResponse(res) && !res.headersSent) {
            sent.retried = true;
            return send(req, res, sent);
          }
          const failure = classifyProxyError(code, sent.upstream);
          log.warn({ err: err.message, code, upstream: sent.upstream, instance: sent.url, path: redactUrl(req.url ?? ''), requestId: sent.requestId }, 'proxy to upstream failed');
          fail(req, res, failure.status, failure.code, failure.detail);
        },
      },
    });
  const instances = new Map<string, ReturnType<typeof proxyTo>>();
  for (const pool of Object.values(pools)) for (const url of pool.urls) if (!instances.has(url)) instances.set(url, proxyTo(url));

  /** To the next instance of the request's upstream that answers and has room; 503 at once when none has. */
  function send(req: IncomingMessage, res: ServerResponse, sent: InFlight): void {
    const pool = pools[sent.upstream];
    if (sent.url) pool.release(sent.url);
    sent.url = pool.take() ?? '';
    sent.proxyReq = undefined;
    sent.reachedInstance = true;
    if (!sent.url) {
      return writeProblem(res, req.method, 503, 'service_busy', `the ${sent.upstream} service has as many requests as it takes; try again`, sent.requestId, undefined, {
        'Retry-After': '1',
      });
    }
    const proxy = instances.get(sent.url) as ReturnType<typeof proxyTo>;
    void proxy(req, res, () => fail(req, res, 502, 'bad_gateway', `the ${sent.upstream} service gave no valid answer`));
  }

  const refuse = (req: IncomingMessage, res: ServerResponse, requestId: string, err: unknown) => {
    req.resume(); // what is left of the body is drained: the answer reaches a client still sending
    if (res.headersSent) return void res.destroy();
    const problem = problemOf(err);
    writeProblem(res, req.method, problem.status, problem.code, problem.detail, requestId);
  };

  const forward: UpstreamProxy['forward'] = (req, res, route, identity, requestId) => {
    const upstream = route.to;
    const repeatable = route.repeatable === true || req.headers['idempotency-key'] !== undefined;
    const path = req.url ?? '/';
    const method = req.method ?? 'GET';
    // the signature covers the bytes as sent: an encoded body would be signed as something the service does not read
    if (hasEncodedBody(req.headers)) return refuse(req, res, requestId, unsupportedEncoding());
    // a GET, HEAD or DELETE takes no body: the services would not read one (their answer would name the signature)
    if (isBodyNotAllowed(method, req.headers)) return refuse(req, res, requestId, bodyNotAllowed(method));
    readRawBody(req, bodyLimitOf(method, path)).then(
      (body) => {
        // the signature covers the method, the path exactly as forwarded (the upstream's req.originalUrl) and the body
        const signed = signIdentityHeaders(config.IDENTITY_SECRET, { method, path, bodySha256: bodySha256(body) }, identity, requestId);
        // a CLIENT span (when the request is sampled) from here to the answer, whatever instance, or
        // two, it goes to: its URL names the service's first
        const call = startHttpClientSpan(method, `${pools[upstream].urls[0]}${path}`);
        req.headers = forwardHeaders(req.headers, signed, requestId, body.length, call.headers);
        const sent: InFlight = { upstream, url: '', requestId, retried: false, body, clientGone: false, reachedInstance: true, repeatable };
        inFlight.set(req, sent);
        res.once('close', () => {
          call.end(res.writableFinished ? res.statusCode : undefined);
          if (!res.writableFinished) {
            sent.clientGone = true;
            sent.proxyReq?.destroy();
          }
          if (sent.url) pools[upstream].release(sent.url);
          sent.url = '';
        });
        send(req, res, sent);
      },
      (err: unknown) => {
        if (req.destroyed || (err as { type?: string }).type === 'request.aborted') return void res.destroy(); // the client went away
        refuse(req, res, requestId, err);
      },
    );
  };

  const middleware: RequestHandler = (req, res, next) => {
    const route = routeOf(res);
    if (!route || route.to === 'gateway') return next();
    req.url = req.originalUrl; // keep /api/v1/... (express strips the mount path)
    forward(req, res, route as GatewayRoute & { to: Upstream }, req.identity, req.requestId); // `to` is an upstream: checked above
  };
  return {
    middleware,
    forward,
    instanceOf: (upstream) => pools[upstream].pick(),
    close: () => {
      probe.stop();
      agent.destroy();
    },
  };
}

function isResponse(res: ServerResponse | Socket): res is ServerResponse {
  return typeof (res as ServerResponse).writeHead === 'function';
}
