import type { ListQuery, ReturnStatus } from '@pasar/contracts';
import { conflict, notFound } from '@pasar/service-kit';
import type { Logger } from 'pino';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { lockOrder } from '../lifecycle/order-paid';
import { reversePoints } from '../loyalty/ledger';
import { requireOwnStore } from '../stores/stores';
import { findReturns, type LoadedReturn } from './read';
import { RETURN_TRANSITIONS, paidValueOf, refundableNow, returnPointsToReverse, type ReturnAction } from './rules';
import { now } from '../deps';

type Tx = Prisma.TransactionClient;

/** What the vendor's return use cases need. */
export interface VendorReturnDeps {
  prisma: PrismaClient;
  log: Logger;
  clock?: () => Date;
}

/** The returns of the caller's store (403 `no_store` without one), newest first, optionally of one status. */
export async function listStoreReturns({ prisma }: VendorReturnDeps, ownerUserId: string, page: ListQuery, status?: ReturnStatus): Promise<LoadedReturn[]> {
  const store = await requireOwnStore(prisma, ownerUserId);
  return findReturns(prisma, { storeId: store.storeId, ...(status ? { status } : {}) }, page);
}

/** requested → approved, with vendor_reviewed_at. */
export async function approveReturn(deps: VendorReturnDeps, ownerUserId: string, returnId: string): Promise<void> {
  const { storeId } = await requireOwnStore(deps.prisma, ownerUserId);
  await advanceReturn(deps.prisma, storeId, returnId, 'approve', { vendorReviewedAt: now(deps) });
}

/** requested → rejected, with the reason and vendor_reviewed_at; its items may then be returned again. */
export async function rejectReturn(deps: VendorReturnDeps, ownerUserId: string, returnId: string, reason: string): Promise<void> {
  const { storeId } = await requireOwnStore(deps.prisma, ownerUserId);
  await deps.prisma.$transaction(async (tx) => {
    await advanceReturn(tx, storeId, returnId, 'reject', { rejectionReason: reason, vendorReviewedAt: now(deps) });
    await tx.returnItem.updateMany({ where: { returnId }, data: { active: false } });
  });
}

/** approved → received (the goods came back), with received_at. */
export async function receiveReturn(deps: VendorReturnDeps, ownerUserId: string, returnId: string): Promise<void> {
  const { storeId } = await requireOwnStore(deps.prisma, ownerUserId);
  await advanceReturn(deps.prisma, storeId, returnId, 'receive', { receivedAt: now(deps) });
}

/**
 * received → refunded, with refunded_at, once: adds the returned lines' paid value (line totals
 * less their discounts) to the payment's refunded_amount, clamped so that it never exceeds the
 * amount (the return's refund_amount records what was added; a clamp is logged), and takes back
 * the points earned on those lines (loyalty `reversal`, never below a zero balance). The order row
 * is locked first (as payments and shipment cancels do), and the status moves by a conditional
 * update, so a second or concurrent refund finds the return refunded and answers 409.
 */
export async function refundReturn(deps: VendorReturnDeps, ownerUserId: string, returnId: string): Promise<void> {
  const { storeId } = await requireOwnStore(deps.prisma, ownerUserId);
  await deps.prisma.$transaction(async (tx) => {
    const found = await tx.returnRequest.findFirst({ where: { id: returnId, storeId }, include: { items: true } });
    if (!found) throw notFound('return');
    const order = await lockOrder(tx, found.orderId);
    if (!order) throw notFound('return');

    const refunding = await paidValueOfItems(tx, found.items.map((item) => item.orderItemId));
    const [payment] = await tx.$queryRaw<{ status: string; amount: Prisma.Decimal; refundedAmount: Prisma.Decimal }[]>`
      SELECT status::text AS status, amount, refunded_amount AS "refundedAmount" FROM payment WHERE order_id = ${order.id}::uuid FOR UPDATE`;
    const applied = payment?.status === 'paid' ? refundableNow(payment.amount, payment.refundedAmount, refunding) : new Prisma.Decimal(0);
    await advanceReturn(tx, storeId, returnId, 'refund', { refundedAt: now(deps), refundAmount: applied });
    if (applied.gt(0)) {
      await tx.payment.update({ where: { orderId: order.id }, data: { refundedAmount: { increment: applied } } });
    }
    if (applied.lt(refunding)) {
      deps.log.warn({ returnId, orderId: order.id, due: refunding.toFixed(2), refunded: applied.toFixed(2) }, 'return refund clamped to what the payment has left');
    }

    const earlier = await tx.returnItem.findMany({
      where: { request: { orderId: order.id, status: 'refunded', id: { not: returnId } } },
      select: { orderItemId: true },
    });
    const refundedBefore = await paidValueOfItems(tx, earlier.map((item) => item.orderItemId));
    const points = returnPointsToReverse(order.pointsEarned, order.subtotal.minus(order.discountTotal), refundedBefore, refunding);
    await reversePoints(tx, { customerId: order.customerId, points, orderId: order.id, subOrderId: found.subOrderId });
  });
}

/**
 * Moves the store's return along `action` by a conditional update (status must still be the
 * transition's `from`), so of two concurrent calls one wins. Not the store's (or no such) return:
 * 404; in another status: 409 `invalid_status`.
 */
async function advanceReturn(db: Tx | PrismaClient, storeId: string, returnId: string, action: ReturnAction, data: Prisma.ReturnRequestUpdateManyMutationInput): Promise<void> {
  const { from, to } = RETURN_TRANSITIONS[action];
  const moved = await db.returnRequest.updateMany({ where: { id: returnId, storeId, status: from }, data: { ...data, status: to } });
  if (moved.count === 1) return;
  const current = await db.returnRequest.findFirst({ where: { id: returnId, storeId }, select: { status: true } });
  if (!current) throw notFound('return');
  throw conflict('invalid_status', `a ${current.status} return cannot be moved to ${to} (only a ${from} one)`);
}

async function paidValueOfItems(tx: Tx, orderItemIds: readonly string[]): Promise<Prisma.Decimal> {
  const lines = orderItemIds.length === 0 ? [] : await tx.orderItem.findMany({ where: { id: { in: [...orderItemIds] } }, select: { lineTotal: true, discount: true } });
  return paidValueOf(lines);
}
