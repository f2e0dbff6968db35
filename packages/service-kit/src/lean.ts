import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseContentType } from 'content-type';
import encodeUrl from 'encodeurl';
import etag from 'etag';
import fresh from 'fresh';
import { match, type MatchFunction } from 'path-to-regexp';
import type { Request, Response, Router } from 'express';
import type { Logger } from 'pino';
import { declaresBody, jsonDepthExceeds, isMalformedUrl, readRawBody, MAX_JSON_DEPTH, notJsonBody, unacceptableTextIn, TEXT_PROBLEMS } from './body';
import { BODY_NOT_SIGNED, bodyMatchesSignature, gateIdentity, SIGNATURE_REJECTED, type Identity } from './identity';
import { problemOf, ProblemError, writeProblem } from './problems';

/**
 * A request on a lean route: what a route handler reads of it (the same names as on an express
 * request, so `requireRole`, `parse` and the handlers' option readers take either).
 */
export interface LeanRequest {
  readonly method: string;
  /** The path as received, query string included (what the identity signature covers). */
  readonly originalUrl: string;
  /** The route's path parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  /** The signed-in caller, or null on a public path called anonymously. */
  readonly identity: Identity | null;
  readonly requestId: string;
  /** The parsed JSON body (undefined when the request has none). */
  readonly body: unknown;
  /** A logger bound to the request id. */
  readonly log: Logger;
  /** A request header (case-insensitive), its first value. */
  get(name: string): string | undefined;
}

/** What a lean handler answers: the status, the JSON body (none: an empty answer) and a Location. */
export interface LeanAnswer {
  status: number;
  body?: unknown;
  location?: string;
}

export type LeanHandler = (req: LeanRequest) => Promise<LeanAnswer>;

/** Where a feature declares its lean routes; paths are relative to /api/v1, with `:name` parameters as on an express router. */
export interface LeanRouter {
  get(path: string, handler: LeanHandler): void;
  post(path: string, handler: LeanHandler): void;
}

/** One declared lean route. */
export interface LeanRoute {
  method: 'GET' | 'POST';
  /** Relative to /api/v1, e.g. `/vendor/shipments/:id`. */
  path: string;
  handler: LeanHandler;
}

/** Collects routes declared on a LeanRouter. */
export function leanRouter(): LeanRouter & { routes: LeanRoute[] } {
  const routes: LeanRoute[] = [];
  return {
    routes,
    get: (path, handler) => void routes.push({ method: 'GET', path, handler }),
    post: (path, handler) => void routes.push({ method: 'POST', path, handler }),
  };
}

/**
 * The lean routes as express routes: what a request the lean path leaves to express (a content
 * encoding, another charset) meets, and the reference the lean path answers like. An express
 * request has every field a LeanRequest has.
 */
export function mountOnExpress(router: Router, routes: readonly LeanRoute[]): void {
  for (const route of routes) {
    const handle = async (req: Request, res: Response) => {
      const answer = await route.handler(req as Request & LeanRequest);
      res.status(answer.status);
      if (answer.location) res.location(answer.location);
      if (answer.body === undefined) res.end();
      else res.json(answer.body);
    };
    if (route.method === 'GET') router.get(route.path, handle);
    else router.post(route.path, handle);
  }
}

/** What the lean pipeline needs of its service (createService passes its own options and kit). */
export interface LeanOptions {
  prefix: string;
  identitySecret: string;
  isPublic: (path: string) => boolean;
  bodyLimit: string;
  /** Limits of their own, by route path (relative to the prefix), as ServiceOptions.routeBodyLimits. */
  routeBodyLimits: Readonly<Record<string, string>>;
  log: Logger;
  requestIdFrom: (headers: IncomingHttpHeaders) => string;
  /** The service's metric and request line for a request served here (RawRequestKit.track). */
  track: (req: IncomingMessage, res: ServerResponse, ends: { requestId: () => string; route: () => string }) => void;
}

interface CompiledRoute extends LeanRoute {
  full: string;
  matches: MatchFunction<Record<string, string>>;
}

const BODY_METHODS = new Set(['POST']);
const EMPTY_BYTES = new Uint8Array(0);

/**
 * The lean path: a few hot endpoints (a submit, a vendor's shipment read) served on node's own
 * request and response, without express's router, request and response decoration and body
 * parser middleware (several times the cost of the handler's own HTTP work on a small request).
 * It answers exactly what the express pipeline answers: the same request id and request line,
 * the same identity check (401), the same body rules in the same order (415 for a body that is
 * not JSON, 413 over the limit, 400 malformed_json, json_too_deep, nul_character and
 * malformed_unicode), the same problems for what a handler throws, and JSON answers with the
 * headers express's `res.json` gives them (content type with charset, length, weak ETag, 304 for
 * a fresh conditional GET). A request it does not take (another path or method, or one with a
 * content encoding or charset it leaves to body-parser) goes to express untouched.
 */
export function leanRequests(routes: readonly LeanRoute[], options: LeanOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  // matched as express's router matches: case-insensitive, a trailing slash allowed, parameters decoded
  const compiled: CompiledRoute[] = routes.map((route) => {
    const full = `${options.prefix}${route.path}`;
    return { ...route, full, matches: match<Record<string, string>>(full, { sensitive: false, trailing: true, decode: decodeURIComponent }) };
  });
  return (req, res) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (!path.startsWith(options.prefix)) return false;
    const asMethod = method === 'HEAD' ? 'GET' : method;
    let route: CompiledRoute | undefined;
    let params: Record<string, string> = {};
    if (isMalformedUrl(url)) return false; // express answers it (400 malformed_url)
    for (const candidate of compiled) {
      if (candidate.method !== asMethod) continue;
      const found = candidate.matches(path);
      if (found) {
        route = candidate;
        params = found.params;
        break;
      }
    }
    if (!route || !takesBody(req, asMethod)) return false;
    void serve(req, res, route, params, options);
    return true;
  };
}

/**
 * Whether this path reads the body as the express pipeline would: no content encoding, UTF-8 or
 * no charset, and no body on a GET (express would parse and check it).
 */
function takesBody(req: IncomingMessage, method: string): boolean {
  if (!BODY_METHODS.has(method) && declaresBody(req.headers)) return false;
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = req.headers['content-type'];
  if (type === undefined) return true;
  try {
    const charset = parseContentType(type).parameters.charset?.toLowerCase();
    return charset === undefined || charset === 'utf-8' || charset === 'utf8';
  } catch {
    return false; // a content type it cannot parse: express answers it
  }
}

async function serve(req: IncomingMessage, res: ServerResponse, route: CompiledRoute, params: Record<string, string>, options: LeanOptions): Promise<void> {
  const requestId = options.requestIdFrom(req.headers);
  res.setHeader('x-request-id', requestId);
  options.track(req, res, { requestId: () => requestId, route: () => route.full });
  let log: Logger | undefined;
  const logOf = () => (log ??= options.log.child({ reqId: requestId }));
  const method = req.method ?? 'GET';
  const fail = (status: number, code: string, detail?: string, errors?: ProblemError['errors'], headers?: Record<string, string>) =>
    writeProblem(res, method, status, code, detail, requestId, errors, headers);
  try {
    const originalUrl = req.url ?? '/';
    const gate = gateIdentity(options.identitySecret, { method, path: originalUrl }, req.headers, () => options.isPublic(route.full));
    if (!gate.ok) {
      if (gate.reason) logOf().warn({ reason: gate.reason }, SIGNATURE_REJECTED);
      req.resume();
      return fail(401, 'unauthenticated', gate.detail);
    }
    const body = await readBody(req, method, options.routeBodyLimits[route.path] ?? options.bodyLimit, (bytes) => {
      if (bodyMatchesSignature(gate.bodySha256, bytes)) return;
      logOf().warn({ reason: 'body' }, SIGNATURE_REJECTED);
      throw new ProblemError(401, 'unauthenticated', BODY_NOT_SIGNED);
    });
    const answer = await route.handler({
      method,
      originalUrl,
      params,
      headers: req.headers,
      identity: gate.identity,
      requestId,
      body,
      get log() {
        return logOf();
      },
      get: (name) => {
        const value = req.headers[name.toLowerCase()];
        return Array.isArray(value) ? value[0] : value;
      },
    });
    sendJson(req, res, answer);
  } catch (err) {
    if (res.headersSent) return void res.destroy();
    const problem = problemOf(err);
    if (problem.log) logOf()[problem.log.level]({ err }, problem.log.message);
    fail(problem.status, problem.code, problem.detail, problem.errors, problem.headers);
  }
}

/**
 * The JSON body as the express pipeline reads it (content-type check, body-parser's json with
 * the same limit, the signed digest, then the depth and text checks), or undefined for a request
 * without a body. `verifySigned` throws when the bytes read (none without a body) are not the signed ones.
 */
async function readBody(req: IncomingMessage, method: string, limit: string, verifySigned: (bytes: Uint8Array) => void): Promise<unknown> {
  const json = isJson(req.headers['content-type']);
  if (!BODY_METHODS.has(method) || !declaresBody(req.headers)) {
    req.resume();
    verifySigned(EMPTY_BYTES);
    // body-parser answers {} for an empty JSON body, nothing for none
    return BODY_METHODS.has(method) && json && req.headers['content-length'] !== undefined ? {} : undefined;
  }
  if (!json) {
    req.resume();
    throw notJsonBody();
  }
  const raw = await readRawBody(req, limit);
  verifySigned(raw);
  if (raw.length === 0) return {};
  if (jsonDepthExceeds(raw, MAX_JSON_DEPTH)) throw new ProblemError(400, 'json_too_deep', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`);
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ProblemError(400, 'malformed_json', 'the request body is not valid JSON');
  }
  const found = unacceptableTextIn(body);
  if (found) throw new ProblemError(400, found, TEXT_PROBLEMS[found]);
  return body;
}

/** `req.is('application/json')` for one content type header. */
function isJson(type: string | undefined): boolean {
  if (!type) return false;
  try {
    return parseContentType(type).type === 'application/json';
  } catch {
    return false;
  }
}

/** What express's `res.status(s).location(l).json(body)` writes, 304 for a GET whose ETag the client holds. */
function sendJson(req: IncomingMessage, res: ServerResponse, answer: LeanAnswer): void {
  res.statusCode = answer.status;
  if (answer.location) res.setHeader('Location', encodeUrl(answer.location));
  if (answer.body === undefined) {
    res.end();
    return;
  }
  const body = Buffer.from(JSON.stringify(answer.body));
  const tag = etag(body, { weak: true });
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('ETag', tag);
  const conditional = req.method === 'GET' || req.method === 'HEAD';
  if (conditional && answer.status >= 200 && answer.status < 300 && fresh(req.headers, { etag: tag })) {
    res.statusCode = 304;
    res.removeHeader('Content-Type');
    res.end();
    return;
  }
  res.setHeader('Content-Length', String(body.length));
  res.end(req.method === 'HEAD' ? undefined : body);
}
