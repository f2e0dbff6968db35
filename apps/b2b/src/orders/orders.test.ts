import { randomUUID } from 'node:crypto';
import { checkoutOrderCreated, checkoutOrderPaid, checkoutOrderStatusChanged, type EventData, type OrderDetail } from '@pasar/contracts';
import { confirmed, envelope, givenApprovedCompany, givenApprovedRequest, givenCheckedOut, publishAndWait, useTestB2b, type TestB2b, type TestCompany } from '../../test/b2b';
import { applyOrderPaid, applyOrderStatus } from './events';

const env = useTestB2b();

function created(requestIds: string[], total: string, createdAt = new Date()): EventData<typeof checkoutOrderCreated> {
  const sub = (storeId: string) => ({ subOrderId: randomUUID(), storeId, shippingMethodId: null, subtotal: '1.00', shippingFee: '0.00', total: '1.00', items: [] });
  return {
    orderId: randomUUID(),
    shortId: `PSR-${Math.random().toString(36).slice(2, 8).toUpperCase()}`,
    customerId: randomUUID(),
    isB2b: true,
    familyId: null,
    purchaseRequestIds: requestIds,
    buyerTin: 'C12345678',
    total,
    shippingAddress: { fullName: 'A', phone: '1', addressLine1: 'x', addressLine2: null, city: 'c', postcode: '1', state: 's' },
    subOrders: [sub(randomUUID()), sub(randomUUID())],
    createdAt: createdAt.toISOString(),
  };
}

/** An approved request checked out into an order of `total`, paid at `paidAt` (null: unpaid). */
async function givenOrder(t: TestB2b, company: TestCompany, total: string, paidAt: Date | null) {
  const id = await givenApprovedRequest(t, company);
  const order = created([id], total);
  await givenCheckedOut(t, company, [id], order.orderId);
  await confirmed(t, order);
  if (paidAt) {
    await t.b2b.prisma.$transaction((tx) =>
      applyOrderPaid(tx, { orderId: order.orderId, shortId: order.shortId, customerId: order.customerId, isB2b: true, subOrderIds: [], total, paidAt: paidAt.toISOString() }),
    );
  }
  return { requestId: id, order };
}

const statusChange = (orderId: string, status: EventData<typeof checkoutOrderStatusChanged>['status']): EventData<typeof checkoutOrderStatusChanged> => ({
  orderId,
  isB2b: true,
  status,
  previousStatus: 'pending_payment',
  changedAt: new Date().toISOString(),
});

describe('the B2B order read model', () => {
  test('status events in any order end the same: never backwards, final stays', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const { order } = await givenOrder(t, company, '100.00', null);
    for (const status of ['shipped', 'paid', 'processing'] as const) {
      await t.b2b.prisma.$transaction((tx) => applyOrderStatus(tx, statusChange(order.orderId, status)));
    }
    expect((await t.b2b.prisma.b2bOrder.findUniqueOrThrow({ where: { orderId: order.orderId } })).status).toBe('shipped');

    // status before created: waits in the row, created fills the rest in
    const id = await givenApprovedRequest(t, company);
    const early = created([id], '10.00');
    await givenCheckedOut(t, company, [id], early.orderId);
    await publishAndWait(t.peer.bus, envelope(checkoutOrderStatusChanged, statusChange(early.orderId, 'paid')), 'b2b-order-status', 'CHECKOUT');
    await publishAndWait(t.peer.bus, envelope(checkoutOrderCreated, early), 'b2b-order-created', 'CHECKOUT');
    expect(await t.b2b.prisma.b2bOrder.findUniqueOrThrow({ where: { orderId: early.orderId } })).toMatchObject({ status: 'paid', companyId: company.companyId, shortId: early.shortId });
  });

  test('non-B2B orders are ignored: their order.created is never even delivered to b2b (routed on checkout.order.created.retail)', async () => {
    const t = env();
    const order = { ...created([], '5.00'), isB2b: false };
    const bus = t.peer.bus;
    const consumerInfo = async () => (await bus.jsm).consumers.info(bus.naming.stream('CHECKOUT'), bus.naming.durable('b2b', 'b2b-order-created'));
    const deliveredBefore = (await consumerInfo()).delivered.consumer_seq;
    const retail = envelope(checkoutOrderCreated, order);
    expect(bus.naming.eventSubject(retail)).toBe(bus.naming.subject('checkout.order.created.retail'));
    await bus.js.publish(bus.naming.eventSubject(retail), JSON.stringify(retail), { msgID: retail.id });
    // a B2B order published after it: once b2b has handled this one, it would have had the retail one first
    const b2bOrder = envelope(checkoutOrderCreated, created([randomUUID()], '7.00'));
    await publishAndWait(bus, b2bOrder, 'b2b-order-created', 'CHECKOUT');
    expect((await consumerInfo()).delivered.consumer_seq - deliveredBefore).toBe(1);
    await publishAndWait(
      t.peer.bus,
      envelope(checkoutOrderPaid, { orderId: order.orderId, shortId: 'x', customerId: order.customerId, isB2b: false, subOrderIds: [], total: '5.00', paidAt: new Date().toISOString() }),
      'b2b-order-paid',
      'CHECKOUT',
    );
    expect(await t.b2b.prisma.b2bOrder.count({ where: { orderId: order.orderId } })).toBe(0);
  });

  test('a B2B order without purchase requests is acked on its raw data: no transaction, no inbox row, even for data b2b would refuse', async () => {
    const t = env();
    const order = created([], '5.00');
    const event = envelope(checkoutOrderCreated, order);
    await publishAndWait(t.peer.bus, event, 'b2b-order-created', 'CHECKOUT');
    // no purchase requests, so not b2b's to validate (the contract would refuse this total)
    const odd = { ...envelope(checkoutOrderCreated, order), data: { ...order, orderId: randomUUID(), total: 'not money' } };
    await publishAndWait(t.peer.bus, odd as typeof event, 'b2b-order-created', 'CHECKOUT');
    expect(await t.b2b.prisma.inbox.count({ where: { eventId: { in: [event.id, odd.id] } } })).toBe(0);
    expect(await t.b2b.prisma.parkedMessage.count({ where: { eventId: odd.id } })).toBe(0);
  });
});

describe('orders, detail and spend', () => {
  test('orders list: newest first, status filter, subOrderCount, requestedBy; detail with purchaseRequestMeta or null', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const other = await givenApprovedCompany(t);
    const first = await givenOrder(t, company, '120.50', new Date());
    const second = await givenOrder(t, company, '80.25', null);

    const list = await t.call('GET', `/b2b/${company.companyId}/orders`, company.members.staff);
    expect(list.body).toEqual([
      { id: second.order.orderId, shortId: second.order.shortId, status: 'pending_payment', totalAmount: '80.25', subOrderCount: 2, requestedBy: 'staff person', createdAt: expect.any(String) },
      expect.objectContaining({ id: first.order.orderId, status: 'paid', totalAmount: '120.50' }),
    ]);
    expect((await t.call('GET', `/b2b/${company.companyId}/orders?status=paid`, company.owner)).body.map((o: { id: string }) => o.id)).toEqual([first.order.orderId]);
    expect((await t.call('GET', `/b2b/${other.companyId}/orders`, other.owner)).body).toEqual([]);
    expect((await t.call('GET', `/b2b/${company.companyId}/orders?status=weird`, company.owner)).status).toBe(400);
    expect((await t.call('GET', `/b2b/${company.companyId}/orders`, other.owner)).status).toBe(404);

    const detail: OrderDetail = {
      id: first.order.orderId,
      shortId: first.order.shortId,
      status: 'paid',
      isB2b: true,
      familyId: null,
      buyerTin: 'C12345678',
      subtotal: '120.50',
      discountTotal: '0.00',
      shippingTotal: '0.00',
      total: '120.50',
      pointsRedeemed: 0,
      pointsEarned: 0,
      createdAt: new Date().toISOString(),
      expiresAt: new Date().toISOString(),
      paidAt: new Date().toISOString(),
      shippingAddress: first.order.shippingAddress,
      subOrders: [],
      payment: null,
    };
    t.peers.orders.set(first.order.orderId, detail);
    const answered = await t.call('GET', `/b2b/orders/${first.order.orderId}`, company.members.finance);
    expect(answered.body).toMatchObject({
      id: first.order.orderId,
      isB2b: true,
      purchaseRequestMeta: [{ id: first.requestId, requesterName: 'staff person', productName: 'Office chair', quantity: 2, unitPrice: '249.90', status: 'paid' }],
    });
    // another company's member, an unknown order: null (existence not revealed)
    expect(await t.call('GET', `/b2b/orders/${first.order.orderId}`, other.owner)).toMatchObject({ status: 200, body: null });
    expect(await t.call('GET', `/b2b/orders/${randomUUID()}`, company.owner)).toMatchObject({ status: 200, body: null });
    expect((await t.call('GET', '/b2b/orders/nope', company.owner)).status).toBe(400);
  });

  test('finance stats and monthly spend: exact decimal sums of paid orders, by UTC month', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
    await givenOrder(t, company, '0.10', now);
    await givenOrder(t, company, '0.20', now);
    await givenOrder(t, company, '999999.99', lastMonth);
    await givenOrder(t, company, '50.00', null); // unpaid: no spend
    const cancelled = await givenOrder(t, company, '70.00', now);
    await t.b2b.prisma.$transaction((tx) => applyOrderStatus(tx, statusChange(cancelled.order.orderId, 'cancelled')));
    await givenApprovedRequest(t, company); // waiting for payment

    const stats = await t.call('GET', `/b2b/${company.companyId}/finance-stats`, company.members.finance);
    expect(stats.body).toEqual({ totalSpendThisMonth: '0.30', pendingPayments: 1, approvedThisMonth: 6, teamSize: 4 });
    const spend = await t.call('GET', `/b2b/${company.companyId}/monthly-spend`, company.owner);
    const month = (d: Date) => d.toISOString().slice(0, 7);
    expect(spend.body).toEqual([
      { month: month(now), total_spend: '0.30' },
      { month: month(lastMonth), total_spend: '999999.99' },
    ]);
    expect((await t.call('GET', `/b2b/${company.companyId}/monthly-spend?limit=1`, company.owner)).body).toHaveLength(1);
    expect((await t.call('GET', `/b2b/${company.companyId}/dashboard-stats`, company.owner)).body).toMatchObject({ paidCount: 5, approvedCount: 1 });
    expect((await t.call('GET', `/b2b/${company.companyId}/procurement-history`, company.owner)).body).toHaveLength(5);
  });
});
