/**
 * Live order tracking through the gateway (server-sent events), with two gateway replicas on one
 * database and NATS namespace: a customer's order stream and a vendor's shipment stream follow an
 * order from payment to delivery on either replica; a Last-Event-ID resume replays the gap from
 * JetStream, or starts over with a snapshot when the gap is too long or pruned; the gates, the
 * per-user limit (shared by both replicas through Redis; per replica when Redis is unreachable),
 * sign-out, and bad input answer before a stream starts.
 */
import { randomUUID } from 'node:crypto';
import { seedB2bDemo, signIn } from '@pasar/stack';
import { freePort, SseClient, waitFor, type SseFrame, type TestBus } from '@pasar/testkit';
import { connectStackBus } from './support/bus';
import { asSession, newShopper, openStore, submit, type E2eStore, type Shopper } from './support/commerce';
import { show, type ApiClient, type Problem } from './support/http';
import { startSecondGateway, type SecondGateway } from './support/second-gateway';
import { API, startE2eStack, withLogs, type E2eStack } from './support/stack';

/** Both replicas count open streams in this Redis (under the stack's own namespace). */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let e2e: E2eStack | undefined;
let testBus: TestBus | undefined;
let store: E2eStore | undefined;
let second: SecondGateway | undefined;
const open: SseClient[] = [];

beforeAll(async () => {
  e2e = await startE2eStack({ env: { gateway: { REDIS_URL } } });
  testBus = await connectStackBus(e2e);
  store = await openStore(e2e, testBus, { basePrice: '12.00', stock: 500 }, 5);
  // replica B: a short heartbeat, a short replay bound, and an upstream timeout shorter than its streams live
  second = await startSecondGateway(e2e, { REDIS_URL, LIVE_HEARTBEAT_MS: '500', LIVE_REPLAY_MAX_MESSAGES: '3', UPSTREAM_TIMEOUT_MS: '2000' });
}, 240_000);

afterEach(() => {
  for (const client of open.splice(0)) client.close();
});

afterAll(async () => {
  await second?.stop();
  await testBus?.bus.close();
  await e2e?.stop();
}, 60_000);

function env(): { e2e: E2eStack; store: E2eStore; b: SecondGateway } {
  if (!e2e || !store || !second) throw new Error('the stack did not start');
  return { e2e, store, b: second };
}

/** Opens a stream as `client` (its cookie) on the gateway at `base`. */
async function stream(base: string, client: ApiClient, path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const cookie = client.jar.header();
  const sse = await SseClient.open(`${base}${API}${path}`, { ...(cookie ? { cookie } : {}), ...headers });
  open.push(sse);
  return sse;
}

/** Opens a stream, retrying while the answer is 429 (a slot given back is free a moment after the stream closed). */
function streamWhenFree(base: string, client: ApiClient, path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return waitFor(async () => {
    const sse = await stream(base, client, path, headers);
    if (sse.status !== 429) return sse;
    sse.close();
    return undefined;
  }, 10_000, 100);
}

/** Expects the answer to be 429 problem+json `too_many_streams`. */
async function expectTooMany(sse: SseClient): Promise<void> {
  expect(sse.status).toBe(429);
  expect(sse.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(((await sse.response.json()) as Problem).code).toBe('too_many_streams');
}

async function placeOrder(shopper: Shopper): Promise<string> {
  const body = { addressId: shopper.addressId, items: [{ productId: env().store.productId, quantity: 1 }], shippingMethodId: env().store.shippingMethodId };
  const placed = await submit(shopper.client, body, randomUUID());
  if (placed.status !== 201) throw new Error(`submit: ${show(placed)}`);
  return placed.body.orderId;
}

async function pay(shopper: Shopper, orderId: string): Promise<void> {
  const initiate = await shopper.client.post(`${API}/checkout/payment/initiate/${orderId}`);
  expect(initiate.status).toBe(200);
}

async function vendorMoves(shipmentId: string, ...moves: ('process' | 'ship' | 'deliver')[]): Promise<void> {
  for (const move of moves) {
    const body = move === 'ship' ? { courier: 'carrier_a', trackingId: `TRK-${randomUUID().slice(0, 8)}` } : undefined;
    // the shipment reaches paid by event: retry the first move until vendor has it
    await waitFor(async () => (await env().store.vendor.post(`${API}/vendor/shipments/${shipmentId}/${move}`, body)).status === 204, 30_000, 200);
  }
}

const kinds = (frames: SseFrame[]) => frames.map((f) => `${f.event}:${(f.data as { status?: string }).status ?? ''}`);
const idParts = (id: string | undefined) => (id ?? '').split('-').map(Number);
const FEED_STREAMS = ['CHECKOUT', 'VENDOR'] as const;

/**
 * The JetStream message (`CHECKOUT:<seq>` or `VENDOR:<seq>`) behind each event of a stream that
 * stood at `from` (its snapshot's id, or the Last-Event-ID it resumed), checking on the way that
 * ids only grow: each event moves exactly one part of the id, its own stream's, forward. Two
 * replicas interleave the streams differently, so the same event may carry another id there;
 * the message behind it is the same.
 */
function messagesOf(frames: SseFrame[], from: string): string[] {
  let before = idParts(from);
  const messages: string[] = [];
  for (const frame of frames) {
    if (frame.event === 'snapshot' || frame.event === 'end') continue;
    const now = idParts(frame.id);
    const moved = FEED_STREAMS.map((_, i) => i).filter((i) => now[i] !== before[i]);
    expect({ after: before.join('-'), id: frame.id, partsMoved: moved.length }).toMatchObject({ partsMoved: 1 });
    expect(now[moved[0]]).toBeGreaterThan(before[moved[0]]);
    messages.push(`${FEED_STREAMS[moved[0]]}:${now[moved[0]]}`);
    before = now;
  }
  return messages;
}

/** A stream's events keyed by the message behind each: what it said, whichever id it had. */
function eventsByMessage(frames: SseFrame[], from: string): Record<string, { event: string; data: unknown }> {
  const events = frames.filter((f) => f.event !== 'snapshot' && f.event !== 'end');
  const messages = messagesOf(frames, from);
  return Object.fromEntries(messages.map((message, i) => [message, { event: events[i].event, data: events[i].data }]));
}

/** The messages of `messages` a client at `id` has not seen yet. */
const after = (messages: string[], id: string | undefined) => {
  const at = idParts(id);
  return messages.filter((message) => {
    const [stream, seq] = message.split(':');
    return Number(seq) > at[FEED_STREAMS.indexOf(stream as (typeof FEED_STREAMS)[number])];
  });
};

describe('live order tracking through the gateway', () => {
  test(
    'bad input, other people’s orders and the role gate answer problem+json before a stream starts',
    withLogs(
      () => e2e,
      async () => {
        const owner = await newShopper(env().e2e, 'live-owner');
        const other = await newShopper(env().e2e, 'live-other');
        const orderId = await placeOrder(owner);
        const gateway = env().e2e.stack.gatewayUrl;

        const cases: [SseClient, number, string][] = [
          [await stream(gateway, owner.client, '/account/orders/not-a-uuid/events'), 400, 'validation_failed'],
          [await stream(gateway, owner.client, `/account/orders/${randomUUID()}/events`), 404, 'not_found'],
          [await stream(gateway, other.client, `/account/orders/${orderId}/events`), 404, 'not_found'],
          [await stream(gateway, env().e2e.client(), `/account/orders/${orderId}/events`), 401, 'unauthenticated'],
          [await stream(gateway, owner.client, '/vendor/shipments/events'), 403, 'forbidden'],
          [await stream(gateway, owner.client, '/b2b/not-a-uuid/orders/events'), 400, 'validation_failed'],
        ];
        for (const [sse, status, code] of cases) {
          expect(sse.status).toBe(status);
          expect(sse.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(((await sse.response.json()) as Problem).code).toBe(code);
        }
        const notMember = await stream(gateway, owner.client, `/b2b/${randomUUID()}/orders/events`);
        expect([403, 404]).toContain(notMember.status);
        expect(notMember.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      },
    ),
  );

  test(
    'the customer’s and the vendor’s streams follow an order on both replicas from payment to delivery, then end',
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stack, store, b } = env();
        const shopper = await newShopper(stack, 'live-flow');
        const orderId = await placeOrder(shopper);

        const onA = await stream(stack.stack.gatewayUrl, shopper.client, `/account/orders/${orderId}/events`);
        const onB = await stream(b.url, shopper.client, `/account/orders/${orderId}/events`);
        const vendorOnB = await stream(b.url, store.vendor, '/vendor/shipments/events');
        for (const sse of [onA, onB, vendorOnB]) {
          expect(sse.status).toBe(200);
          expect(sse.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
          expect(sse.response.headers.get('cache-control')).toBe('no-cache, no-transform');
          expect(sse.response.headers.get('x-accel-buffering')).toBe('no');
          expect(sse.response.headers.get('content-encoding')).toBeNull();
          const [snapshot] = await sse.waitForFrames((f) => f.event === 'snapshot');
          expect(snapshot.data).toMatchObject({ resume: 'no_last_event_id' });
          expect(snapshot.id).toMatch(/^\d+-\d+$/);
          expect(sse.retry).toBe(3000);
        }
        expect((onA.frames[0].data as { state: { id: string; status: string } }).state).toMatchObject({ id: orderId, status: 'pending_payment' });
        const shipmentId = (onA.frames[0].data as { state: { subOrders: { id: string }[] } }).state.subOrders[0].id;

        // longer than replica B's upstream timeout: the stream is the gateway's own, nothing cuts it
        await new Promise((resolve) => setTimeout(resolve, 2500));
        await pay(shopper, orderId);
        await vendorMoves(shipmentId, 'process', 'ship', 'deliver');

        for (const sse of [onA, onB]) {
          await sse.waitForEnd();
          const events = sse.frames.slice(1);
          expect(events.filter((f) => f.event === 'payment')).toHaveLength(1);
          expect(events.filter((f) => f.event === 'payment')[0].data).toMatchObject({ orderId });
          expect(kinds(events)).toEqual(
            expect.arrayContaining(['order.status:paid', 'shipment.status:paid', 'shipment.status:processing', 'shipment.status:shipped', 'shipment.status:delivered', 'order.status:delivered']),
          );
          expect(events.at(-1)?.event).toBe('end');
          expect(events.at(-2)).toMatchObject({ event: 'order.status', data: { status: 'delivered' } });
          expect(new Set(events.map((f) => f.id)).size).toBe(events.length - 1); // end repeats the last id
          expect(JSON.stringify(events)).not.toContain(shopper.userId); // no customer id
        }
        // both replicas sent every event, each from the same JetStream message, whichever id it carries there
        const onBEvents = eventsByMessage(onB.frames, onB.frames[0].id as string);
        expect(onBEvents).toEqual(eventsByMessage(onA.frames, onA.frames[0].id as string));

        // a client of replica B that reconnects to replica A with any id B gave it gets exactly the events it had not seen
        // (after the final event there is nothing left to resume)
        const onBMessages = messagesOf(onB.frames, onB.frames[0].id as string);
        const onBIds = onB.frames.filter((f) => f.event !== 'end').map((f) => f.id as string);
        for (const [seen, id] of onBIds.slice(0, -1).entries()) {
          const resumed = await streamWhenFree(stack.stack.gatewayUrl, shopper.client, `/account/orders/${orderId}/events`, { 'last-event-id': id });
          await resumed.waitForEnd();
          const notSeen = onBMessages.slice(seen);
          expect(eventsByMessage(resumed.frames, id)).toEqual(Object.fromEntries(notSeen.map((message) => [message, onBEvents[message]])));
          expect(resumed.frames.some((f) => f.event === 'snapshot')).toBe(false);
          expect(resumed.frames.at(-1)).toMatchObject({ event: 'end', id: onBIds.at(-1) });
        }
        expect(onB.comments).toBeGreaterThan(0); // replica B's 500 ms heartbeat

        const vendorEvents = await vendorOnB.waitForFrames((f) => f.event === 'shipment.status' && (f.data as { shipmentId: string }).shipmentId === shipmentId, 4);
        expect(kinds(vendorEvents)).toEqual(['shipment.status:paid', 'shipment.status:processing', 'shipment.status:shipped', 'shipment.status:delivered']);
        expect(vendorOnB.ended).toBe(false);
      },
    ),
  );

  test(
    'Last-Event-ID: a gap JetStream holds is replayed without gaps or duplicates; a malformed one is ignored; a long or pruned gap gets a fresh snapshot',
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stack, b } = env();
        const gateway = stack.stack.gatewayUrl;
        const shopper = await newShopper(stack, 'live-resume');
        const orderId = await placeOrder(shopper);
        const path = `/account/orders/${orderId}/events`;
        // a witness on replica A that stays open, and the first stream on replica B, left after the payment
        const witness = await stream(gateway, shopper.client, path);
        const first = await stream(b.url, shopper.client, path);
        const [snapshot] = await first.waitForFrames((f) => f.event === 'snapshot');
        const shipmentId = (snapshot.data as { state: { subOrders: { id: string }[] } }).state.subOrders[0].id;
        await pay(shopper, orderId);
        const [payment] = await first.waitForFrames((f) => f.event === 'payment');
        first.close();

        await vendorMoves(shipmentId, 'process');
        // resumed on the other replica, until both streams have this step's last events (the shipment's, then the order's that follows it)
        const resumed = await stream(gateway, shopper.client, path, { 'last-event-id': payment.id as string });
        expect(resumed.status).toBe(200);
        for (const sse of [resumed, witness]) {
          for (const event of ['shipment.status', 'order.status']) {
            await sse.waitForFrames((f) => f.event === event && (f.data as { status: string }).status === 'processing');
          }
        }
        expect(resumed.frames.some((f) => f.event === 'snapshot' || f.event === 'payment')).toBe(false);
        // exactly the events after the payment, by their JetStream messages: no gap, nothing twice
        const witnessed = eventsByMessage(witness.frames, witness.frames[0].id as string);
        const notSeen = after(Object.keys(witnessed), payment.id);
        const resumedEvents = eventsByMessage(resumed.frames, payment.id as string);
        expect(resumedEvents).toEqual(Object.fromEntries(notSeen.map((message) => [message, witnessed[message]])));
        const firstMessages = messagesOf(first.frames, snapshot.id as string);
        expect(Object.keys(resumedEvents)).toEqual(expect.arrayContaining(firstMessages.slice(first.frames.indexOf(payment))));
        expect(kinds(resumed.frames)).toEqual(expect.arrayContaining(['order.status:paid', 'shipment.status:paid', 'shipment.status:processing', 'order.status:processing']));
        witness.close();
        resumed.close();

        // a malformed Last-Event-ID is ignored: a stream from a fresh snapshot
        const malformed = await stream(gateway, shopper.client, path, { 'last-event-id': 'garbage<>' });
        expect(malformed.status).toBe(200);
        expect((await malformed.waitForFrames((f) => f.event === 'snapshot'))[0].data).toMatchObject({ resume: 'no_last_event_id', state: { status: 'processing' } });

        // replica B replays at most 3 messages: the same id there is too far behind
        const tooLong = await stream(b.url, shopper.client, path, { 'last-event-id': payment.id as string });
        expect((await tooLong.waitForFrames((f) => f.event === 'snapshot'))[0].data).toMatchObject({ resume: 'gap_too_long', state: { status: 'processing' } });

        // the services consumed everything: prune the stream's head, the first missing message with it
        const bus = (testBus as TestBus).bus;
        const jsm = await bus.jsm;
        const checkoutStream = bus.naming.stream('CHECKOUT');
        await waitFor(async () => {
          for await (const consumer of jsm.consumers.list(checkoutStream)) if (consumer.num_pending > 0 || consumer.num_ack_pending > 0) return false;
          return true;
        }, 30_000, 200);
        const [paymentSeq] = idParts(payment.id);
        await jsm.streams.purge(checkoutStream, { seq: paymentSeq + 2 });
        const pruned = await stream(gateway, shopper.client, path, { 'last-event-id': payment.id as string });
        expect((await pruned.waitForFrames((f) => f.event === 'snapshot'))[0].data).toMatchObject({ resume: 'gap_pruned', state: { status: 'processing' } });
      },
    ),
  );

  test(
    'at most five streams per user on both replicas together (3 on A, 2 on B: the sixth is 429 on either); one closed on A frees one for B; signing out closes and frees them all',
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stack, b } = env();
        const a = stack.stack.gatewayUrl;
        const shopper = await newShopper(stack, 'live-limit');
        const orderId = await placeOrder(shopper);
        const path = `/account/orders/${orderId}/events`;
        const onA: SseClient[] = [];
        const onB: SseClient[] = [];
        for (let i = 0; i < 3; i += 1) onA.push(await stream(a, shopper.client, path));
        for (let i = 0; i < 2; i += 1) onB.push(await stream(b.url, shopper.client, path));
        for (const sse of [...onA, ...onB]) expect(sse.status).toBe(200);
        await expectTooMany(await stream(a, shopper.client, path));
        await expectTooMany(await stream(b.url, shopper.client, path));

        // one closed on A: B may open one, and then the user is at five again on both
        onA[0].close();
        const third = await streamWhenFree(b.url, shopper.client, path);
        expect(third.status).toBe(200);
        await third.waitForFrames((f) => f.event === 'snapshot');
        await expectTooMany(await stream(a, shopper.client, path));
        await expectTooMany(await stream(b.url, shopper.client, path));

        // signing out closes the session's streams on both replicas and gives their slots back
        expect((await shopper.client.post(`${API}/auth/sign-out`)).status).toBe(204);
        for (const sse of [...onA.slice(1), ...onB, third]) await sse.waitForEnd(15_000);
        const again = stack.client();
        expect((await again.post(`${API}/auth/sign-in`, { email: shopper.email, password: shopper.password })).status).toBe(200);
        for (const base of [a, a, a, b.url, b.url]) expect((await streamWhenFree(base, again, path)).status).toBe(200);
        await expectTooMany(await stream(a, again, path));
      },
    ),
  );

  test(
    'with Redis unreachable a replica counts its own streams: five open there, the sixth is 429, never a 500',
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stack } = env();
        const closed = `redis://127.0.0.1:${await freePort()}`;
        const c = await startSecondGateway(stack, { REDIS_URL: closed });
        try {
          const shopper = await newShopper(stack, 'live-no-redis');
          const orderId = await placeOrder(shopper);
          const path = `/account/orders/${orderId}/events`;
          // five on replica A (shared count, full) do not count on C, which cannot reach Redis
          for (let i = 0; i < 5; i += 1) expect((await stream(stack.stack.gatewayUrl, shopper.client, path)).status).toBe(200);
          await expectTooMany(await stream(stack.stack.gatewayUrl, shopper.client, path));
          const onC: SseClient[] = [];
          for (let i = 0; i < 5; i += 1) onC.push(await stream(c.url, shopper.client, path));
          for (const sse of onC) {
            expect(sse.status).toBe(200);
            await sse.waitForFrames((f) => f.event === 'snapshot');
          }
          await expectTooMany(await stream(c.url, shopper.client, path));
          onC[0].close();
          expect((await streamWhenFree(c.url, shopper.client, path)).status).toBe(200);
          expect(c.process.lines.snapshot().filter((line) => line.includes('open live streams are counted per gateway instance until it is')).length).toBeGreaterThan(0);
        } finally {
          await c.stop();
        }
      },
    ),
  );

  test(
    'a B2B company’s members follow its orders',
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stack, store, b } = env();
        const password = `Pw-${randomUUID()}`;
        const { companyId } = await seedB2bDemo({ bus: (testBus as TestBus).bus, gatewayUrl: stack.stack.gatewayUrl, admin: stack.stack.admin, password });
        const owner = stack.client();
        expect((await owner.post(`${API}/auth/sign-in`, { email: 'b2b-admin@pasar.local', password })).status).toBe(200);
        const company = await stream(b.url, owner, `/b2b/${companyId}/orders/events`);
        expect(company.status).toBe(200);
        expect((await company.waitForFrames((f) => f.event === 'snapshot'))[0].data).toMatchObject({ resume: 'no_last_event_id', state: [] });

        const staffSession = await signIn(stack.stack.gatewayUrl, 'b2b-staff@pasar.local', password);
        const raised = await staffSession.call('POST', '/b2b/purchase-requests', { productId: store.productId, quantity: 1 });
        expect(raised.status).toBe(201);
        const requests = await asSession(owner).call('GET', `/b2b/${companyId}/purchase-requests?status=pending`);
        const [request] = requests.json as { id: string }[];
        expect((await owner.post(`${API}/b2b/purchase-requests/${request.id}/approve`)).status).toBe(204);
        const submitted = await waitFor(async () => {
          const res = await owner.post<{ orderId: string }>(`${API}/checkout/b2b/submit`, { purchaseRequestIds: [request.id] });
          const code = (res.body as unknown as Problem)?.code ?? '';
          return res.status === 400 && code.startsWith('shipping_') ? undefined : res;
        }, 30_000, 200);
        expect(submitted.status).toBe(201);
        const { orderId } = submitted.body;
        await waitFor(async () => (await owner.get<{ id: string }[]>(`${API}/b2b/${companyId}/orders`)).body.some((o) => o.id === orderId), 30_000, 200);
        await pay({ client: owner, userId: '', addressId: '' }, orderId);

        const payment = await company.waitForFrames((f) => f.event === 'payment');
        // checkout names the company: the stream took the order from the event itself
        expect(payment[0].data).toMatchObject({ orderId, isB2b: true, companyId });
        await company.waitForFrames((f) => f.event === 'order.status' && (f.data as { orderId: string }).orderId === orderId);
      },
    ),
  );
});
