import type { ClientRequest } from 'node:http';
import { dirname } from 'node:path';
import { IDENTITY_HEADERS } from '@pasar/service-kit';
import { isPlaceholder, signatureForPlaceholder } from './identity';

interface SuperagentRequestPrototype {
  request(this: unknown): ClientRequest;
  __pasarSignOnSend?: true;
}

/**
 * Makes `signedHeaders` work with supertest/superagent unchanged: once a request is made
 * (superagent's `request()`, once method, path and headers are final, also after a redirect),
 * its body is held back until it ends; then a placeholder `x-pasar-sig` is replaced by the
 * signature over the request's real method, path and body (`x-pasar-body-sha256`), and the
 * body goes out. Requests without a placeholder are left alone. Installed by the jest setup file.
 */
export function installSignOnSend(): void {
  // patch the very superagent that supertest loads
  const superagentPath = require.resolve('superagent', { paths: [dirname(require.resolve('supertest'))] });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module patched at run time, resolved above
  const superagent = require(superagentPath) as { Request: { prototype: SuperagentRequestPrototype } };
  const proto = superagent.Request.prototype;
  if (proto.__pasarSignOnSend) return;
  const original = proto.request;
  proto.request = function signOnSend(this: unknown) {
    const req = original.call(this);
    // superagent answers an error by emitting it and returning nothing
    if (req && typeof req.getHeader === 'function' && isPlaceholder(req.getHeader(IDENTITY_HEADERS.sig))) signWhenEnded(req);
    return req;
  };
  proto.__pasarSignOnSend = true;
}

type Chunk = string | Uint8Array;
type Callback = (err?: Error | null) => void;

/** Buffers what is written to `req` until `end`, then sets the signed headers (they cover the whole body) and sends it. */
function signWhenEnded(req: ClientRequest): void {
  const chunks: Buffer[] = [];
  const bufferOf = (chunk: Chunk, encoding?: BufferEncoding) => (typeof chunk === 'string' ? Buffer.from(chunk, encoding ?? 'utf8') : Buffer.from(chunk));
  const end = req.end.bind(req) as (chunk: Buffer, cb?: () => void) => ClientRequest;
  req.write = ((chunk: Chunk, encoding?: BufferEncoding | Callback, cb?: Callback) => {
    chunks.push(bufferOf(chunk, typeof encoding === 'string' ? encoding : undefined));
    const done = typeof encoding === 'function' ? encoding : cb;
    if (done) process.nextTick(done);
    return true;
  }) as ClientRequest['write'];
  req.end = ((chunk?: Chunk | (() => void), encoding?: BufferEncoding | (() => void), cb?: () => void) => {
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(bufferOf(chunk, typeof encoding === 'string' ? encoding : undefined));
    const done = [chunk, encoding, cb].find((arg): arg is () => void => typeof arg === 'function');
    const body = Buffer.concat(chunks);
    const signed = signatureForPlaceholder(req.getHeader(IDENTITY_HEADERS.sig), req.method, req.path, body);
    if (signed) for (const [name, value] of Object.entries(signed)) req.setHeader(name, value);
    return end(body, done);
  }) as ClientRequest['end'];
}
