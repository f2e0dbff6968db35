/**
 * A B2B company's live stream on a real gateway and real NATS (the test publishes checkout's and
 * vendor's events on the namespace as they do) with a b2b stand-in (signed identity) that answers
 * each member's company order list and counts how often it is read. An event naming the company
 * is taken without reading the list again, one naming another company is neither read for nor
 * sent, and one naming no company (a checkout from before events carried it) is adopted by reading
 * the list again, as every B2B event was before.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { checkoutOrderPaid, checkoutOrderStatusChanged, vendorShipmentStatusChanged, type EventContract, type EventData } from '@pasar/contracts';
import { createService, type RunningServer } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, silentLog, waitFor } from '@pasar/testkit';
import { createTestWorld, openGet, signUp, uniqueEmail, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

interface Frame {
  event: string;
  data: Record<string, unknown>;
}

/** The events of a stream's body so far. */
const framesOf = (body: string): Frame[] =>
  body
    .split('\n\n')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      return event && data ? { event, data: JSON.parse(data) as Record<string, unknown> } : undefined;
    })
    .filter((frame): frame is Frame => frame !== undefined);

/** b2b as far as a company stream needs it: a member's company order list (403 for anyone else), its reads counted per company. */
function startB2b(members: Map<string, string>, orders: Map<string, string[]>, reads: Map<string, number>): Promise<RunningServer> {
  return createService({
    name: 'b2b',
    log: silentLog,
    identitySecret: TEST_IDENTITY_SECRET,
    routes: (router) => {
      router.get('/b2b/:companyId/orders', (req, res) => {
        const companyId = String(req.params.companyId);
        if (members.get(req.identity?.userId ?? '') !== companyId) return void res.status(403).type('application/problem+json').json({ status: 403, code: 'forbidden', detail: 'not a member' });
        reads.set(companyId, (reads.get(companyId) ?? 0) + 1);
        res.json((orders.get(companyId) ?? []).map((id) => ({ id, status: 'paid' })));
      });
    },
  }).listen(0);
}

describe('a B2B company stream', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;
  let b2b: RunningServer;
  const companyA = randomUUID();
  const companyB = randomUUID();
  const members = new Map<string, string>();
  const orders = new Map<string, string[]>([
    [companyA, []],
    [companyB, []],
  ]);
  const reads = new Map<string, number>();
  const opened: IncomingMessage[] = [];
  let streamA: { body: () => string };
  let streamB: { body: () => string };

  /** Publishes `data` as `source` would (the envelope its outbox writes). */
  async function publish<E extends EventContract>(event: E, source: string, data: EventData<E>): Promise<void> {
    const envelope = { id: randomUUID(), type: event.type, source, occurredAt: new Date().toISOString(), version: 1, data };
    await world.peer.bus.js.publish(world.peer.bus.naming.eventSubject(envelope), JSON.stringify(envelope), { msgID: envelope.id });
  }

  const paid = (orderId: string, company: { companyId?: string | null }): EventData<typeof checkoutOrderPaid> => ({
    orderId,
    shortId: 'PSR-B2B001',
    customerId: randomUUID(),
    isB2b: true,
    ...company,
    subOrderIds: [],
    total: '10.00',
    paidAt: new Date().toISOString(),
  });

  /** Waits for `stream` to have sent `event` of `orderId`. */
  const sent = (stream: { body: () => string }, event: string, orderId: string) =>
    waitFor(() => framesOf(stream.body()).some((f) => f.event === event && f.data.orderId === orderId), 10_000);

  const ordersSentOn = (stream: { body: () => string }) => new Set(framesOf(stream.body()).map((f) => f.data.orderId).filter(Boolean));

  beforeAll(async () => {
    world = await createTestWorld();
    b2b = await startB2b(members, orders, reads);
    gateway = await world.start({ B2B_URL: b2b.url });
    const memberA = await signUp(gateway.url, uniqueEmail('b2b-live-a'));
    const memberB = await signUp(gateway.url, uniqueEmail('b2b-live-b'));
    members.set(memberA.id, companyA).set(memberB.id, companyB);
    for (const [member, companyId] of [
      [memberA, companyA],
      [memberB, companyB],
    ] as const) {
      const stream = await openGet(`${gateway.url}/api/v1/b2b/${companyId}/orders/events`, { cookie: member.cookie });
      opened.push(stream.res);
      expect(stream.res.statusCode).toBe(200);
      await waitFor(() => stream.body().includes('event: snapshot'), 10_000);
      if (companyId === companyA) streamA = stream;
      else streamB = stream;
    }
    expect(Object.fromEntries(reads)).toEqual({ [companyA]: 1, [companyB]: 1 });
  });

  afterAll(async () => {
    for (const res of opened) res.destroy();
    await world.close();
    await b2b.close();
  });

  test("takes its company's new order from the events, its shipments too, without reading the order list again; another company's stream reads nothing and gets nothing", async () => {
    // b2b lists the order too (it consumed checkout.order.created): the stream need not ask
    const orderId = randomUUID();
    orders.get(companyA)?.push(orderId);
    await publish(checkoutOrderPaid, 'checkout', paid(orderId, { companyId: companyA }));
    await publish(checkoutOrderStatusChanged, 'checkout', { orderId, isB2b: true, companyId: companyA, status: 'paid', previousStatus: 'pending_payment', changedAt: new Date().toISOString() });
    await sent(streamA, 'order.status', orderId);
    // vendor's shipment events name no company: the stream follows them on the order it adopted
    await publish(vendorShipmentStatusChanged, 'vendor', {
      shipmentId: randomUUID(),
      orderId,
      storeId: randomUUID(),
      status: 'processing',
      previousStatus: 'paid',
      courier: null,
      trackingId: null,
      trackingUrl: null,
      shippedAt: null,
      deliveredAt: null,
      cancelledAt: null,
      reason: null,
      changedAt: new Date().toISOString(),
    });
    await sent(streamA, 'shipment.status', orderId);
    expect(framesOf(streamA.body()).map((f) => f.event)).toEqual(['snapshot', 'payment', 'order.status', 'shipment.status']);

    // company B's stream heard company A's events before this one of its own: it sent none of them
    const ownOrder = randomUUID();
    orders.get(companyB)?.push(ownOrder);
    await publish(checkoutOrderPaid, 'checkout', paid(ownOrder, { companyId: companyB }));
    await sent(streamB, 'payment', ownOrder);
    expect(ordersSentOn(streamB)).toEqual(new Set([ownOrder]));
    expect(ordersSentOn(streamA)).toEqual(new Set([orderId]));
    expect(Object.fromEntries(reads)).toEqual({ [companyA]: 1, [companyB]: 1 });
  });

  test('an event naming no company (an older checkout) is adopted by reading the order list again, on every company stream', async () => {
    const orderId = randomUUID();
    orders.get(companyA)?.push(orderId);
    await publish(checkoutOrderPaid, 'checkout', paid(orderId, {}));
    await sent(streamA, 'payment', orderId);
    await waitFor(() => reads.get(companyB) === 2, 10_000);
    expect(reads.get(companyA)).toBe(2);

    // a B2B order placed before checkout recorded companies: its events say null, read the same way
    const older = randomUUID();
    orders.get(companyB)?.push(older);
    await publish(checkoutOrderPaid, 'checkout', paid(older, { companyId: null }));
    await sent(streamB, 'payment', older);
    await waitFor(() => reads.get(companyA) === 3, 10_000);
    const marker = randomUUID();
    orders.get(companyA)?.push(marker);
    await publish(checkoutOrderPaid, 'checkout', paid(marker, { companyId: companyA }));
    await sent(streamA, 'payment', marker);
    expect(ordersSentOn(streamA).has(older)).toBe(false);
    expect(ordersSentOn(streamB).has(orderId)).toBe(false);
    expect(Object.fromEntries(reads)).toEqual({ [companyA]: 3, [companyB]: 3 });
  });
});
