import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_PREFIX } from '@pasar/service-kit';
import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * CORS for the configured browser origins only (credentials allowed, preflight cached for
 * 10 minutes); other origins get no CORS headers.
 */
const EXPOSED_HEADERS = ['x-request-id', 'location', 'retry-after'];

export function corsFor(origins: string[]): RequestHandler {
  const allowed = new Set(origins);
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    credentials: true,
    maxAge: 600,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: EXPOSED_HEADERS,
  });
}

/**
 * `corsFor`'s headers on an actual (not preflight) request, for answers outside express
 * (apiAnswerHeaders): a configured origin gets itself allowed with credentials and the exposed
 * headers; others get none.
 */
function corsHeadersFor(origins: string[]): (res: ServerResponse, origin: string | undefined) => void {
  const allowed = new Set(origins);
  const exposed = EXPOSED_HEADERS.join(',');
  return (res, origin) => {
    if (origin === undefined || !allowed.has(origin)) return;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Access-Control-Expose-Headers', exposed);
  };
}

/**
 * helmet's headers everywhere. JSON answers get the strictest CSP (they load nothing); the API
 * reference page may run its own scripts and styles from the gateway, the console (/console/) its
 * own bundle's.
 */
const strictHelmet = () =>
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  });

export function securityHeaders(): RequestHandler {
  const strict = strictHelmet();
  const docs = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", "'unsafe-inline'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        workerSrc: ["'self'", 'blob:'],
      },
    },
  });
  // the operator console: its own scripts and styles only (no inline script, no CDN), API calls to itself
  const consoleApp = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        baseUri: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
      },
    },
  });
  const docsPath = `${API_PREFIX}/docs`;
  return (req, res, next) => {
    if (req.path === docsPath || req.path.startsWith(`${docsPath}/`)) return docs(req, res, next);
    if (req.path === '/console' || req.path.startsWith('/console/')) return consoleApp(req, res, next);
    return strict(req, res, next);
  };
}

/**
 * The headers the strict helmet sets on a JSON answer, taken once from helmet itself (it sets the
 * same ones on every request), for answers outside express (apiAnswerHeaders).
 */
export function strictSecurityHeaders(): readonly (readonly [string, string])[] {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: unknown) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
    getHeader: (name: string) => headers.get(name),
  };
  let done = false;
  strictHelmet()({} as never, recorder as never, () => {
    done = true;
  });
  if (!done) throw new Error('helmet did not set its headers synchronously');
  return [...headers];
}

/**
 * What `securityHeaders` and `corsFor` set on an actual request to the API, for the answers given
 * outside that middleware: the proxied path, and service-kit's 400 for a malformed URL (given
 * before any middleware runs). Computed once; the same headers on every call.
 */
export function apiAnswerHeaders(origins: string[]): (req: IncomingMessage, res: ServerResponse) => void {
  const security = strictSecurityHeaders();
  const cors = corsHeadersFor(origins);
  return (req, res) => {
    for (const [name, value] of security) res.setHeader(name, value);
    cors(res, req.headers.origin);
  };
}
