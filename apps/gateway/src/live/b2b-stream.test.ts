/**
 * A B2B company's live stream on a real gateway and real NATS (the test publishes checkout's and
 * vendor's events on the namespace as they do) with a b2b stand-in (signed identity) that answers
 * each member's company order list and counts how often it is read. An event naming the company
 * is taken without reading the list again, one naming another company is neither read for nor
 * sent, and one naming no company (a checkout from before events carried it) is adopted by reading
 * the list again, as every B2B event was before.
 */
import { randomUUID } from 'node:crypto';
import { checkoutOrderPaid, checkoutOrderStatusChanged, vendorShipmentStatusChanged, type EventContract, type EventData } from '@pasar/contracts';
import { createService, type RunningServer } from '@pasar/service-kit';
import { SseClient, TEST_IDENTITY_SECRET, eventEnvelope, publishEvent, shipmentChange, silentLog, waitFor } from '@pasar/testkit';
import { createTestWorld, signUp, uniqueEmail, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

/** The order a frame is about. */
const orderOf = (frame: { data: unknown }) => (frame.data as { orderId?: string }).orderId;

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
  let streamA: SseClient;
  let streamB: SseClient;

  /** Publishes `data` as `source` would (the envelope its outbox writes). */
  async function publish<E extends EventContract>(event: E, source: string, data: EventData<E>): Promise<void> {
    await publishEvent(world.peer.bus, eventEnvelope(event, data, source));
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
  const sent = (stream: SseClient, event: string, orderId: string) => stream.waitForFrames((f) => f.event === event && orderOf(f) === orderId, 1, 10_000);

  const ordersSentOn = (stream: SseClient) => new Set(stream.frames.map(orderOf).filter(Boolean));

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
      const stream = await SseClient.open(`${gateway.url}/api/v1/b2b/${companyId}/orders/events`, { cookie: member.cookie });
      expect(stream.status).toBe(200);
      await stream.waitForFrames((f) => f.event === 'snapshot', 1, 10_000);
      if (companyId === companyA) streamA = stream;
      else streamB = stream;
    }
    expect(Object.fromEntries(reads)).toEqual({ [companyA]: 1, [companyB]: 1 });
  });

  afterAll(async () => {
    streamA?.close();
    streamB?.close();
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
    await publish(vendorShipmentStatusChanged, 'vendor', shipmentChange({ orderId }));
    await sent(streamA, 'shipment.status', orderId);
    expect(streamA.frames.map((f) => f.event)).toEqual(['snapshot', 'payment', 'order.status', 'shipment.status']);

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
