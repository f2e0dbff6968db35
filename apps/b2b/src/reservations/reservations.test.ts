import { randomUUID } from 'node:crypto';
import { callRpc, RpcFailedError } from '@pasar/bus';
import { b2bReleaseRequests, b2bReserveRequests, checkoutOrderCreated, type EventData } from '@pasar/contracts';
import { silentLog } from '@pasar/testkit';
import { envelope, givenApprovedCompany, givenApprovedRequest, givenRequest, publishAndWait, useTestB2b, type TestB2b } from '../../test/b2b';
import { confirmOrder } from '../orders/events';
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
    expect(held.lines).toEqual(expect.arrayContaining([expect.objectContaining({ purchaseRequestId: a, quantity: 3 }), expect.objectContaining({ purchaseRequestId: b, quantity: 2 })]));
    expect([await statusOf(t, a), await statusOf(t, b)]).toEqual(['checkout_pending', 'checkout_pending']);
    expect(await reserve(t, { reservationId, userId: company.members.finance.userId, purchaseRequestIds: [b, a] })).toMatchObject({ reservationId });
    // another reservation of the same requests is refused
    expect(await refusal(reserve(t, { userId: company.owner.userId, purchaseRequestIds: [a] }))).toBe('not_approved');

    expect(await callRpc(t.peer.bus, b2bReleaseRequests, { reservationId })).toEqual({ released: 2 });
    expect(await statusOf(t, a)).toBe('approved');
    expect(await callRpc(t.peer.bus, b2bReleaseRequests, { reservationId })).toEqual({ released: 0 });
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
  test('order.created marks the requests paid with the order id and records the order; a redelivery changes nothing', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] });
    const event = envelope(checkoutOrderCreated, orderCreated([id]));
    await publishAndWait(t.peer.bus, event, 'b2b-order-created', 'CHECKOUT');
    await publishAndWait(t.peer.bus, { ...event }, 'b2b-order-created', 'CHECKOUT');
    expect(await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'paid', orderId: event.data.orderId });
    expect(await t.b2b.prisma.b2bOrder.findUniqueOrThrow({ where: { orderId: event.data.orderId } })).toMatchObject({ companyId: company.companyId, status: 'pending_payment', subOrderCount: 0 });
  });

  test('the sweep releases only reservations older than the TTL, and a confirmed one never', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const old = await givenApprovedRequest(t, company);
    const fresh = await givenApprovedRequest(t, company);
    const confirmed = await givenApprovedRequest(t, company);
    await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [old] });
    await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [fresh] });
    await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [confirmed] });
    await t.b2b.prisma.$transaction((tx) => confirmOrder(tx, silentLog, orderCreated([confirmed])));
    const at = new Date(Date.now() + 60_000);
    await t.b2b.prisma.purchaseRequest.update({ where: { id: old }, data: { reservedAt: new Date(at.getTime() - TTL - 1) } });

    const released = await releaseExpiredReservations({ prisma: t.b2b.prisma, clock: () => at }, TTL);
    expect(released).toContain(old);
    expect(released).not.toContain(fresh);
    expect([await statusOf(t, old), await statusOf(t, fresh), await statusOf(t, confirmed)]).toEqual(['approved', 'checkout_pending', 'paid']);
  });

  test('two sweeps at once release each reservation once', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const ids = [await givenApprovedRequest(t, company), await givenApprovedRequest(t, company), await givenApprovedRequest(t, company)];
    for (const id of ids) await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] });
    const later = () => new Date(Date.now() + TTL + 60_000);
    const [a, b] = await Promise.all([
      releaseExpiredReservations({ prisma: t.b2b.prisma, clock: later }, TTL),
      releaseExpiredReservations({ prisma: t.b2b.prisma, clock: later }, TTL),
    ]);
    const mine = [...a, ...b].filter((id) => ids.includes(id));
    expect(mine.sort()).toEqual([...ids].sort());
  });

  test('the crossing: order.created arriving after the sweep released the reservation still confirms the requests to that order', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    await reserve(t, { userId: company.owner.userId, purchaseRequestIds: [id] });
    await releaseExpiredReservations({ prisma: t.b2b.prisma, clock: () => new Date(Date.now() + TTL + 1000) }, TTL);
    expect(await statusOf(t, id)).toBe('approved');
    const event = envelope(checkoutOrderCreated, orderCreated([id]));
    await publishAndWait(t.peer.bus, event, 'b2b-order-created', 'CHECKOUT');
    expect(await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'paid', orderId: event.data.orderId });
    // a second order for the same requests does not take them
    const second = envelope(checkoutOrderCreated, orderCreated([id]));
    await publishAndWait(t.peer.bus, second, 'b2b-order-created', 'CHECKOUT');
    expect((await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).orderId).toBe(event.data.orderId);
  });

  test('a cancelled request is not confirmed by a late order', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const id = await givenApprovedRequest(t, company);
    await t.call('POST', `/b2b/purchase-requests/${id}/cancel`, company.members.staff);
    await t.b2b.prisma.$transaction((tx) => confirmOrder(tx, silentLog, orderCreated([id])));
    expect(await t.b2b.prisma.purchaseRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'cancelled', orderId: null });
  });
});
