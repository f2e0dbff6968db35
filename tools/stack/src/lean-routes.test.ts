/**
 * Every lean route of every service, read from the services' features (not a hand list), answers
 * a fixed matrix of requests through the lean path exactly as through express: the same routes
 * (registered with the running service's real context: its database and bus) are mounted once
 * as lean routes and once on express alone (`mountOnExpress`), and each case goes to both.
 * Status, the headers a client reads and the body must be equal.
 */
import { request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import {
  API_PREFIX,
  bodySha256,
  EMPTY_BODY_SHA256,
  createService,
  leanRouter,
  mountOnExpress,
  signIdentityHeaders,
  type Identity,
  type LeanRoute,
  type RunningServer,
  type ServiceContext,
} from '@pasar/service-kit';
import { startTestCheckout } from '../../../apps/checkout/test/checkout';
import { startTestVendor } from '../../../apps/vendor/test/vendor';
import { featuresOf, servicesWithLeanRoutes } from './routes';

/** How this test starts a service that declares lean routes: its running context and how to stop it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each service's context differs only in its config and prisma
type AnyContext = ServiceContext<any, any>;

const STARTERS: Record<string, () => Promise<{ ctx: AnyContext; stop: () => Promise<void> }>> = {
  checkout: async () => {
    const t = await startTestCheckout();
    return { ctx: t.checkout, stop: () => t.stop() };
  },
  vendor: async () => {
    const t = await startTestVendor();
    return { ctx: t.vendor, stop: () => t.stop() };
  },
};

const REQUEST_ID = 'req-lean-differential';
const ID = '6f1f7a4e-52a8-4b8e-9a3e-1f2d3c4b5a69';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | null>;
  body: string;
}

/** A request sent byte for byte as given, with node's own client. */
function send(server: RunningServer, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const pick = (name: string) => res.headers[name] ?? null;
        resolve({
          status: res.statusCode ?? 0,
          headers: {
            type: pick('content-type'),
            length: pick('content-length'),
            etag: pick('etag'),
            location: pick('location'),
            retryAfter: pick('retry-after'),
            cacheControl: pick('cache-control'),
            requestId: pick('x-request-id'),
          },
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      res.on('error', reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve({ status: 0, headers: {}, body: err.code }) : reject(err)));
    req.end(body);
  });
}

/** The identity a route's handler expects: its path's audience. */
function identityFor(path: string): Identity {
  const role = path.startsWith('/vendor') ? 'vendor' : path.startsWith('/admin') ? 'admin' : 'customer';
  return { userId: randomUUID(), role, email: `${role}@example.test` };
}

interface Case {
  name: string;
  method?: string;
  path?: string;
  headers: (sign: (path: string, method: string, identity: Identity | null, now?: number) => Record<string, string>) => Record<string, string>;
  body?: Buffer;
  /** Sends the valid request first and adds its ETag as If-None-Match. */
  conditional?: boolean;
  /** The status both must answer, where the case decides it before the handler runs. */
  status?: number;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const nested = (depth: number) => Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

/** The fixed matrix; `target` is the route's path with its parameters filled. */
function matrix(route: LeanRoute, target: string): Case[] {
  const identity = identityFor(route.path);
  const withBody = route.method !== 'GET';
  const validBody = withBody ? json({}) : undefined;
  const jsonType: Record<string, string> = withBody ? { 'content-type': 'application/json' } : {};
  const signed = (sign: Parameters<Case['headers']>[0], path = target, method = route.method) => ({ ...sign(path, method, identity), ...jsonType });
  const bodyRule = (status: number) => (withBody ? status : undefined);
  return [
    { name: 'no identity', headers: () => ({ ...jsonType }), body: validBody, status: 401 },
    {
      name: 'bad signature',
      headers: (sign) => {
        const headers = signed(sign);
        return { ...headers, 'x-pasar-sig': `${headers['x-pasar-sig'].slice(0, -2)}00` };
      },
      body: validBody,
      status: 401,
    },
    { name: 'stale timestamp', headers: (sign) => ({ ...sign(target, route.method, identity, Date.now() - 120_000), ...jsonType }), body: validBody, status: 401 },
    { name: 'wrong content type', headers: (sign) => ({ ...sign(target, route.method, identity), 'content-type': 'text/plain' }), body: Buffer.from('hello'), status: bodyRule(415) },
    { name: 'too large', headers: signed, body: json({ pad: 'x'.repeat(1024 * 1024 + 10) }), status: bodyRule(413) },
    { name: 'too deep', headers: signed, body: nested(200), status: bodyRule(400) },
    { name: 'NUL in the body', headers: signed, body: json({ note: 'a\u0000b' }), status: bodyRule(400) },
    { name: 'NUL in the query', path: `${target}?q=a%00b`, headers: (sign) => signed(sign, `${target}?q=a%00b`), status: 400 },
    ...(route.path.includes(':')
      ? [{ name: 'bad percent-encoding', path: badParam(route), headers: (sign: Parameters<Case['headers']>[0]) => signed(sign, badParam(route)), body: validBody, status: 400 }]
      : []),
    { name: 'valid, then its ETag as If-None-Match', headers: signed, body: validBody, conditional: true },
    { name: 'unknown query', path: `${target}?unknown=1`, headers: (sign) => signed(sign, `${target}?unknown=1`), body: validBody },
  ];
}

const fill = (route: LeanRoute) => `${API_PREFIX}${route.path.replace(/:[A-Za-z0-9_]+/g, ID)}`;
const badParam = (route: LeanRoute) => `${API_PREFIX}${route.path.replace(/:[A-Za-z0-9_]+/g, '%E0%A4%A')}`;

const services = servicesWithLeanRoutes();

test('the lean routes are read from the features, and this test can start every service that has some', () => {
  expect(services).toEqual(expect.arrayContaining(['checkout', 'vendor']));
  expect(services.filter((service) => !STARTERS[service])).toEqual([]);
});

describe.each(services)('%s: lean routes answer as on express', (service) => {
  let stop: () => Promise<void>;
  let routes: LeanRoute[];
  let secret: string;
  let lean: RunningServer;
  let reference: RunningServer;

  beforeAll(async () => {
    const started = await STARTERS[service]();
    stop = started.stop;
    secret = started.ctx.config.IDENTITY_SECRET;
    const router = leanRouter();
    for (const feature of featuresOf(service)) feature.leanRoutes?.(router, started.ctx);
    routes = router.routes;
    const options = { log: pino({ level: 'silent' }), identitySecret: secret };
    [lean, reference] = await Promise.all([
      createService({ ...options, name: `${service}-lean`, leanRoutes: routes, routes: () => undefined }).listen(0),
      createService({ ...options, name: `${service}-express`, routes: (r) => mountOnExpress(r, routes) }).listen(0),
    ]);
  });
  afterAll(async () => {
    await Promise.all([lean?.close(), reference?.close()]);
    await stop?.();
  });

  test('every lean route, every case of the matrix', async () => {
    expect(routes.length).toBeGreaterThan(0);
    const differences: string[] = [];
    for (const route of routes) {
      const target = fill(route);
      for (const c of matrix(route, target)) {
        const method = c.method ?? route.method;
        const path = c.path ?? target;
        // signed over the bytes the case sends, as the gateway signs them
        const bodySha256Of = c.body ? bodySha256(c.body) : EMPTY_BODY_SHA256;
        const sign = (p: string, m: string, identity: Identity | null, now?: number) => signIdentityHeaders(secret, { method: m, path: p, bodySha256: bodySha256Of }, identity, REQUEST_ID, now);
        const headers = c.headers(sign);
        const answers = await Promise.all(
          [lean, reference].map(async (server) => {
            const extra: Record<string, string> = {};
            if (c.conditional) {
              const first = await send(server, method, path, { ...headers, 'x-request-id': REQUEST_ID }, c.body);
              if (typeof first.headers.etag === 'string') extra['if-none-match'] = first.headers.etag;
            }
            return send(server, method, path, { ...headers, ...extra, 'x-request-id': REQUEST_ID }, c.body);
          }),
        );
        const [fromLean, fromExpress] = answers;
        if (c.status !== undefined && fromLean.status !== c.status) differences.push(`${route.method} ${route.path} — ${c.name}: ${fromLean.status}, not ${c.status}`);
        if (fromLean.status >= 500) differences.push(`${route.method} ${route.path} — ${c.name}: ${fromLean.status} ${fromLean.body}`);
        if (JSON.stringify(fromLean) !== JSON.stringify(fromExpress)) {
          differences.push(`${route.method} ${route.path} — ${c.name}:\n  lean    ${JSON.stringify(fromLean)}\n  express ${JSON.stringify(fromExpress)}`);
        }
      }
    }
    expect(differences.join('\n')).toBe('');
  });
});
