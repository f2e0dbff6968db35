/**
 * Every route the gateway serves on its raw path (each proxied entry of its route table, read
 * from the table, not a hand list) answers the shared differential matrix (testkit
 * differential.ts, also sent to the services' lean routes) exactly as the gateway's express path
 * does: two gateways on one database and NATS namespace, one as it runs and one started with
 * `rawPath: false`, forward to the same upstreams (service-kit services answering with what they
 * received), and each case goes to both. Status, every header but Date and the body must be equal.
 */
import { identityCreateUser } from '@pasar/contracts';
import { callRpc } from '@pasar/bus';
import { API_PREFIX, createService, type RunningServer } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, differencesOf, silentLog, type DifferentialAnswer, type DifferentialCase, type DifferentialRoute } from '@pasar/testkit';
import type { Request, Response } from 'express';
import { createTestWorld, signIn, signUp, uniqueEmail, type SignedInUser, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';
import { SESSION_COOKIE } from '../auth/rules';
import { abuseLimitTable } from '../http/abuse-limits';
import { livePathOf } from '../live/rules';
import { rawRouteOf } from './raw-path';
import { ROUTE_TABLE, type GatewayRoute, type Upstream } from './route-table';
import { compileRouteTable } from './rules';

const ID = '6f1f7a4e-52a8-4b8e-9a3e-1f2d3c4b5a69';
const ORIGIN = 'http://shop.example';
const UPSTREAMS: readonly Upstream[] = ['checkout', 'b2b', 'vendor', 'admin'];
const PASSWORD = 'correct horse battery';

/** What an upstream received, as it answers it: stable from one request to the next (so a repeat is 304). */
const FORWARDED = ['content-type', 'content-length', 'cookie', 'origin', 'x-forwarded-for', 'x-forwarded-proto', 'x-request-id', 'x-pasar-user-id', 'x-pasar-role', 'x-pasar-email', 'x-pasar-request-id', 'x-pasar-body-sha256'];

/**
 * A domain service as the real ones are built (service-kit: signed identity check, content type,
 * body limit, depth and text rules) that serves GET and POST on every path: a GET answers what it
 * received with a Cache-Control and a Vary of its own (express's ETag and 304), a POST 202 with a
 * Location and a Retry-After. Other methods get its 404.
 */
function startUpstream(name: Upstream): Promise<RunningServer> {
  const publicPaths = ROUTE_TABLE.filter((route) => route.to === name && route.access === 'public').map((route) => `${route.prefix}/*`);
  const echo = (req: Request) => ({
    service: name,
    method: req.method,
    path: req.originalUrl,
    identity: req.identity,
    body: req.body as unknown,
    headers: Object.fromEntries(FORWARDED.map((header) => [header, req.headers[header] ?? null])),
  });
  return createService({
    name,
    log: silentLog,
    identitySecret: TEST_IDENTITY_SECRET,
    publicPaths,
    routes: (router) => {
      router.get('/{*rest}', (req: Request, res: Response) => void res.set('Cache-Control', 'private, max-age=60').vary('Accept-Language').json(echo(req)));
      router.post('/{*rest}', (req: Request, res: Response) => void res.status(202).location(`${req.originalUrl}/status`).set('Retry-After', '5').json(echo(req)));
    },
  }).listen(0);
}

/** The route table's proxied entries: what the raw path serves. */
const proxied = ROUTE_TABLE.filter((entry): entry is GatewayRoute & { to: Upstream } => entry.to !== 'gateway');

/** Each proxied entry as the matrix sends it: a GET and a POST to a path below its prefix. */
const targets = proxied.flatMap((entry) =>
  (['GET', 'POST'] as const).map((method) => ({
    entry,
    route: {
      label: `${method} ${entry.prefix} (${entry.to}, ${entry.access})`,
      method,
      target: `${API_PREFIX}${entry.prefix}/${ID}`,
      badlyEncoded: `${API_PREFIX}${entry.prefix}/%E0%A4%A`,
      isPublic: entry.access === 'public',
    } satisfies DifferentialRoute,
  })),
);

describe("the gateway's raw path answers as its express path", () => {
  let world: TestWorld;
  let upstreams: RunningServer[];
  let raw: GatewayHandle;
  let reference: GatewayHandle;
  let users: Record<'customer' | 'vendor' | 'admin' | 'expired', SignedInUser>;

  beforeAll(async () => {
    world = await createTestWorld();
    upstreams = await Promise.all(UPSTREAMS.map(startUpstream));
    const adminEmail = uniqueEmail('admin');
    const env = {
      ...Object.fromEntries(UPSTREAMS.map((name, i) => [`${name.toUpperCase()}_URL`, upstreams[i].url])),
      CORS_ORIGINS: ORIGIN,
      // administrators come only from the seed
      ADMIN_EMAIL: adminEmail,
      ADMIN_PASSWORD: PASSWORD,
    };
    raw = await world.start(env);
    reference = await world.start(env, { rawPath: false });
    const vendorEmail = uniqueEmail('vendor');
    await callRpc(world.peer.bus, identityCreateUser, { email: vendorEmail, fullName: 'A vendor', role: 'vendor', password: PASSWORD, mustChangePassword: false });
    users = {
      customer: await signUp(raw.url, uniqueEmail('customer'), PASSWORD),
      vendor: await signIn(raw.url, vendorEmail, PASSWORD),
      admin: await signIn(raw.url, adminEmail, PASSWORD),
      expired: await signUp(raw.url, uniqueEmail('expired'), PASSWORD),
    };
    await raw.prisma.session.updateMany({ where: { userId: users.expired.id }, data: { expiresAt: new Date(Date.now() - 60_000) } });
    raw.sessionCache.clear();
    reference.sessionCache.clear();
  });
  afterAll(async () => {
    await world?.close();
    await Promise.all((upstreams ?? []).map((upstream) => upstream.close()));
  });

  test('the raw path serves every proxied entry of the route table, and only those', () => {
    expect(proxied.length).toBeGreaterThan(0);
    expect(new Set(proxied.map((route) => route.to))).toEqual(new Set(UPSTREAMS));
    const compiled = compileRouteTable(ROUTE_TABLE);
    const limited = abuseLimitTable(raw.config);
    const servedHere = (path: string) => livePathOf(path) !== undefined;
    const taken = (method: string, target: string) => rawRouteOf(method, target, compiled, limited, servedHere)?.prefix;
    for (const { entry, route } of targets) expect({ route: route.label, taken: taken(route.method, route.target) }).toEqual({ route: route.label, taken: entry.prefix });
    for (const route of ROUTE_TABLE.filter((entry) => entry.to === 'gateway')) expect(taken('GET', `${API_PREFIX}${route.prefix}/${ID}`)).toBeUndefined();
  });

  test('every proxied entry, every case of the matrix', async () => {
    const access = new Map<DifferentialRoute, GatewayRoute['access']>(targets.map(({ entry, route }) => [route, entry.access]));
    /** The session cookie of a case: the route's audience, another role, none, a malformed one, an expired one. */
    const cookieFor = (route: DifferentialRoute, c: DifferentialCase): Record<string, string> => {
      const audience = access.get(route);
      const valid = audience === 'vendor' ? users.vendor : audience === 'admin' ? users.admin : users.customer;
      const other = audience === 'vendor' ? users.customer : users.vendor;
      const cookie = {
        valid: valid.cookie,
        'another role': other.cookie,
        none: undefined,
        bad: `${SESSION_COOKIE}=not-a-token`,
        expired: users.expired.cookie,
      }[c.credentials];
      return cookie ? { cookie } : {};
    };
    /**
     * Where the upstream answers, it answers: 200 to a GET or HEAD, 304 to the GET repeated with its
     * ETag, 202 to a POST. An answer that allows the caller's origin varies by Origin, whatever the
     * upstream's own Vary.
     */
    const reachesUpstream = (_route: DifferentialRoute, c: DifferentialCase, answer: DifferentialAnswer) => {
      const vary = String(answer.headers.vary ?? '').toLowerCase().split(/\s*,\s*/);
      if (answer.headers['access-control-allow-origin'] && !vary.includes('origin') && !vary.includes('*')) return `allows the origin, Vary "${answer.headers.vary}"`;
      if (!c.handled) return undefined;
      const expected = c.method === 'POST' ? 202 : c.conditional ? 304 : 200;
      return answer.status === expected ? undefined : `${answer.status}, not ${expected} from the upstream: ${answer.body}`;
    };
    const differences = await differencesOf({
      subject: raw.url,
      reference: reference.url,
      routes: targets.map(({ route }) => route),
      credentialsFor: cookieFor,
      extraHeaders: { origin: ORIGIN },
      check: reachesUpstream,
    });
    expect(differences.join('\n')).toBe('');
  });
});
