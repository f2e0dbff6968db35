import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler } from 'express';
import type { Level, Logger } from 'pino';
import { redactUrl } from './logger';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request's logger (bound to its request id), made on first use. */
    log: Logger;
  }
}

/** Info for an answer, warn for a refusal (4xx) or an aborted request, error for a failure (5xx). */
export function requestLogLevel(statusCode: number, finished: boolean): Level {
  if (statusCode >= 500) return 'error';
  if (statusCode >= 400 || !finished) return 'warn';
  return 'info';
}

/**
 * One line per request when it ends, in pino-http's shape (`req`, `res`, `responseTime`, `reqId`;
 * no headers), built only when its level is enabled, so a service logging at warn pays nothing
 * for its 2xx answers; `req.log` is a child logger made only when a handler uses it. (pino-http
 * built a child logger with the serialized, redacted request on every request.)
 */
export function requestLogger(log: Logger, ignore: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => {
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      get: () => (child ??= log.child({ reqId: req.requestId })),
      set: (value: Logger) => {
        child = value;
      },
    });
    if (ignore(req)) return next();
    const started = performance.now();
    res.once('close', () => {
      const finished = res.writableFinished;
      const level = requestLogLevel(res.statusCode, finished);
      if (!log.isLevelEnabled(level)) return;
      log[level](
        {
          reqId: req.requestId,
          req: { method: req.method, url: redactUrl(req.originalUrl), remoteAddress: req.socket.remoteAddress },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(performance.now() - started),
        },
        finished ? 'request completed' : 'request aborted',
      );
    });
    next();
  };
}
