import { randomUUID } from 'node:crypto';
import { callRpc, RpcRefusal, serveRpc } from '@pasar/bus';
import {
  b2bReleaseRequests,
  b2bReserveRequests,
  checkoutB2bReservationOrder,
  checkoutCancelB2bOrder,
  checkoutOrderDetails,
  placedOrder,
  type RpcRequest,
} from '@pasar/contracts';
import type { Subscription } from '@nats-io/transport-node';
import request from 'supertest';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import type { PrismaClient } from '../generated/prisma/client';
import { reservationIdOf } from './b2b-submit';
import { as, seedAddress, seedProduct, seedShippingMethod, seedStore, SEEDED_ADDRESS, stockOf } from './test-fixtures';

let t: TestCheckout;
let prisma: PrismaClient;

/**
 * b2b as a real NATS responder: approved requests it holds per reservation, atomically (one
 * in-process map), and every call it got.
 */
class FakeB2b {
  readonly requests = new Map<
    string,
    { productId: string; variantId: string | null; quantity: number; unitPrice: string; status: 'pending' | 'approved' | 'checkout_pending'; reservationId: string | null }
  >();
  readonly reserveCalls: RpcRequest<typeof b2bReserveRequests>[] = [];
  readonly releaseCalls: string[] = [];
  readonly releaseRequests: RpcRequest<typeof b2bReleaseRequests>[] = [];
  refuseWith: string | null = null;
  private subscriptions: Subscription[] = [];

  serve() {
    this.subscriptions = [
      serveRpc(t.peer.bus, b2bReserveRequests, async (input) => {
        this.reserveCalls.push(input);
        if (this.refuseWith) throw new RpcRefusal(this.refuseWith, `refused: ${this.refuseWith}`);
        const rows = input.purchaseRequestIds.map((id) => this.requests.get(id));
        if (rows.some((r) => !r)) throw new RpcRefusal('not_found', 'a purchase request is not in your company');
        const repeat = rows.every((r) => r!.reservationId === input.reservationId);
        if (!repeat && rows.some((r) => r!.status !== 'approved')) throw new RpcRefusal('not_approved', 'held by another checkout');
        for (const r of rows) Object.assign(r!, { status: 'checkout_pending', reservationId: input.reservationId });
        const reserved = repeat ? [] : input.purchaseRequestIds;
        return {
          reservationId: input.reservationId,
          companyId: COMPANY_ID,
          companyName: 'Syarikat Maju',
          buyerTin: 'C12345678',
          companyAddress: COMPANY_ADDRESS,
          lines: input.purchaseRequestIds.map((id) => ({ purchaseRequestId: id, ...pick(this.requests.get(id)!) })),
          reserved,
        };
      }),
      serveRpc(t.peer.bus, b2bReleaseRequests, async (input) => {
        const { reservationId, purchaseRequestIds, repriced = [] } = input;
        this.releaseCalls.push(reservationId);
        this.releaseRequests.push(input);
        let released = 0;
        for (const id of purchaseRequestIds) {
          const r = this.requests.get(id);
          if (r && r.reservationId === reservationId && r.status === 'checkout_pending') {
            const newPrice = repriced.find((p) => p.purchaseRequestId === id)?.unitPrice;
            Object.assign(r, newPrice ? { status: 'pending', unitPrice: newPrice, reservationId: null } : { status: 'approved', reservationId: null });
            released += 1;
          }
        }
        return { released };
      }),
    ];
  }

  stop() {
    for (const sub of this.subscriptions) sub.unsubscribe();
  }

  /** An approved request, at the product's catalog price unless told (the approved snapshot). */
  approved(product: { id: string; basePrice: { toFixed(digits: number): string } }, quantity: number, unitPrice = product.basePrice.toFixed(2)): string {
    const id = randomUUID();
    this.requests.set(id, { productId: product.id, variantId: null, quantity, unitPrice, status: 'approved', reservationId: null });
    return id;
  }
}

const pick = ({ productId, variantId, quantity, unitPrice }: { productId: string; variantId: string | null; quantity: number; unitPrice: string }) => ({
  productId,
  variantId,
  quantity,
  unitPrice,
});
const COMPANY_ID = randomUUID();
const COMPANY_ADDRESS = { fullName: 'Aisyah Rahman', phone: '+60123456789', addressLine1: '12 Jalan Industri', addressLine2: null, city: 'Shah Alam', postcode: '40000', state: 'Selangor' };

let b2b: FakeB2b;

beforeAll(async () => {
  t = await startTestCheckout();
  prisma = t.checkout.prisma;
  b2b = new FakeB2b();
  b2b.serve();
});
afterAll(async () => {
  b2b?.stop();
  await t?.stop();
});

const submit = (userId: string, body: Record<string, unknown>, idempotencyKey?: string) => {
  const req = request(t.checkout.url).post('/api/v1/checkout/b2b/submit').set(as('customer', userId));
  return (idempotencyKey ? req.set('Idempotency-Key', idempotencyKey) : req).send(body);
};

/** Two stores, each with a flat shipping method and a product. */
async function catalog() {
  const storeA = await seedStore(prisma, 'Store A');
  const storeB = await seedStore(prisma, 'Store B');
  await seedShippingMethod(prisma, storeA, { rateConfig: { rate: 6 } });
  await seedShippingMethod(prisma, storeB, { rateConfig: { rate: 4 } });
  const chair = await seedProduct(prisma, { storeId: storeA, name: 'Chair', basePrice: '249.90', stock: 10 });
  const paper = await seedProduct(prisma, { storeId: storeB, name: 'Paper', basePrice: '12.35', stock: 100 });
  return { storeA, storeB, chair, paper };
}

test('approved requests become one B2B order: is_b2b, the company and its TIN, company address, one sub-order per store, request ids in the event', async () => {
  const c = await catalog();
  const a = b2b.approved(c.chair, 2);
  const b = b2b.approved(c.paper, 3);
  const buyer = randomUUID();
  const res = await submit(buyer, { purchaseRequestIds: [a, b] }).expect(201);
  const placed = placedOrder.parse(res.body);
  // 2 × 249.90 + 3 × 12.35 = 536.85; shipping 6 + 4
  expect(placed).toMatchObject({ status: 'pending_payment', subtotal: '536.85', shippingTotal: '10.00', total: '546.85' });
  const order = await prisma.order.findUniqueOrThrow({ where: { id: placed.orderId }, include: { subOrders: true } });
  expect(order).toMatchObject({ customerId: buyer, isB2b: true, companyId: COMPANY_ID, buyerTin: 'C12345678', shipAddressLine1: '12 Jalan Industri', shipFullName: 'Aisyah Rahman' });
  expect([...order.purchaseRequestIds].sort()).toEqual([a, b].sort());
  expect(order.subOrders.map((s) => s.storeId).sort()).toEqual([c.storeA, c.storeB].sort());
  expect(await stockOf(prisma, c.chair.id)).toBe(8);
  const [event] = await prisma.outbox.findMany({ where: { type: 'checkout.order.created', payload: { path: ['data', 'orderId'], equals: placed.orderId } } });
  expect(event.payload).toMatchObject({ data: { isB2b: true, buyerTin: 'C12345678', purchaseRequestIds: expect.arrayContaining([a, b]) } });
  expect(b2b.releaseCalls).not.toContain(b2b.reserveCalls.at(-1)?.reservationId);
});

test("an addressId delivers to the caller's address; someone else's address is 404 and the reservation is released", async () => {
  const c = await catalog();
  const buyer = randomUUID();
  const addressId = await seedAddress(prisma, buyer);
  const res = await submit(buyer, { purchaseRequestIds: [b2b.approved(c.chair, 1)], addressId }).expect(201);
  const order = await prisma.order.findUniqueOrThrow({ where: { id: res.body.orderId } });
  expect(order).toMatchObject({ shipAddressLine1: SEEDED_ADDRESS.addressLine1, shipCity: SEEDED_ADDRESS.city });

  const id = b2b.approved(c.chair, 1);
  const foreign = await seedAddress(prisma, randomUUID());
  await submit(buyer, { purchaseRequestIds: [id], addressId: foreign }).expect(404);
  expect(b2b.releaseCalls).toContain(b2b.reserveCalls.at(-1)?.reservationId);
  expect(b2b.requests.get(id)?.status).toBe('approved');
});

test('placing fails (not enough stock): 400, nothing written, the reservation released once', async () => {
  const c = await catalog();
  const id = b2b.approved(c.chair, 11);
  const before = await prisma.order.count();
  const res = await submit(randomUUID(), { purchaseRequestIds: [id] }).expect(400);
  expect(res.body.code).toBe('insufficient_stock');
  expect(await prisma.order.count()).toBe(before);
  const reservationId = b2b.reserveCalls.at(-1)!.reservationId;
  expect(b2b.releaseCalls.filter((r) => r === reservationId)).toHaveLength(1);
  expect(b2b.requests.get(id)?.status).toBe('approved');
});

test('a price changed since approval: 409 price_changed listing each changed request; nothing written; changed requests pending at the new price, the others approved', async () => {
  const c = await catalog();
  const buyer = randomUUID();
  const raised = b2b.approved(c.chair, 2, '239.90'); // approved at 239.90, the catalog asks 249.90 now
  const lowered = b2b.approved(c.paper, 3, '13.00'); // approved at 13.00, the catalog asks 12.35 now
  const unchanged = b2b.approved(c.paper, 1);
  const orders = await prisma.order.count();
  const res = await submit(buyer, { purchaseRequestIds: [raised, lowered, unchanged] }, 'b2b-key-price').expect(409);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status: 409, code: 'price_changed' });
  expect(res.body.errors).toHaveLength(2);
  expect(res.body.errors).toEqual(
    expect.arrayContaining([
      { path: ['purchaseRequestIds', raised], code: 'price_changed', message: 'approved at 239.90, now 249.90', approvedPrice: '239.90', currentPrice: '249.90' },
      { path: ['purchaseRequestIds', lowered], code: 'price_changed', message: 'approved at 13.00, now 12.35', approvedPrice: '13.00', currentPrice: '12.35' },
    ]),
  );
  // nothing written: no order, no stock taken, no reservation recorded
  expect(await prisma.order.count()).toBe(orders);
  expect(await stockOf(prisma, c.chair.id)).toBe(10);
  expect(await stockOf(prisma, c.paper.id)).toBe(100);
  const reservationId = reservationIdOf(buyer, 'b2b-key-price');
  expect(await prisma.b2bReservation.findUnique({ where: { reservationId } })).toBeNull();
  // one release of everything reserved, the changed ones repriced
  const releases = b2b.releaseRequests.filter((r) => r.reservationId === reservationId);
  expect(releases).toHaveLength(1);
  expect([...releases[0].purchaseRequestIds].sort()).toEqual([raised, lowered, unchanged].sort());
  expect(releases[0].repriced).toEqual(
    expect.arrayContaining([
      { purchaseRequestId: raised, unitPrice: '249.90' },
      { purchaseRequestId: lowered, unitPrice: '12.35' },
    ]),
  );
  expect(b2b.requests.get(raised)).toMatchObject({ status: 'pending', unitPrice: '249.90', reservationId: null });
  expect(b2b.requests.get(lowered)).toMatchObject({ status: 'pending', unitPrice: '12.35', reservationId: null });
  expect(b2b.requests.get(unchanged)).toMatchObject({ status: 'approved', unitPrice: '12.35', reservationId: null });

  // approved again at the new prices: the same key now places the order at them
  for (const id of [raised, lowered]) b2b.requests.get(id)!.status = 'approved';
  const placed = placedOrder.parse((await submit(buyer, { purchaseRequestIds: [raised, lowered, unchanged] }, 'b2b-key-price').expect(201)).body);
  // 2 × 249.90 + 4 × 12.35 = 549.20; shipping 6 + 4
  expect(placed).toMatchObject({ subtotal: '549.20', total: '559.20' });
  const items = await prisma.orderItem.findMany({ where: { orderId: placed.orderId } });
  expect(items.map((i) => i.unitPrice.toFixed(2)).sort()).toEqual(['12.35', '249.90']);
});

test('a variant request is held to the variant price, not the base price', async () => {
  const store = await seedStore(prisma, 'Store V');
  await seedShippingMethod(prisma, store, { rateConfig: { rate: 5 } });
  const desk = await seedProduct(prisma, { storeId: store, name: 'Desk', basePrice: '300.00', stock: 5, variants: [{ name: 'Oak', priceOverride: '350.00', stock: 5 }] });
  const oak = desk.variants[0];
  const atBase = randomUUID();
  b2b.requests.set(atBase, { productId: desk.id, variantId: oak.id, quantity: 1, unitPrice: '300.00', status: 'approved', reservationId: null });
  const res = await submit(randomUUID(), { purchaseRequestIds: [atBase] }).expect(409);
  expect(res.body.errors).toEqual([expect.objectContaining({ approvedPrice: '300.00', currentPrice: '350.00' })]);
  const atOverride = randomUUID();
  b2b.requests.set(atOverride, { productId: desk.id, variantId: oak.id, quantity: 1, unitPrice: '350.00', status: 'approved', reservationId: null });
  await submit(randomUUID(), { purchaseRequestIds: [atOverride] }).expect(201);
});

test.each([
  ['not_found', 404],
  ['forbidden', 403],
  ['not_approved', 409],
  ['tax_incomplete', 400],
])('b2b refusing with %s answers %i and places nothing', async (code, status) => {
  const c = await catalog();
  b2b.refuseWith = code;
  try {
    const before = await prisma.order.count();
    const res = await submit(randomUUID(), { purchaseRequestIds: [b2b.approved(c.chair, 1)] }).expect(status);
    expect(res.body.code).toBe(code);
    expect(await prisma.order.count()).toBe(before);
  } finally {
    b2b.refuseWith = null;
  }
});

test('Idempotency-Key: the reservation id is derived from the caller and the key; a retry answers the first order', async () => {
  const c = await catalog();
  const buyer = randomUUID();
  const body = { purchaseRequestIds: [b2b.approved(c.paper, 1)] };
  const first = await submit(buyer, body, 'b2b-key-1').expect(201);
  expect(b2b.reserveCalls.at(-1)?.reservationId).toBe(reservationIdOf(buyer, 'b2b-key-1'));
  const second = await submit(buyer, body, 'b2b-key-1').expect(201);
  expect(second.body.orderId).toBe(first.body.orderId);
  expect(reservationIdOf(buyer, 'b2b-key-2')).not.toBe(reservationIdOf(buyer, 'b2b-key-1'));
  expect(reservationIdOf(randomUUID(), 'b2b-key-1')).not.toBe(reservationIdOf(buyer, 'b2b-key-1'));
});

test('Idempotency-Key: a retry after the requests were confirmed answers the first order without reserving again; another body 409', async () => {
  const c = await catalog();
  const buyer = randomUUID();
  const body = { purchaseRequestIds: [b2b.approved(c.paper, 1)] };
  const first = await submit(buyer, body, 'b2b-key-confirmed').expect(201);
  const calls = b2b.reserveCalls.length;
  b2b.refuseWith = 'not_approved'; // as b2b would answer once the requests are paid
  try {
    const retry = await submit(buyer, body, 'b2b-key-confirmed').expect(201);
    expect(retry.body.orderId).toBe(first.body.orderId);
    expect(b2b.reserveCalls.length).toBe(calls);
    const other = await submit(buyer, { purchaseRequestIds: [randomUUID()] }, 'b2b-key-confirmed').expect(409);
    expect(other.body.code).toBe('idempotency_key_reused');
  } finally {
    b2b.refuseWith = null;
  }
});

test('two concurrent submits of the same request: exactly one order', async () => {
  const c = await catalog();
  const id = b2b.approved(c.paper, 2);
  const results = await Promise.all([submit(randomUUID(), { purchaseRequestIds: [id] }), submit(randomUUID(), { purchaseRequestIds: [id] })]);
  expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  expect(await prisma.order.count({ where: { purchaseRequestIds: { has: id } } })).toBe(1);
});

test('bad bodies 400; vendors 403; b2b not answering 503', async () => {
  for (const body of [{}, { purchaseRequestIds: [] }, { purchaseRequestIds: ['x'] }, { purchaseRequestIds: [randomUUID()], extra: 1 }]) {
    await submit(randomUUID(), body).expect(400);
  }
  await request(t.checkout.url).post('/api/v1/checkout/b2b/submit').set(as('vendor')).send({ purchaseRequestIds: [randomUUID()] }).expect(403);
  b2b.stop();
  try {
    const res = await submit(randomUUID(), { purchaseRequestIds: [randomUUID()] }).expect(503);
    expect(res.body.code).toBe('dependency_unavailable');
  } finally {
    b2b.serve();
  }
});

test('rpc.checkout.order_details answers the order detail, or null', async () => {
  const c = await catalog();
  const res = await submit(randomUUID(), { purchaseRequestIds: [b2b.approved(c.chair, 1)] }).expect(201);
  const { order } = await callRpc(t.peer.bus, checkoutOrderDetails, { orderId: res.body.orderId });
  expect(order).toMatchObject({ id: res.body.orderId, isB2b: true, buyerTin: 'C12345678', total: res.body.total, subOrders: [expect.objectContaining({ storeId: c.storeA })] });
  expect(await callRpc(t.peer.bus, checkoutOrderDetails, { orderId: randomUUID() })).toEqual({ order: null });
});

test('two concurrent submits with one Idempotency-Key and different bodies: one order, and the loser releases nothing of the winner', async () => {
  const c = await catalog();
  const buyer = randomUUID();
  const id = b2b.approved(c.paper, 2);
  const addressId = await seedAddress(prisma, buyer);
  const results = await Promise.all([
    submit(buyer, { purchaseRequestIds: [id] }, 'b2b-key-race'),
    submit(buyer, { purchaseRequestIds: [id], addressId }, 'b2b-key-race'),
  ]);
  expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  expect(results.find((r) => r.status === 409)?.body.code).toBe('idempotency_key_reused');
  const winner = results.find((r) => r.status === 201)!.body.orderId as string;
  // the request stays held by the reservation that placed the winner's order
  expect(b2b.requests.get(id)).toMatchObject({ status: 'checkout_pending', reservationId: reservationIdOf(buyer, 'b2b-key-race') });
  expect(await callRpc(t.peer.bus, checkoutB2bReservationOrder, { reservationId: reservationIdOf(buyer, 'b2b-key-race') })).toEqual({
    orderId: winner,
    status: 'pending_payment',
  });
});

test('a failed submit that reserved the requests itself releases exactly them', async () => {
  const c = await catalog();
  const id = b2b.approved(c.chair, 1);
  await submit(randomUUID(), { purchaseRequestIds: [id], addressId: randomUUID() }).expect(404);
  expect(b2b.requests.get(id)).toMatchObject({ status: 'approved', reservationId: null });
});

test('rpc.checkout.b2b_reservation_order: the order a reservation placed, or nulls', async () => {
  const c = await catalog();
  const res = await submit(randomUUID(), { purchaseRequestIds: [b2b.approved(c.paper, 1)] }).expect(201);
  const reservationId = b2b.reserveCalls.at(-1)!.reservationId;
  expect(await callRpc(t.peer.bus, checkoutB2bReservationOrder, { reservationId })).toEqual({ orderId: res.body.orderId, status: 'pending_payment' });
  expect(await callRpc(t.peer.bus, checkoutB2bReservationOrder, { reservationId: randomUUID() })).toEqual({ orderId: null, status: null });
});

test('rpc.checkout.cancel_b2b_order cancels an unpaid duplicate once, returns its stock and says so in status_changed; a paid order stays', async () => {
  const c = await catalog();
  const res = await submit(randomUUID(), { purchaseRequestIds: [b2b.approved(c.chair, 3)] }).expect(201);
  const orderId = res.body.orderId as string;
  const stock = await stockOf(prisma, c.chair.id);
  expect(await callRpc(t.peer.bus, checkoutCancelB2bOrder, { orderId, reason: 'duplicate' })).toEqual({ cancelled: true, status: 'cancelled' });
  expect(await callRpc(t.peer.bus, checkoutCancelB2bOrder, { orderId, reason: 'duplicate' })).toEqual({ cancelled: false, status: 'cancelled' });
  expect(await stockOf(prisma, c.chair.id)).toBe(stock + 3);
  const order = await prisma.order.findUniqueOrThrow({ where: { id: orderId }, include: { payment: true, subOrders: true } });
  expect(order).toMatchObject({ status: 'cancelled', payment: { status: 'failed' } });
  expect(order.subOrders.every((s) => s.status === 'cancelled')).toBe(true);
  const changes = await prisma.outbox.findMany({ where: { type: 'checkout.order.status_changed', payload: { path: ['data', 'orderId'], equals: orderId } } });
  expect(changes.map((e) => (e.payload as { data: unknown }).data)).toEqual([expect.objectContaining({ status: 'cancelled', isB2b: true, companyId: COMPANY_ID })]);

  const paid = await submit(randomUUID(), { purchaseRequestIds: [b2b.approved(c.paper, 1)] }).expect(201);
  await prisma.order.update({ where: { id: paid.body.orderId }, data: { status: 'paid' } });
  expect(await callRpc(t.peer.bus, checkoutCancelB2bOrder, { orderId: paid.body.orderId, reason: 'duplicate' })).toEqual({ cancelled: false, status: 'paid' });
  expect(await callRpc(t.peer.bus, checkoutCancelB2bOrder, { orderId: randomUUID(), reason: 'duplicate' })).toEqual({ cancelled: false, status: null });
});
