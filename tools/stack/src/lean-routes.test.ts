/**
 * Every lean route of every service, read from the services' features (not a hand list), answers
 * a fixed matrix of requests through the lean path exactly as through express: the same routes
 * (registered with the running service's real context: its database and bus) are mounted once
 * as lean routes and once on express alone (`mountOnExpress`), and each case of the shared
 * matrix (testkit differential.ts, also sent to the gateway's raw path) goes to both. Status,
 * every header but Date and the body must be equal.
 */
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
import { DIFFERENTIAL_REQUEST_ID, differencesOf, type DifferentialCase, type DifferentialRoute } from '@pasar/testkit';
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

const ID = '6f1f7a4e-52a8-4b8e-9a3e-1f2d3c4b5a69';

/** The callers of a route: the identity its handler expects (its path's audience), and one of another role. */
interface Callers {
  valid: Identity;
  other: Identity;
}

/** A route's callers, by its path. */
function callersFor(path: string): Callers {
  const role = path.startsWith('/vendor') ? 'vendor' : path.startsWith('/admin') ? 'admin' : 'customer';
  const other = role === 'customer' ? 'vendor' : 'customer';
  return { valid: { userId: randomUUID(), role, email: `${role}@example.test` }, other: { userId: randomUUID(), role: other, email: `${other}@example.test` } };
}

/** A lean route as the matrix sends it: its parameters filled (and, for one case, badly encoded). */
function differentialRoute(route: LeanRoute): DifferentialRoute {
  return {
    label: `${route.method} ${route.path}`,
    method: route.method,
    target: `${API_PREFIX}${route.path.replace(/:[A-Za-z0-9_]+/g, ID)}`,
    ...(route.path.includes(':') ? { badlyEncoded: `${API_PREFIX}${route.path.replace(/:[A-Za-z0-9_]+/g, '%E0%A4%A')}` } : {}),
  };
}

/** The signed identity headers of a case, signed over the method, path and bytes it sends (as the gateway signs them). */
function signedFor(secret: string, callers: Callers, c: DifferentialCase): Record<string, string> {
  if (c.credentials === 'none') return {};
  const identity = c.credentials === 'another role' ? callers.other : callers.valid;
  const target = { method: c.method, path: c.path, bodySha256: c.body ? bodySha256(c.body) : EMPTY_BODY_SHA256 };
  const now = c.credentials === 'expired' ? Date.now() - 120_000 : undefined;
  const headers = signIdentityHeaders(secret, target, identity, DIFFERENTIAL_REQUEST_ID, now);
  // another first hex digit: always a different signature (overwriting the last two with 00 left
  // one in 256 signatures as it was, and that case then passed the identity check)
  const sig = headers['x-pasar-sig'];
  if (c.credentials === 'bad') return { ...headers, 'x-pasar-sig': `${sig[0] === '0' ? '1' : '0'}${sig.slice(1)}` };
  return headers;
}

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
    // each route's caller is its path's audience, the same for every case of the route
    const callers = new Map(routes.map((route) => [differentialRoute(route), callersFor(route.path)]));
    const differences = await differencesOf({
      subject: lean.url,
      reference: reference.url,
      routes: [...callers.keys()],
      credentialsFor: (route, c) => signedFor(secret, callers.get(route) as Callers, c),
    });
    expect(differences.join('\n')).toBe('');
  });
});
