import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler } from 'express';
import pino, { type Level, type Logger } from 'pino';
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
 * values are redacted here), so it is written straight to the logger's stream, in the logger's
 * own format, without pino's per-call redaction pass over the object. A logger this cannot write
 * for exactly (mixin, hooks, a stream that wants metadata) gets the line through pino as usual.
 */
export function requestLineLogger(log: Logger): RequestLine {
  const write = directWriter(log);
  return (req, res, requestId) => {
    const started = performance.now();
    const url = req.url ?? ''; // as received: routers and the proxy rewrite req.url later
    res.once('close', () => {
      const finished = res.writableFinished;
      const level = requestLogLevel(res.statusCode, finished);
      if (!log.isLevelEnabled(level)) return;
      const fields = {
        reqId: requestId(),
        req: { method: req.method, url: redactUrl(url), remoteAddress: req.socket.remoteAddress },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(performance.now() - started),
      };
      const msg = finished ? 'request completed' : 'request aborted';
      if (write) write(level, fields, msg);
      else log[level](fields, msg);
    });
  };
}

const LINE_FIELDS = ['reqId', 'req', 'res', 'responseTime'];

type LineWriter = (level: Level, fields: object, msg: string) => void;

/** Writes a line as pino would for `log[level](fields, msg)`, or undefined when pino must do it. */
function directWriter(log: Logger): LineWriter | undefined {
  const s = pino.symbols as unknown as Record<string, symbol>; // msgPrefixSym is missing from pino's types
  const internals = log as unknown as Record<symbol, unknown>;
  const stream = internals[s.streamSym] as { write?: (line: string) => unknown; [key: symbol]: unknown } | undefined;
  const levelPrefix = internals[s.lsCacheSym] as Record<number, string> | undefined;
  const time = internals[s.timeSym] as (() => string) | undefined;
  const hooks = internals[s.hooksSym] as { logMethod?: unknown } | undefined;
  const formatters = internals[s.formattersSym] as { log?: unknown } | undefined;
  const serializers = (internals[s.serializersSym] ?? {}) as Record<string, unknown>;
  if (
    typeof stream?.write !== 'function' ||
    stream[s.needsMetadataGsym] ||
    !levelPrefix ||
    typeof time !== 'function' ||
    internals[s.mixinSym] ||
    hooks?.logMethod ||
    formatters?.log ||
    LINE_FIELDS.some((field) => field in serializers) ||
    internals[s.msgPrefixSym] ||
    internals[s.messageKeySym] !== 'msg' ||
    internals[s.nestedKeySym]
  ) {
    return undefined;
  }
  const write = stream.write.bind(stream);
  return (level, fields, msg) => {
    const body = JSON.stringify(fields);
    // chindings are read per line: a child logger's bindings may change (setBindings)
    const chindings = internals[s.chindingsSym] as string;
    write(`${levelPrefix[log.levels.values[level]]}${time()}${chindings},${body.slice(1, -1)},"msg":${JSON.stringify(msg)}}\n`);
  };
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
