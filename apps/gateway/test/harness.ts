import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { consume, type RunningConsumer } from '@pasar/bus';
import type { EventContract, EventData, EventEnvelope } from '@pasar/contracts';
import { createTestSchema, type TestSchema } from '@pasar/db';
import { createService, type RunningServer } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, createTestBus, freePort, silentLog, waitFor, type TestBus } from '@pasar/testkit';
import { parseSetCookie, type SetCookie } from 'cookie';
import type { Router } from 'express';
import request from 'supertest';
import { startGateway, type GatewayHandle, type GatewayOverrides } from '../src/app';
import { SESSION_COOKIE } from '../src/auth/rules';
import { loadGatewayConfig } from '../src/config';

export type Env = Record<string, string | undefined>;

/**
 * A stand-in checkout instance for the proxy's tests: a real service (signed identity, body
 * checks) on `port` (0: a free one) with only `routes`; the catalog and the payment notification
 * are public, the notification takes a form, as in checkout.
 */
export function startCheckoutStandIn(routes: (router: Router) => void, port = 0): Promise<RunningServer> {
  const service = createService({
    name: 'checkout',
    log: silentLog,
    identitySecret: TEST_IDENTITY_SECRET,
    publicPaths: ['/catalog/products', '/payments/notify'],
    formPaths: ['/payments/notify'],
    routes,
  });
  return service.listen(port);
}

/** A database schema and a NATS namespace for one test file; gateways started on it share both. */
export interface TestWorld {
  db: TestSchema;
  /** A second connection on the namespace: consumes events and calls rpcs as another service would. */
  peer: TestBus;
  gateways: GatewayHandle[];
  /** Test consumers (collectEvents), stopped on close even when a test failed before stopping them. */
  consumers: RunningConsumer[];
  /** Starts a gateway (port 0) on this world; extra env overrides the defaults, `overrides` the silent log. */
  start(env?: Env, overrides?: GatewayOverrides): Promise<GatewayHandle>;
  close(): Promise<void>;
}

export async function createTestWorld(): Promise<TestWorld> {
  const db = createTestSchema(undefined, 'gateway');
  const peer = await createTestBus('peer');
  const gateways: GatewayHandle[] = [];
  const consumers: RunningConsumer[] = [];
  // Upstreams a test does not set point at a free port, never at the default 4001-4005 where a
  // running stack (npm start) would answer instead.
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  const upstreams = { CHECKOUT_URL: nowhere, B2B_URL: nowhere, VENDOR_URL: nowhere, ADMIN_URL: nowhere };
  return {
    db,
    peer,
    gateways,
    consumers,
    async start(env: Env = {}, overrides: GatewayOverrides = {}) {
      const config = loadGatewayConfig({
        NODE_ENV: 'test',
        PORT: '0',
        DATABASE_URL: db.databaseUrl,
        NATS_NAMESPACE: peer.namespace,
        IDENTITY_SECRET: TEST_IDENTITY_SECRET,
        LOG_LEVEL: 'silent',
        ...upstreams,
        METRICS_PORT: '0',
        ...env,
      });
      const gateway = await startGateway(config, { log: silentLog, ...overrides });
      gateways.push(gateway);
      return gateway;
    },
    async close() {
      for (const consumer of consumers.splice(0)) await consumer.stop();
      for (const gateway of gateways.splice(0)) await gateway.close();
      await peer.close();
      await db.drop();
    },
  };
}

export interface SignedInUser {
  id: string;
  email: string;
  /** `pasar.session_token=<token>`, ready for a Cookie header. */
  cookie: string;
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}@example.test`;
}

/** The session cookie a response set (parsed), if any. */
export function sessionCookieOf(res: request.Response): SetCookie | undefined {
  const header = res.headers['set-cookie'] as unknown;
  const lines = Array.isArray(header) ? (header as string[]) : typeof header === 'string' ? [header] : [];
  return lines.map((line) => parseSetCookie(line)).find((c) => c.name === SESSION_COOKIE);
}

export async function signUp(url: string, email = uniqueEmail(), password = 'correct horse battery', fullName = 'Test User'): Promise<SignedInUser> {
  const res = await request(url).post('/api/v1/auth/sign-up').send({ email, password, fullName }).expect(201);
  const cookie = sessionCookieOf(res);
  if (!cookie) throw new Error('sign-up set no session cookie');
  return { id: (res.body as { user: { id: string } }).user.id, email, cookie: `${SESSION_COOKIE}=${cookie.value}` };
}

export async function signIn(url: string, email: string, password: string): Promise<SignedInUser> {
  const res = await request(url).post('/api/v1/auth/sign-in').send({ email, password }).expect(200);
  const cookie = sessionCookieOf(res);
  if (!cookie) throw new Error('sign-in set no session cookie');
  return { id: (res.body as { user: { id: string } }).user.id, email, cookie: `${SESSION_COOKIE}=${cookie.value}` };
}

/** Collects the events of one type published on the namespace (a durable consumer of its own). */
export function collectEvents<E extends EventContract>(
  world: TestWorld,
  event: E,
): { events: EventEnvelope<EventData<E>>[]; consumer: RunningConsumer; waitFor(match: (data: EventData<E>) => boolean): Promise<EventEnvelope<EventData<E>>> } {
  const events: EventEnvelope<EventData<E>>[] = [];
  const consumer = consume(world.peer.bus, {
    name: `test_${randomUUID().slice(0, 8)}`,
    event,
    handler: async (data, ctx) => {
      events.push({ ...ctx.envelope, data });
    },
  });
  world.consumers.push(consumer);
  return {
    events,
    consumer,
    waitFor: (match) => waitFor(() => events.find((e) => match(e.data)), 15_000),
  };
}

/** A GET that resolves with the response once its head is in (a live stream's); `body()` is what came so far, `ended()` whether the body is complete. */
export function openGet(url: string, headers: Record<string, string>): Promise<{ res: IncomingMessage; body: () => string; ended: () => boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      let text = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (ended = true));
      resolve({ res, body: () => text, ended: () => ended });
    });
    req.on('error', reject);
    req.end();
  });
}
