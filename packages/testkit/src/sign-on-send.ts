import type { ClientRequest } from 'node:http';
import { dirname } from 'node:path';
import { IDENTITY_HEADERS } from '@pasar/service-kit';
import { signatureForPlaceholder } from './identity';

interface SuperagentRequestPrototype {
  request(this: unknown): ClientRequest;
  __pasarSignOnSend?: true;
}

/**
 * Makes `signedHeaders` work with supertest/superagent unchanged: just before a request goes out
 * (superagent's `request()`, once method, path and headers are final, also after a redirect),
 * a placeholder `x-pasar-sig` is replaced by the signature over the request's real method and
 * path. Requests without a placeholder are left alone. Installed by the jest setup file.
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
    if (req && typeof req.getHeader === 'function') {
      const real = signatureForPlaceholder(req.getHeader(IDENTITY_HEADERS.sig), req.method, req.path);
      if (real) req.setHeader(IDENTITY_HEADERS.sig, real);
    }
    return req;
  };
  proto.__pasarSignOnSend = true;
}
