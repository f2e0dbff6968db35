import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { context } from '@opentelemetry/api';
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
 * Starts timing a request (call it first, before anything rewrites `req.url`) and writes its line
 * when the response closes (`requestId` is read then: it may be set after this call). The line has pino-http's shape (`reqId`, `req`, `res`,
 * `responseTime`; no headers) and is built only when its level is enabled.
 */
export type RequestLine = (req: IncomingMessage, res: ServerResponse, requestId: () => string) => void;

/**
 * The request line writer of `requestLogger`, also for requests served outside express (the
 * gateway's proxied path). The line holds no secret field (no headers; the URL's secret query
 * values are redacted here), so it goes through a child logger without redaction paths (pino's
 * `child(bindings, { redact })` override): the same stream, level, bindings, serializers and
 * format, without the per-call redaction pass over the object.
 */
export function requestLineLogger(log: Logger): RequestLine {
  const lines = log.child({}, { redact: [] });
  return (req, res, requestId) => {
    const started = performance.now();
    const url = req.url ?? ''; // as received: routers and the proxy rewrite req.url later
    // written in the request's trace context (the line names its trace): 'close' comes from the connection
    const traced = context.active();
    res.once('close', () => {
      const level = requestLogLevel(res.statusCode, res.writableFinished);
      if (lines.isLevelEnabled(level)) context.with(traced, writeRequestLine, undefined, lines, level, req, res, requestId(), started, url);
    });
  };
}

function writeRequestLine(lines: Logger, level: Level, req: IncomingMessage, res: ServerResponse, requestId: string, started: number, url: string): void {
  const finished = res.writableFinished;
  const fields = {
    reqId: requestId,
    req: { method: req.method, url: redactUrl(url), remoteAddress: req.socket.remoteAddress },
    res: { statusCode: res.statusCode },
    responseTime: Math.round(performance.now() - started),
  };
  lines[level](fields, finished ? 'request completed' : 'request aborted');
}

/**
 * One line per request when it ends (see `requestLineLogger`), so a service logging at warn pays
 * nothing for its 2xx answers; `req.log` is a child logger made only when a handler uses it.
 * (pino-http built a child logger with the serialized, redacted request on every request.)
 */
export function requestLogger(log: Logger, ignore: (req: Request) => boolean): RequestHandler {
  const line = requestLineLogger(log);
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
    line(req, res, () => req.requestId);
    next();
  };
}
