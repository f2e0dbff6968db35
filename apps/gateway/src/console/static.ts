import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler } from 'express';

export const CONSOLE_PATH = '/console';

/** Where `npm run build` (apps/console) writes the bundle, from this file in the repository. */
export const DEFAULT_CONSOLE_DIR = path.join(__dirname, '..', '..', '..', 'console', 'dist');

/**
 * The operator console's static files at /console/ (same origin as the API, so the session
 * cookie goes along; the API behind it checks the admin role). Hashed assets are cached for a
 * year, index.html never. Without a built bundle, /console/ answers 404 with how to build it.
 */
export function consoleStatic(dir: string): RequestHandler {
  const files = express.static(dir, {
    index: 'index.html',
    redirect: false,
    fallthrough: true,
    setHeaders: (res, file) => {
      res.setHeader('Cache-Control', file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return (req, res, next) => {
    if (req.path !== CONSOLE_PATH && !req.path.startsWith(`${CONSOLE_PATH}/`)) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path === CONSOLE_PATH) return res.redirect(301, `${CONSOLE_PATH}/`);
    if (!existsSync(path.join(dir, 'index.html'))) {
      res.status(404).type('text/plain').send('The console is not built: run `npm run build` (turbo builds apps/console).');
      return;
    }
    const inner = req.url.slice(CONSOLE_PATH.length) || '/';
    const original = req.url;
    req.url = inner;
    files(req, res, (err?: unknown) => {
      req.url = original;
      if (err) return next(err);
      res.status(404).type('text/plain').send('Not found');
    });
  };
}
