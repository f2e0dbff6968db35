import { API_PREFIX } from '@pasar/service-kit';
import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * CORS for the configured browser origins only (credentials allowed, preflight cached for
 * 10 minutes); other origins get no CORS headers.
 */
export function corsFor(origins: string[]): RequestHandler {
  const allowed = new Set(origins);
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    credentials: true,
    maxAge: 600,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: ['x-request-id', 'location', 'retry-after'],
  });
}

/**
 * helmet's headers everywhere. JSON answers get the strictest CSP (they load nothing); the API
 * reference page may run its own scripts and styles from the gateway.
 */
export function securityHeaders(): RequestHandler {
  const strict = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  });
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
  const docsPath = `${API_PREFIX}/docs`;
  return (req, res, next) => (req.path === docsPath || req.path.startsWith(`${docsPath}/`) ? docs : strict)(req, res, next);
}
