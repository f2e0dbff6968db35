import { randomUUID } from 'node:crypto';
import { enqueueEvent } from '@pasar/bus';
import { checkoutOrderPaid, notifyEmailRequested, type OrderStatus } from '@pasar/contracts';
import type { Logger } from 'pino';
import type { Order, Prisma } from '../generated/prisma/client';
import { familyCartItemIdsOf, pointsEarnedFor } from '../payments/rules';
import { CHECKOUT_SOURCE, enqueueOrderStatusChanges } from './order-events';
import { creditPoints } from '../loyalty/ledger';

type Tx = Prisma.TransactionClient;

/** The payment that settles the order. */
export interface SettlingPayment {
  transactionId: string;
  paidAt: Date;
  requestId?: string;
}

export type MarkPaidResult =
  | { outcome: 'paid'; pointsEarned: number }
  /** The order was paid before; `sameTransaction` tells a replay from a second payment. */
  | { outcome: 'already_paid'; sameTransaction: boolean }
  /** The order is in a state that takes no payment (expired, cancelled, payment_failed). */
  | { outcome: 'not_payable'; status: OrderStatus };

/** Locks the order row for the rest of the transaction; null when there is no such order. */
export async function lockOrder(tx: Tx, orderId: string): Promise<Order | null> {
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "order" WHERE id = ${orderId}::uuid FOR UPDATE`;
  if (locked.length === 0) return null;
  return tx.order.findUnique({ where: { id: orderId } });
}

/**
 * Marks a pending order paid, in the caller's transaction, with the order row locked (so a
 * replayed or concurrent notification, the mock path and the expiry sweep take turns and the
 * effects happen once): payment paid with its transaction id, order and sub-orders paid, points
 * earned (loyalty `earn`, order.points_earned), the family cart items listed in admin_notes
 * removed, `checkout.order.paid` and `checkout.order.status_changed` enqueued, and the order
 * confirmation e-mail requested (skipped, and logged, while the customer has no user replica).
 */
export async function markOrderPaid(tx: Tx, orderId: string, payment: SettlingPayment, log: Logger): Promise<MarkPaidResult> {
  const order = await lockOrder(tx, orderId);
  if (!order) throw new Error(`markOrderPaid: order ${orderId} does not exist`);
  if (order.status !== 'pending_payment') {
    const current = await tx.payment.findUnique({ where: { orderId } });
    if (current?.status === 'paid') return { outcome: 'already_paid', sameTransaction: current.transactionId === payment.transactionId };
    return { outcome: 'not_payable', status: order.status };
  }

  const pointsEarned = pointsEarnedFor(order.subtotal, order.discountTotal);
  await tx.payment.update({ where: { orderId }, data: { status: 'paid', transactionId: payment.transactionId, paidAt: payment.paidAt } });
  await tx.order.update({ where: { id: orderId }, data: { status: 'paid', paidAt: payment.paidAt, pointsEarned } });
  await tx.subOrder.updateMany({ where: { orderId, status: 'pending_payment' }, data: { status: 'paid' } });
  await creditPoints(tx, 'earn', { customerId: order.customerId, points: pointsEarned, orderId });
  await removeCheckedOutFamilyItems(tx, order);

  const subOrders = await tx.subOrder.findMany({ where: { orderId }, select: { id: true }, orderBy: { createdAt: 'asc' } });
  const options = { source: CHECKOUT_SOURCE, requestId: payment.requestId };
  await enqueueEvent(
    tx,
    checkoutOrderPaid,
    {
      orderId,
      shortId: order.shortId,
      customerId: order.customerId,
      isB2b: order.isB2b,
      subOrderIds: subOrders.map((s) => s.id),
      total: order.total.toFixed(2),
      paidAt: payment.paidAt.toISOString(),
    },
    options,
  );
  await enqueueOrderStatusChanges(tx, [{ orderId, isB2b: order.isB2b, previousStatus: 'pending_payment', status: 'paid' }], payment.paidAt, payment.requestId);
  await requestConfirmationEmail(tx, order, log, payment.requestId);
  return { outcome: 'paid', pointsEarned };
}

async function removeCheckedOutFamilyItems(tx: Tx, order: Order): Promise<void> {
  const ids = familyCartItemIdsOf(order.adminNotes);
  if (ids.length === 0 || !order.familyId) return;
  await tx.familyCartItem.deleteMany({ where: { id: { in: ids }, familyId: order.familyId } });
}

async function requestConfirmationEmail(tx: Tx, order: Order, log: Logger, requestId?: string): Promise<void> {
  const customer = await tx.userReplica.findUnique({ where: { userId: order.customerId } });
  if (!customer) {
    log.warn({ orderId: order.id, customerId: order.customerId }, 'no user replica for the customer yet; order confirmation e-mail skipped');
    return;
  }
  await enqueueEvent(
    tx,
    notifyEmailRequested,
    {
      messageId: randomUUID(),
      to: customer.email,
      template: 'order_confirmation',
      vars: { fullName: customer.fullName || customer.email, shortId: order.shortId, total: order.total.toFixed(2) },
    },
    { source: CHECKOUT_SOURCE, requestId },
  );
}
