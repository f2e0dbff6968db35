/**
 * The live stream routes on a real gateway, served outside express: the stream answers with the
 * headers every gateway answer carries (request id, helmet's, CORS) and its metric; refusals are
 * problem+json with the same headers; other methods on the paths go on to the proxy as before.
 * Checkout is a service-kit service of the test's (signed identity) answering the snapshot.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createService, type RunningServer } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, silentLog, waitFor } from '@pasar/testkit';
import { createTestWorld, openGet as open, signUp, uniqueEmail, type SignedInUser, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';
import { SESSION_COOKIE } from '../auth/rules';

const ORIGIN = 'http://shop.example';

/** Checkout as far as a stream needs it: the customer's order (404 for any other id), and an echo of anything else. */
async function startCheckout(orders: Map<string, { customerId: string; status: string }>): Promise<RunningServer> {
  return createService({
    name: 'checkout',
    log: silentLog,
    identitySecret: TEST_IDENTITY_SECRET,
    routes: (router) => {
      router.get('/account/orders/:id', (req, res) => {
        const id = String(req.params.id);
        const order = orders.get(id);
        if (order?.customerId !== req.identity?.userId) return void res.status(404).type('application/problem+json').json({ status: 404, code: 'not_found', detail: 'no such order' });
        res.json({ id, status: order?.status, subOrders: [] });
      });
      router.all('/{*rest}', (req, res) => void res.json({ echoed: `${req.method} ${req.originalUrl}` }));
    },
  }).listen(0);
}

describe('live stream routes', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;
  let checkout: RunningServer;
  let customer: SignedInUser;
  const orders = new Map<string, { customerId: string; status: string }>();
  const opened: IncomingMessage[] = [];

  beforeAll(async () => {
    world = await createTestWorld();
    checkout = await startCheckout(orders);
    gateway = await world.start({ CHECKOUT_URL: checkout.url, CORS_ORIGINS: ORIGIN });
    customer = await signUp(gateway.url, uniqueEmail('live-route'));
  });
  afterAll(async () => {
    for (const res of opened) res.destroy();
    await world.close();
    await checkout.close();
  });

  test("an order stream answers with the gateway's headers, the snapshot first, and counts in the request metric", async () => {
    // a delivered order: the snapshot, then `end`, and the gateway closes the stream (a stream the client drops counts nowhere)
    const orderId = randomUUID();
    orders.set(orderId, { customerId: customer.id, status: 'delivered' });
    const { res, body, ended } = await open(`${gateway.url}/api/v1/account/orders/${orderId}/events`, { cookie: customer.cookie, origin: ORIGIN, 'x-request-id': 'live-route-1' });
    opened.push(res);
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-request-id': 'live-route-1',
      'x-content-type-options': 'nosniff',
      'access-control-allow-origin': ORIGIN,
      'access-control-allow-credentials': 'true',
    });
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    await waitFor(ended, 10_000);
    expect(body()).toMatch(/^retry: 3000\n\nevent: snapshot\nid: \d+-\d+\ndata: .*\n\nevent: end\n/);
    expect(body()).toContain(`"state":{"id":"${orderId}","status":"delivered","subOrders":[]}`);

    // the request metric took the stream as it ended, under its route with the id left out
    const route = 'route="/api/v1/account/orders/{id}/events"';
    await waitFor(async () => {
      const metrics = await (await fetch(`${gateway.opsUrl}/metrics`)).text();
      return metrics.split('\n').some((line) => line.startsWith('http_request_duration_seconds_count') && line.includes(route) && line.includes('status="200"'));
    }, 10_000);
  });

  test("a reconnect with the end event's id gets 204 No Content at once (an EventSource stops reconnecting); an earlier id still gets the stream", async () => {
    const orderId = randomUUID();
    orders.set(orderId, { customerId: customer.id, status: 'delivered' });
    const path = `${gateway.url}/api/v1/account/orders/${orderId}/events`;
    const first = await open(path, { cookie: customer.cookie, origin: ORIGIN });
    opened.push(first.res);
    await waitFor(first.ended, 10_000);
    const endId = /event: end\nid: (\d+-\d+)\n/.exec(first.body())?.[1];
    expect(endId).toBeDefined();
    const again = await open(path, { cookie: customer.cookie, origin: ORIGIN, 'last-event-id': endId! });
    opened.push(again.res);
    expect(again.res.statusCode).toBe(204);
    await waitFor(again.ended, 2_000);
    expect(again.body()).toBe('');
    expect(again.res.headers['access-control-allow-origin']).toBe(ORIGIN);
    // an order still under way with the same id: the stream opens (nothing finished)
    orders.set(orderId, { customerId: customer.id, status: 'shipped' });
    const underWay = await open(path, { cookie: customer.cookie, 'last-event-id': endId! });
    opened.push(underWay.res);
    expect(underWay.res.statusCode).toBe(200);
  });

  test('refusals are problem+json with the same headers, before any stream starts', async () => {
    const someone = randomUUID();
    orders.set(someone, { customerId: randomUUID(), status: 'paid' }); // another customer's
    const cases: [string, Record<string, string>, number, string][] = [
      ['/account/orders/not-a-uuid/events', { cookie: customer.cookie }, 400, 'validation_failed'],
      [`/account/orders/${someone}/events`, {}, 401, 'unauthenticated'],
      [`/account/orders/${someone}/events`, { cookie: `${SESSION_COOKIE}=not-a-session` }, 401, 'unauthenticated'],
      ['/vendor/shipments/events', { cookie: customer.cookie }, 403, 'forbidden'],
      [`/account/orders/${someone}/events`, { cookie: customer.cookie }, 404, 'not_found'],
    ];
    for (const [path, headers, status, code] of cases) {
      const answer = await fetch(`${gateway.url}/api/v1${path}`, { headers: { ...headers, origin: ORIGIN } });
      expect({ path, status: answer.status }).toEqual({ path, status });
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.headers.get('x-request-id')).toBeTruthy();
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(((await answer.json()) as { code: string }).code).toBe(code);
    }
  });

  test('another method on a stream path goes on to the proxy as before', async () => {
    const orderId = randomUUID();
    const answer = await fetch(`${gateway.url}/api/v1/account/orders/${orderId}/events`, { method: 'POST', headers: { cookie: customer.cookie } });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ echoed: `POST /api/v1/account/orders/${orderId}/events` });
  });
});
