import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { bodyNotAllowed, declaresBody, hasEncodedBody, isBodyNotAllowed, notJsonBody, rejectMalformedUrl, rejectUnacceptableText, unsupportedEncoding, verifyJsonDepth } from './body';
import { BODY_NOT_SIGNED, EMPTY_BODY_SHA256, IDENTITY_HEADERS, SIGNATURE_REJECTED, bodyMatchesSignature, gateIdentity, type Identity } from './identity';
import { ProblemError, sendProblem, problemHandler } from './problems';
import { leanRequests, mountOnExpress, type LeanRoute } from './lean';
import { requestLineLogger, requestLogger } from './request-log';
import { nameServerSpan, tracedRequests } from './trace';

declare module 'express-serve-static-core' {
  interface Request {
    /** The signed-in caller, or null on a public path called anonymously. */
    identity: Identity | null;
    requestId: string;
  }
}

export const API_PREFIX = '/api/v1';

export interface ServiceOptions {
  name: string;
  log: Logger;
  identitySecret: string;
  /** Mounts the feature routers; paths are relative to /api/v1. */
  routes: (router: Router) => void;
  /** Paths under /api/v1 that a correctly signed anonymous request may call. */
  publicPaths?: string[]; // an entry ending in `/*` also matches everything below it
  /** Paths under /api/v1 that also accept `application/x-www-form-urlencoded` bodies. */
  formPaths?: string[];
  /** Named readiness checks for /readyz (e.g. db, nats); each throws when not ready. */
  readiness?: Record<string, () => Promise<unknown> | unknown>;
  bodyLimit?: string;
  /**
   * Body limits of their own for single POST paths under /api/v1, larger (a CSV import) or smaller
   * (a public callback): same checks, own size, for JSON and (on a form path) form bodies.
   */
  routeBodyLimits?: Record<string, string>;
  /**
   * Replaces the signed-identity check on /api/v1 (the gateway resolves its session cookie
   * instead). It must set `req.identity` (null = anonymous) and call next; `publicPaths` then
   * no longer apply: the handler decides who may pass.
   */
  authenticate?: RequestHandler;
  /** App-level middleware after request id and logging, before /healthz and /api/v1 (CORS, security headers). */
  appMiddleware?: RequestHandler[];
  /**
   * Sets the headers `appMiddleware` gives every answer (the gateway's security and CORS headers) on
   * the one answer given before it runs: the 400 for a malformed URL, which no middleware may see.
   */
  answerHeaders?: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * Mounted on /api/v1 after authentication and before the content-type check and the body
   * parsers, e.g. a proxy that must forward the body untouched. Call next() for what it does not handle.
   */
  beforeBody?: (router: Router) => void;
  /** Express `trust proxy` (whose X-Forwarded-For to believe for req.ip); default 'loopback'. */
  trustProxy?: boolean | number | string;
  /**
   * Where /readyz and /metrics are served: on the app (`public`, the default for the services
   * behind the gateway), or only on `opsApp` for a separate internal listener (`internal`: the
   * gateway, whose app faces the internet). /healthz is served by both.
   */
  opsEndpoints?: 'public' | 'internal';
  /**
   * Requests served without express (the gateway's proxied routes): the node server offers every
   * request to this handler first; it answers what it takes (returns true) and leaves the rest
   * (false) to the app. `kit.track` gives a taken request the app's metric and log line.
   */
  rawRequests?: (kit: RawRequestKit) => RawRequestHandler;
  /**
   * Hot endpoints served on the lean path (lean.ts: node's own request and response, no express)
   * with the same checks and answers as the express pipeline. They are express routes too, for
   * the requests the lean path leaves to express (a compressed body, another charset).
   */
  leanRoutes?: LeanRoute[];
}

/** Answers a request outside express and returns true, or returns false (untouched) for the app to serve it. */
export type RawRequestHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface RawRequestKit {
  /**
   * Call first for a request served outside express: observes it in `http_request_duration_seconds`
   * and writes its request log line, as the app does for its own requests. The request id and
   * the route label are read when the response ends.
   */
  track(req: IncomingMessage, res: ServerResponse, ends: { requestId: () => string; route: () => string }): void;
}

/** The request id a caller may give (`x-pasar-request-id` or `x-request-id`, word characters and dashes, up to 100), else a new one. */
export function requestIdFrom(headers: IncomingHttpHeaders): string {
  const given = headers[IDENTITY_HEADERS.requestId] ?? headers['x-request-id'];
  const header = Array.isArray(given) ? given.join(', ') : given;
  return header && /^[\w-]{1,100}$/.test(header) ? header : randomUUID();
}

export interface Service {
  app: Express;
  /** /healthz, /readyz and /metrics, for an internal listener (`listenOps`). */
  opsApp: Express;
  metrics: Registry;
  listen(port: number, host?: string): Promise<RunningServer>;
  listenOps(port: number, host?: string): Promise<RunningServer>;
}

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  /** Stops accepting, lets requests in flight finish, closes idle keep-alive sockets. */
  close(): Promise<void>;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * How often the event-loop delay histogram behind `nodejs_eventloop_lag_{min,max,mean,p50,p90,p99}_seconds`
 * samples the loop. prom-client's default (10 ms) is a timer that wakes an idle service 100 times a
 * second, about 5 ms of CPU a second per process, most of what a service burns idle. Every value
 * is the time between two ticks of that timer, so the idle floor of min and p50 is now ~0.1 s
 * (was ~0.01 s): the stall is the value minus 0.1 s. A stall of 100 ms or more still shows in full
 * in max and the percentiles. `nodejs_eventloop_lag_seconds` is measured at scrape time, unchanged.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** The same express app for every service: the skeleton DESIGN §2 describes. */
export function createService(options: ServiceOptions): Service {
  if (options.leanRoutes?.length && (options.authenticate || options.appMiddleware?.length || options.beforeBody)) {
    // the lean path runs the service's own identity check and none of these express-side hooks
    throw new Error('lean routes cannot be combined with authenticate, appMiddleware or beforeBody');
  }
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? 'loopback');
  app.set('query parser', 'simple');

  const metrics = new Registry();
  metrics.setDefaultLabels({ service: options.name });
  collectDefaultMetrics({ register: metrics, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metrics],
  });

  /** Times a request; when its response finished, observes it under its route (read then) and names its server span so. */
  const observe = (req: IncomingMessage, res: ServerResponse, route: () => string) => {
    const end = duration.startTimer();
    res.once('finish', () => {
      const label = route();
      end({ method: req.method, route: label, status: String(res.statusCode) });
      nameServerSpan(res, label);
    });
  };

  app.use((req: Request, res: Response, next: NextFunction) => {
    req.requestId = requestIdFrom(req.headers);
    res.locals.requestId = req.requestId;
    res.setHeader('x-request-id', req.requestId);
    // a handler without an express route (e.g. a proxy) may name its route in res.locals.routeLabel
    observe(req, res, () => (req.route ? `${req.baseUrl}${String(req.route.path)}` : ((res.locals.routeLabel as string | undefined) ?? 'unmatched')));
    next();
  });
  app.use(requestLogger(options.log, (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics'));
  const requestLine = requestLineLogger(options.log);
  const kit: RawRequestKit = {
    track(req, res, ends) {
      observe(req, res, ends.route);
      requestLine(req, res, ends.requestId);
    },
  };
  const raw = options.rawRequests?.(kit);
  const isPublic = pathMatcher((options.publicPaths ?? []).map((p) => API_PREFIX + p));
  const lean = options.leanRoutes?.length
    ? leanRequests(options.leanRoutes, {
        prefix: API_PREFIX,
        identitySecret: options.identitySecret,
        isPublic,
        bodyLimit: options.bodyLimit ?? '1mb',
        routeBodyLimits: options.routeBodyLimits ?? {},
        log: options.log,
        requestIdFrom,
        track: kit.track,
      })
    : undefined;
  const first = raw && lean ? (req: IncomingMessage, res: ServerResponse) => raw(req, res) || lean(req, res) : (raw ?? lean);
  const handler: RequestListener = first ? (req, res) => void (first(req, res) || app(req, res)) : app;

  app.use(rejectMalformedUrl(options.answerHeaders));
  for (const middleware of options.appMiddleware ?? []) app.use(middleware);

  const health: RequestHandler = (_req, res) => {
    res.json({ status: 'ok', service: options.name });
  };
  const readiness: RequestHandler = async (_req, res) => {
    const checks: Record<string, string> = {};
    let ready = true;
    for (const [name, check] of Object.entries(options.readiness ?? {})) {
      try {
        await check();
        checks[name] = 'ok';
      } catch (err) {
        ready = false;
        checks[name] = err instanceof Error ? err.message : 'failed';
      }
    }
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', service: options.name, checks });
  };
  const metricsText: RequestHandler = async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.metrics());
  };

  const opsApp = express();
  opsApp.disable('x-powered-by');
  opsApp.get('/healthz', health);
  opsApp.get('/readyz', readiness);
  opsApp.get('/metrics', metricsText);
  opsApp.use((req, res) => sendProblem(res, 404, 'not_found', `no route for ${req.method} ${req.path}`));

  app.get('/healthz', health);
  if ((options.opsEndpoints ?? 'public') === 'public') {
    app.get('/readyz', readiness);
    app.get('/metrics', metricsText);
  }

  const formPaths = new Set((options.formPaths ?? []).map((p) => API_PREFIX + p));
  const api = express.Router();

  // identity: every /api/v1 request carries the gateway's signature (or the caller's own check)
  if (options.authenticate) api.use(options.authenticate);
  else api.use((req, res, next) => {
    const gate = gateIdentity(options.identitySecret, { method: req.method, path: req.originalUrl }, req.headers, () => isPublic(req.baseUrl + req.path));
    if (!gate.ok) {
      if (gate.reason) req.log.warn({ reason: gate.reason }, SIGNATURE_REJECTED);
      return sendProblem(res, 401, 'unauthenticated', gate.detail);
    }
    req.identity = gate.identity;
    res.locals.signedBody = { sha256: gate.bodySha256, read: false } satisfies SignedBody;
    next();
  });
  options.beforeBody?.(api);
  // the signature covers the body's bytes as sent: a content encoding is not undone here
  api.use((req, _res, next) => next(hasEncodedBody(req.headers) ? unsupportedEncoding() : undefined));
  // GET, HEAD and DELETE take no body: one sent is refused, not read (nor left unread behind a signature of it)
  api.use((req, _res, next) => next(isBodyNotAllowed(req.method, req.headers) ? bodyNotAllowed(req.method) : undefined));
  // content type: writes with a body must be JSON (form only where declared)
  api.use((req, res, next) => {
    if (!WRITE_METHODS.has(req.method)) return next();
    if (!declaresBody(req.headers)) return next();
    if (req.is('application/json')) return next();
    if (req.is('application/x-www-form-urlencoded') && formPaths.has(req.baseUrl + req.path)) return next();
    next(notJsonBody());
  });
  for (const [path, limit] of Object.entries(options.routeBodyLimits ?? {})) {
    api.post(path, express.json({ limit, strict: false, verify: verifySignedJson }));
    if (formPaths.has(API_PREFIX + path)) api.post(path, express.urlencoded({ extended: false, limit, verify: verifySignedBody }));
  }
  api.use(express.json({ limit: options.bodyLimit ?? '1mb', strict: false, verify: verifySignedJson }));
  api.use(express.urlencoded({ extended: false, limit: options.bodyLimit ?? '1mb', verify: verifySignedBody }));
  api.use(requireSignedBodyRead);
  api.use(rejectUnacceptableText);
  mountOnExpress(api, options.leanRoutes ?? []);
  options.routes(api);
  api.use((req, res) => sendProblem(res, 404, 'not_found', `no route for ${req.method} ${req.baseUrl}${req.path}`));
  app.use(API_PREFIX, api);

  app.use((req, res) => sendProblem(res, 404, 'not_found', `no route for ${req.method} ${req.path}`));
  app.use(problemHandler);

  return {
    app,
    opsApp,
    metrics,
    listen: (port, host = '127.0.0.1') => listen(handler, port, host),
    listenOps: (port, host = '127.0.0.1') => listen(opsApp, port, host),
  };
}

/** The signed body digest of an express request (res.locals.signedBody) and whether a body parser checked it. */
interface SignedBody {
  sha256: string;
  read: boolean;
}

/** A body parser's `verify`: the bytes read are the ones the gateway signed (401 otherwise). */
function verifySignedBody(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
  const signed = (res as Response).locals?.signedBody as SignedBody | undefined;
  if (!signed) return; // a service that authenticates on its own (the gateway) has no signed body
  if (!bodyMatchesSignature(signed.sha256, raw)) {
    (req as Request).log.warn({ reason: 'body' }, SIGNATURE_REJECTED);
    throw new ProblemError(401, 'unauthenticated', BODY_NOT_SIGNED);
  }
  signed.read = true;
}

/** express.json's `verify`: the signed digest first, then the depth. */
function verifySignedJson(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
  verifySignedBody(req, res, raw);
  verifyJsonDepth(req, res, raw);
}

/**
 * After the body parsers: a request whose body no parser read (none sent) must have been signed
 * without one, so that headers captured with a body cannot be replayed without it.
 */
const requireSignedBodyRead: RequestHandler = (req, res, next) => {
  const signed = res.locals.signedBody as SignedBody | undefined;
  if (!signed || signed.read || signed.sha256 === EMPTY_BODY_SHA256) return next();
  req.log.warn({ reason: 'body' }, SIGNATURE_REJECTED);
  sendProblem(res, 401, 'unauthenticated', BODY_NOT_SIGNED);
};

/** Exact paths, and `prefix/*` entries matching the prefix and everything below it. */
export function pathMatcher(paths: string[]): (path: string) => boolean {
  const exact = new Set(paths.filter((p) => !p.endsWith('/*')));
  const prefixes = paths.filter((p) => p.endsWith('/*')).map((p) => p.slice(0, -2));
  return (path) => exact.has(path) || prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

export function listen(handler: RequestListener, port: number, host = '127.0.0.1'): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = createServer(tracedRequests(handler)).listen(port, host);
    server.keepAliveTimeout = 65_000;
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address() as AddressInfo;
      resolve({
        server,
        port: address.port,
        url: `http://${host}:${address.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
            setTimeout(() => server.closeAllConnections(), 10_000).unref();
          }),
      });
    });
  });
}
