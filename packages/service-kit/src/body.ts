import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import getRawBody from 'raw-body';
import { ProblemError, sendProblem } from './problems';

/** How deeply a JSON body may nest objects and arrays; real bodies stay under 10. */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * True when the JSON text nests objects/arrays deeper than `max`. A single pass over the raw
 * bytes without recursion, so it runs before JSON.parse: a deep body is refused before anything
 * (the parser, zod, the logger) can walk it recursively and blow the stack.
 */
export function jsonDepthExceeds(text: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const byte = text[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1; // skip the escaped character (\" and \\ included)
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      depth += 1;
      if (depth > max) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth -= 1;
    }
  }
  return false;
}

/** Why a text of a body cannot be stored: a NUL character, or a lone UTF-16 surrogate (not Unicode). */
export type UnacceptableText = 'nul_character' | 'malformed_unicode';

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function checkText(text: string): UnacceptableText | undefined {
  if (text.includes('\u0000')) return 'nul_character';
  if (LONE_SURROGATE.test(text)) return 'malformed_unicode';
  return undefined;
}

/**
 * The first unacceptable text in any string of a parsed body, keys included: a NUL character
 * (U+0000; PostgreSQL refuses it in text and jsonb) or a lone surrogate such as "\ud800" (jsonb
 * refuses it). Such input must be turned away before a handler runs. Iterative: the depth was
 * bounded while parsing, but no recursion is needed either way.
 */
export function unacceptableTextIn(value: unknown): UnacceptableText | undefined {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      const found = checkText(next);
      if (found) return found;
    } else if (Array.isArray(next)) {
      for (const inner of next as unknown[]) pending.push(inner); // no spread: an array may hold 500,000 items
    } else if (next !== null && typeof next === 'object') {
      for (const [key, inner] of Object.entries(next)) {
        const found = checkText(key);
        if (found) return found;
        pending.push(inner);
      }
    }
  }
  return undefined;
}

/** `verify` of express.json: refuses a body nested deeper than MAX_JSON_DEPTH before it is parsed. */
export function verifyJsonDepth(_req: unknown, _res: unknown, raw: Buffer): void {
  if (jsonDepthExceeds(raw, MAX_JSON_DEPTH)) {
    throw new ProblemError(400, 'json_too_deep', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

/** 415: a write whose body is not JSON (the express pipeline's check and the lean path's). */
export const notJsonBody = () => new ProblemError(415, 'unsupported_media_type', 'send the body as application/json');

/**
 * A request's body bytes as sent, up to `limit` (e.g. '1mb'): raw-body's errors otherwise (413
 * `entity.too.large`, checked against Content-Length before anything is read; problemOf maps them).
 */
export function readRawBody(req: IncomingMessage, limit: string): Promise<Buffer> {
  return getRawBody(req, { length: req.headers['content-length'], limit });
}

/** Whether a request declares a content encoding other than `identity` (the signed digest covers the bytes as sent, so none is undone). */
export function hasEncodedBody(headers: { 'content-encoding'?: string }): boolean {
  const encoding = headers['content-encoding']?.trim().toLowerCase();
  return encoding !== undefined && encoding !== '' && encoding !== 'identity';
}

/** 415: a body sent with a content encoding (gzip, deflate, br): the gateway and the services take it as sent only. */
export const unsupportedEncoding = () => new ProblemError(415, 'unsupported_content_encoding', 'send the body without a Content-Encoding (identity only)');

/** Whether a request declares a body: a length above 0, or chunked. */
export function declaresBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

/** The methods that take no body: no GET, HEAD or DELETE endpoint has one (SPEC: request "none"). */
const BODILESS_METHODS = new Set(['GET', 'HEAD', 'DELETE']);

/** Whether a request declares a body on a method that takes none. */
export function isBodyNotAllowed(method: string | undefined, headers: IncomingHttpHeaders): boolean {
  return method !== undefined && BODILESS_METHODS.has(method) && declaresBody(headers);
}

/** 400: a body on a GET, HEAD or DELETE is refused, never read, signed or forwarded (no route would read it). */
export const bodyNotAllowed = (method: string | undefined) =>
  new ProblemError(400, 'body_not_allowed', `a ${method ?? 'GET'} request takes no body; send it without one`);

/** True when the path does not percent-decode (`/%E0%A4%A`) or carries an encoded NUL (`%00`, path or query). */
export function isMalformedUrl(url: string): boolean {
  if (!url.includes('%')) return false; // nothing encoded, nothing to decode (most requests)
  if (/%00/i.test(url)) return true;
  const path = url.split('?', 1)[0];
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/**
 * App-level, first: a URL that cannot be decoded (or holds a NUL) answers 400 before any router or
 * app middleware sees it. `answerHeaders` sets on that answer the headers the app middleware gives
 * every other one (the gateway's security and CORS headers).
 */
export function rejectMalformedUrl(answerHeaders?: (req: IncomingMessage, res: ServerResponse) => void): RequestHandler {
  return (req, res, next) => {
    if (!isMalformedUrl(req.originalUrl)) return next();
    answerHeaders?.(req, res);
    sendProblem(res, 400, 'malformed_url', 'the URL has a malformed percent-encoding or a NUL character');
  };
}

/** The detail of each unacceptable-text problem. */
export const TEXT_PROBLEMS: Record<UnacceptableText, string> = {
  nul_character: 'the request body contains a NUL character (\\u0000), which is not accepted',
  malformed_unicode: 'the request body contains a lone UTF-16 surrogate (e.g. \\ud800), which is not Unicode text',
};

/** After the body parsers: a NUL character or a lone surrogate anywhere in the body answers 400 before any handler runs. */
export const rejectUnacceptableText: RequestHandler = (req, res, next) => {
  const found = unacceptableTextIn(req.body);
  if (found) return sendProblem(res, 400, found, TEXT_PROBLEMS[found]);
  next();
};
