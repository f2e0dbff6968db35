import etag from 'etag';
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Response } from 'express';
import { z } from 'zod';
import type { Problem } from '@pasar/contracts';
import { RpcUnavailableError } from '@pasar/bus';
import { isDatabaseBusy } from '@pasar/db';
import { activeTraceId } from './trace';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** An error that is an HTTP answer: thrown by use cases and routes, rendered as problem+json. */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail?: string,
    readonly errors?: Problem['errors'],
  ) {
    super(detail ?? code);
  }
}

/**
 * A refusal the business expects (STYLE §4): a returned value with a stable snake_case code, which
 * the edge maps (`refusalProblems` for a route, `RpcRefusal` for an rpc responder). The one
 * definition every service's rules use.
 */
export type Refusal<C extends string> = { ok: false; code: C; detail: string };

export const badRequest = (code: string, detail?: string) => new ProblemError(400, code, detail);
export const unauthenticated = (detail = 'sign in first') => new ProblemError(401, 'unauthenticated', detail);
export const forbidden = (detail = 'your role may not do this') => new ProblemError(403, 'forbidden', detail);
export const notFound = (what = 'resource') => new ProblemError(404, 'not_found', `${what} not found`);
export const conflict = (code: string, detail?: string) => new ProblemError(409, code, detail);
export const unavailable = (detail: string) => new ProblemError(503, 'service_unavailable', detail);

/**
 * Turns a use case's expected refusal (`{code, detail}`, STYLE §4) into a problem, with the HTTP
 * status of each code listed beside the routes (400 for a code the list does not name).
 */
export function refusalProblems(statusOf: Readonly<Record<string, number>>) {
  return (refusal: { code: string; detail: string }): ProblemError => new ProblemError(statusOf[refusal.code] ?? 400, refusal.code, refusal.detail);
}

export function problemBody(status: number, code: string, detail: string | undefined, requestId: string | undefined, errors?: Problem['errors']): Problem {
  return {
    type: `https://pasar.dev/problems/${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors ? { errors } : {}),
    requestId,
    ...traceIdField(),
  };
}

function traceIdField(): { traceId?: string } {
  const traceId = activeTraceId();
  return traceId ? { traceId } : {};
}

export function sendProblem(res: Response, status: number, code: string, detail?: string, errors?: Problem['errors'], headers?: ProblemOf['headers']): void {
  const requestId = res.locals.requestId as string | undefined;
  if (headers) res.set(headers);
  res.status(status).type('application/problem+json').send(JSON.stringify(problemBody(status, code, detail, requestId, errors)));
}

/**
 * `sendProblem` for a response outside express (the gateway's proxied path), with the same
 * headers express's `send` gives it: the content type with its charset, the length and a weak ETag.
 */
export function writeProblem(
  res: ServerResponse,
  method: string | undefined,
  status: number,
  code: string,
  detail: string | undefined,
  requestId: string | undefined,
  errors?: Problem['errors'],
  headers?: ProblemOf['headers'],
): void {
  const body = Buffer.from(JSON.stringify(problemBody(status, code, detail, requestId, errors)));
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
  res.setHeader('Content-Length', String(body.length));
  res.setHeader('ETag', etag(body, { weak: true })); // what express's send sets
  res.end(method === 'HEAD' ? undefined : body);
}

export function zodIssues(err: z.ZodError): NonNullable<Problem['errors']> {
  return err.issues.map((i) => ({
    path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    message: i.message,
    code: i.code,
  }));
}

interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

/** The problem an error answers, and whether (and how loudly) it is logged. */
export interface ProblemOf {
  status: number;
  code: string;
  detail?: string;
  errors?: Problem['errors'];
  /** Headers the answer carries besides the problem's own (Retry-After of a busy database). */
  headers?: Record<string, string>;
  /** Logged with the error: a dependency away (warn), anything unexpected (error). */
  log?: { level: 'warn' | 'error'; message: string };
}

/**
 * What anything thrown while serving a request answers (problemHandler, and the lean routes'
 * pipeline): a ProblemError as it is, a ZodError 400 with its issues, a body parser's own errors
 * their 4xx, a missing rpc peer 503, a database with no connection or transaction to spare 503
 * `database_busy` with `Retry-After: 1`; anything else a 500 that never shows its message.
 */
export function problemOf(err: unknown): ProblemOf {
  if (err instanceof ProblemError) return { status: err.status, code: err.code, detail: err.detail, errors: err.errors };
  if (err instanceof z.ZodError) return { status: 400, code: 'validation_failed', detail: 'the request is not valid', errors: zodIssues(err) };
  if (err instanceof RpcUnavailableError) {
    return {
      status: 503,
      code: 'dependency_unavailable',
      detail: 'a service this request needs is not answering; try again',
      log: { level: 'warn', message: 'a service this request needs did not answer' },
    };
  }
  if (isDatabaseBusy(err)) {
    return {
      status: 503,
      code: 'database_busy',
      detail: 'the database is too busy to take this request now; try again',
      headers: { 'Retry-After': '1' },
      log: { level: 'warn', message: 'the database had no connection or transaction to spare' },
    };
  }
  const http = err as HttpishError;
  const status = http?.status ?? http?.statusCode;
  if (status === 413 || http?.type === 'entity.too.large') return { status: 413, code: 'payload_too_large', detail: 'the request body is too large' };
  if (http?.type === 'entity.parse.failed') return { status: 400, code: 'malformed_json', detail: 'the request body is not valid JSON' };
  if (status && status >= 400 && status < 500 && http.expose) return { status, code: 'bad_request', detail: (err as Error).message };
  // a library's own 4xx without a public message (e.g. the router's URIError for a param it cannot decode)
  if (err instanceof URIError || (status && status >= 400 && status < 500)) {
    return { status: status && status >= 400 && status < 500 ? status : 400, code: 'bad_request', detail: 'the request is not valid' };
  }
  return { status: 500, code: 'internal_error', detail: 'something went wrong on our side', log: { level: 'error', message: 'unhandled error' } };
}

/** The last middleware of every service: anything thrown becomes problem+json; internals never leak. */
export const problemHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  if (res.headersSent) return;
  const problem = problemOf(err);
  if (problem.log) req.log?.[problem.log.level]({ err }, problem.log.message);
  sendProblem(res, problem.status, problem.code, problem.detail, problem.errors, problem.headers);
};
