import { randomUUID } from 'node:crypto';
import { callRpc, RpcFailedError } from '@pasar/bus';
import { b2bReleaseRequests, b2bReserveRequests, checkoutOrderCreated, checkoutOrderStatusChanged, type EventData } from '@pasar/contracts';
import { silentLog } from '@pasar/testkit';
import { envelope, givenApprovedCompany, givenApprovedRequest, givenRequest, publishAndWait, useTestB2b, type TestB2b } from '../../test/b2b';
import { checkoutOrdersOver, confirmOrder } from '../orders/events';
import { releaseExpiredReservations } from './reservations';

const TTL = 10 * 60_000;
const env = useTestB2b({ B2B_RESERVATION_SWEEP: '1h' }); // the sweep is driven by hand below

const reserve = (t: TestB2b, input: { reservationId?: string; userId: string; purchaseRequestIds: string[] }) =>
  callRpc(t.peer.bus, b2bReserveRequests, { reservationId: input.reservationId ?? randomUUID(), ...input });

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof RpcFailedError) return err.code;
    throw err;
  }
  throw new Error('expected a refusal');
}

/** One pass of the sweep at `at`, with b2b's bus (checkout answers on the peers). */
const sweep = (t: TestB2b, at: () => Date) => releaseExpiredReservations({ prisma: t.b2b.prisma, bus: t.b2b.bus, log: silentLog, clock: at }, TTL);
const afterTtl = () => new Date(Date.now() + TTL + 60_000);

const statusOf = async (t: TestB2b, id: string) => (await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).status;

function orderCreated(requestIds: string[], overrides: Partial<EventData<typeof checkoutOrderCreated>> = {}): EventData<typeof checkoutOrderCreated> {
  return {
    orderId: randomUUID(),
    shortId: 'PSR-ABC123',
    customerId: randomUUID(),
    isB2b: true,
    familyId: null,
    purchaseRequestIds: requestIds,
    buyerTin: 'C12345678',
    total: '509.80',
    shippingAddress: { fullName: 'A', phone: '1', addressLine1: 'x', addressLine2: null, city: 'c', postcode: '1', state: 's' },
    subOrders: [],
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

describe('rpc.b2b.reserve_requests / release_requests', () => {
  test('finance reserves approved requests: checkout_pending, lines, company TIN and address; a repeat answers the same reservation', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const a = await givenApprovedRequest(t, company, undefined, 3);
    const b = await givenApprovedRequest(t, company);
    const reservationId = randomUUID();
    const held = await reserve(t, { reservationId, userId: company.members.finance.userId, purchaseRequestIds: [a, b] });
    expect(held).toMatchObject({ reservationId, companyId: company.companyId, buyerTin: 'C12345678', companyAddress: { addressLine1: '12 Jalan Industri', fullName: 'Aisyah Rahman' } });
    expect(held.lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ purchaseRequestId: a, quantity: 3, unitPrice: '249.90' }),
        expect.objectContaining({ purchaseRequestId: b, quantity: 2 }),
      ]),
    );
    expect([...held.reserved].sort()).toEqual([a, b].sort());
    expect([await statusOf(t, a), await statusOf(t, b)]).toEqual(['checkout_pending', 'checkout_pending']);
    expect(await reserve(t, { reservationId, userId: company.members.finance.userId, purchaseRequestIds: [b, a] })).toMatchObject({ reservationId, reserved: [] });
    // another reservation of the same requests is refused
    expect(await refusal(reserve(t, { userId: company.owner.userId, purchaseRequestIds: [a] }))).toBe('not_approved');

    // a release frees only the requests it names (what the failed call reserved)
    expect(await callRpc(t.peer.bus, b2bReleaseRequests, { reservationId, purchaseRequestIds: [a] })).toEqual({ released: 1 });
    expect([await statusOf(t, a), await statusOf(t, b)]).toEqual(['approved', 'checkout_pending']);
    expect(await callRpc(t.peer.bus, b2bReleaseRequests, { reservationId, purchaseRequestIds: [a, b] })).toEqual({ released: 1 });
    expect(await callRpc(t.peer.bus, b2bReleaseRequests, { reservationId, purchaseRequestIds: [a, b] })).toEqual({ released: 0 });
  });

  test('a release with repriced requests: those go back to pending at the new price with the review cleared, the others to approved; the approver approves again', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const raised = await givenApprovedRequest(t, company);
    const same = await givenApprovedRequest(t, company);
    const reservationId = randomUUID();
    const held = await reserve(t, { reservationId, userId: company.members.finance.userId, purchaseRequestIds: [raised, same] });
    const approvedAt = held.lines.find((l) => l.purchaseRequestId === raised)!.unitPrice;
    const released = await callRpc(t.peer.bus, b2bReleaseRequests, {
      reservationId,
      purchaseRequestIds: [raised, same],
      repriced: [
        { purchaseRequestId: raised, unitPrice: '999.99' },
        { purchaseRequestId: same, unitPrice: held.lines.find((l) => l.purchaseRequestId === same)!.unitPrice },
      ],
    });
    expect(released).toEqual({ released: 2 });
    const rows = await t.b2b.prisma.purchaseRequest.findMany({ where: { id: { in: [raised, same] } } });
    const row = (id: string) => rows.find((r) => r.id === id)!;
    expect(row(raised)).toMatchObject({ status: 'pending', reviewerId: null, reviewedAt: null, reservationId: null, reservedAt: null });
    expect(row(raised).unitPrice.toFixed(2)).toBe('999.99');
    expect(row(raised).reviewNote).toBe(`the price changed from ${approvedAt} to 999.99 after approval`);
    expect(row(same)).toMatchObject({ status: 'approved', reservationId: null });
    expect(row(same).reviewerId).not.toBeNull();
    // the approver sees the new price and approves it; it can then be checked out at it
    const listed = await t.call('GET', `/b2b/purchase-requests/${raised}`, company.members.approver);
    expect(listed.body).toMatchObject({ status: 'pending', unit_price: '999.99' });
    await t.call('POST', `/b2b/purchase-requests/${raised}/approve`, company.members.approver).then((r) => expect(r.status).toBe(204));
    const again = await reserve(t, { userId: company.members.finance.userId, purchaseRequestIds: [raised] });
    expect(again.lines).toEqual([expect.objectContaining({ purchaseRequestId: raised, unitPrice: '999.99' })]);
    // a repeat of the release, or a repriced request this reservation no longer holds, changes nothing
    expect(await callRpc(t.peer.bus, b2bReleaseRequests, { reservationId, purchaseRequestIds: [raised, same], repriced: [{ purchaseRequestId: raised, unitPrice: '1.00' }] })).toEqual({ released: 0 });
    expect(await statusOf(t, raised)).toBe('checkout_pending');
  });

  test('refusals: staff/approver forbidden, another company or unknown not_found, pending not_approved, no TIN tax_incomplete; nothing held', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const other = await givenApprovedCompany(t);
    const approved = await givenApprovedRequest(t, company);
    const pending = await givenRequest(t, company.members.finance);
    expect(await refusal(reserve(t, { userId: company.members.staff.userId, purchaseRequestIds: [approved] }))).toBe('forbidden');
    expect(await refusal(reserve(t, { userId: company.members.approver.userId, purchaseRequestIds: [approved] }))).toBe('forbidden');
    expect(await refusal(reserve(t, { userId: other.owner.userId, purchaseRequestIds: [approved] }))).toBe('not_found');
    expect(await refusal(reserve(t, { userId: company.owner.userId, purchaseRequestIds: [approved, randomUUID()] }))).toBe('not_found');
    expect(await refusal(reserve(t, { userId: company.owner.userId, purchaseRequestIds: [approved, pending] }))).toBe('not_approved');
    const otherRequest = await givenApprovedRequest(t, other);
    expect(await refusal(reserve(t, { userId: company.owner.userId, purchaseRequestIds: [approved, otherRequest] }))).toBe('not_found');
    await t.b2b.prisma.company.update({ where: { id: company.companyId }, data: { tin: null } });
    expect(await refusal(reserve(t, { userId: company.owner.userId, purchaseRequestIds: [approved] }))).toBe('tax_incomplete');
    expect(await statusOf(t, approved)).toBe('approved');
  });

  test('two reservations of the same request at once: exactly one holds it', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    const results = await Promise.allSettled([
      reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] }),
      reserve(t, { userId: company.members.finance.userId, purchaseRequestIds: [id] }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((rejected.reason as RpcFailedError).code).toBe('not_approved');
  });
});

describe('confirmation and the sweep', () => {
  const confirm = (t: TestB2b, event: EventData<typeof checkoutOrderCreated>) =>
    t.b2b.prisma.$transaction((tx) => confirmOrder(tx, silentLog, checkoutOrdersOver(t.b2b.bus), event));

  test('order.created of the order the reservation placed marks the requests paid and records the order; a redelivery changes nothing', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    const { reservationId } = await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] });
    const event = envelope(checkoutOrderCreated, orderCreated([id], { orderId: t.peers.placeOrder(reservationId) }));
    await publishAndWait(t.peer.bus, event, 'b2b-order-created', 'CHECKOUT');
    await publishAndWait(t.peer.bus, { ...event }, 'b2b-order-created', 'CHECKOUT');
    expect(await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'paid', orderId: event.data.orderId });
    expect(await t.b2b.prisma.b2bOrder.findUniqueOrThrow({ where: { orderId: event.data.orderId } })).toMatchObject({ companyId: company.companyId, status: 'pending_payment', subOrderCount: 0 });
    expect(t.peers.cancelCalls).not.toContain(event.data.orderId);
  });

  test('the sweep releases only expired reservations that placed no order (or whose order ended unpaid), never a confirmed one', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const [old, fresh, confirmed, ordered, expired] = [
      await givenApprovedRequest(t, company),
      await givenApprovedRequest(t, company),
      await givenApprovedRequest(t, company),
      await givenApprovedRequest(t, company),
      await givenApprovedRequest(t, company),
    ];
    for (const id of [old, fresh, confirmed, ordered, expired]) await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] });
    const reservationOf = async (id: string) => (await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).reservationId!;
    const confirmedOrder = t.peers.placeOrder(await reservationOf(confirmed));
    await confirm(t, orderCreated([confirmed], { orderId: confirmedOrder }));
    t.peers.placeOrder(await reservationOf(ordered));
    t.peers.placed.set(await reservationOf(expired), { orderId: randomUUID(), status: 'expired' });
    const at = new Date(Date.now() + 60_000);
    await t.b2b.prisma.purchaseRequest.updateMany({ where: { id: { in: [old, ordered, expired] } }, data: { reservedAt: new Date(at.getTime() - TTL - 1) } });

    const released = await sweep(t, () => at);
    expect(released).toEqual(expect.arrayContaining([old, expired]));
    expect(released).not.toContain(fresh);
    expect(released).not.toContain(ordered);
    expect(await Promise.all([old, fresh, confirmed, ordered, expired].map((id) => statusOf(t, id)))).toEqual([
      'approved',
      'checkout_pending',
      'paid',
      'checkout_pending',
      'approved',
    ]);
  });

  test('checkout not answering: the sweep releases nothing and the next pass does', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] });
    t.peers.checkoutDown = true;
    try {
      expect(await sweep(t, afterTtl)).not.toContain(id);
      expect(await statusOf(t, id)).toBe('checkout_pending');
    } finally {
      t.peers.checkoutDown = false;
    }
    expect(await sweep(t, afterTtl)).toContain(id);
    expect(await statusOf(t, id)).toBe('approved');
  });

  test('two sweeps at once release each reservation once', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const ids = [await givenApprovedRequest(t, company), await givenApprovedRequest(t, company), await givenApprovedRequest(t, company)];
    for (const id of ids) await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] });
    const [a, b] = await Promise.all([sweep(t, afterTtl), sweep(t, afterTtl)]);
    const mine = [...a, ...b].filter((id) => ids.includes(id));
    expect(mine.sort()).toEqual([...ids].sort());
  });

  test('order.created delayed past the TTL: the reservation is kept, a second submit is refused, the late event confirms; one order', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    const { reservationId } = await reserve(t, { userId: company.members.finance.userId, purchaseRequestIds: [id] });
    // checkout placed the order; its order.created has not reached b2b (relay or consumer stopped)
    const orderId = t.peers.placeOrder(reservationId);
    expect(await sweep(t, afterTtl)).not.toContain(id);
    expect(await sweep(t, () => new Date(Date.now() + 10 * TTL))).not.toContain(id);
    expect(await statusOf(t, id)).toBe('checkout_pending');
    // finance submits again: b2b refuses to hold the request for another order
    expect(await refusal(reserve(t, { userId: company.members.finance.userId, purchaseRequestIds: [id] }))).toBe('not_approved');

    await publishAndWait(t.peer.bus, envelope(checkoutOrderCreated, orderCreated([id], { orderId })), 'b2b-order-created', 'CHECKOUT');
    expect(await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'paid', orderId });
    expect(t.peers.cancelCalls).not.toContain(orderId);
    expect(t.peers.placed.get(reservationId)).toEqual({ orderId, status: 'pending_payment' });
  });

  test('a duplicate order (its reservation released, the requests held by another checkout since) is cancelled; the other order confirms', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    const first = await reserve(t, { userId: company.members.finance.userId, purchaseRequestIds: [id] });
    // the sweep asked before the first order committed: none yet, released
    expect(await sweep(t, afterTtl)).toContain(id);
    const second = await reserve(t, { userId: company.members.finance.userId, purchaseRequestIds: [id] });
    const late = t.peers.placeOrder(first.reservationId);
    const other = t.peers.placeOrder(second.reservationId);

    await publishAndWait(t.peer.bus, envelope(checkoutOrderCreated, orderCreated([id], { orderId: late })), 'b2b-order-created', 'CHECKOUT');
    expect(t.peers.cancelCalls).toContain(late);
    expect(await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'checkout_pending', reservationId: second.reservationId, orderId: null });

    await publishAndWait(t.peer.bus, envelope(checkoutOrderCreated, orderCreated([id], { orderId: other })), 'b2b-order-created', 'CHECKOUT');
    expect(await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'paid', orderId: other });
    const payable = [...t.peers.placed.values()].filter((p) => [late, other].includes(p.orderId) && p.status === 'pending_payment');
    expect(payable.map((p) => p.orderId)).toEqual([other]);
  });

  test('an order for requests released and never held again is cancelled, not confirmed', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    const { reservationId } = await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] });
    await sweep(t, afterTtl);
    expect(await statusOf(t, id)).toBe('approved');
    const orderId = t.peers.placeOrder(reservationId);
    await publishAndWait(t.peer.bus, envelope(checkoutOrderCreated, orderCreated([id], { orderId })), 'b2b-order-created', 'CHECKOUT');
    expect(await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'approved', orderId: null });
    expect(t.peers.placed.get(reservationId)?.status).toBe('cancelled');
  });

  test('a cancelled request is not confirmed by a late order', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    await t.call('POST', `/b2b/purchase-requests/${id}/cancel`, company.members.staff);
    const orderId = randomUUID();
    await confirm(t, orderCreated([id], { orderId }));
    expect(await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'cancelled', orderId: null });
    expect(t.peers.cancelCalls).toContain(orderId);
  });

  test.each(['expired', 'payment_failed'] as const)('the order %s: its requests return to approved and can be checked out again', async (status) => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    const { reservationId } = await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] });
    const orderId = t.peers.placeOrder(reservationId);
    await publishAndWait(t.peer.bus, envelope(checkoutOrderCreated, orderCreated([id], { orderId })), 'b2b-order-created', 'CHECKOUT');
    expect(await statusOf(t, id)).toBe('paid');
    const change = { orderId, isB2b: true, previousStatus: 'pending_payment' as const, status, changedAt: new Date().toISOString() };
    await publishAndWait(t.peer.bus, envelope(checkoutOrderStatusChanged, change), 'b2b-order-status', 'CHECKOUT');
    expect(await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'approved', orderId: null, reservationId: null });
    expect(await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] })).toMatchObject({ reserved: [id] });
  });

  test('a paid order keeps its requests paid, also once cancelled', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    const { reservationId } = await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] });
    const orderId = t.peers.placeOrder(reservationId);
    await publishAndWait(t.peer.bus, envelope(checkoutOrderCreated, orderCreated([id], { orderId })), 'b2b-order-created', 'CHECKOUT');
    for (const status of ['paid', 'cancelled'] as const) {
      const change = { orderId, isB2b: true, previousStatus: 'pending_payment' as const, status, changedAt: new Date().toISOString() };
      await publishAndWait(t.peer.bus, envelope(checkoutOrderStatusChanged, change), 'b2b-order-status', 'CHECKOUT');
    }
    expect(await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'paid', orderId });
  });
});
