import { randomUUID } from 'node:crypto';
import { enqueueEvent } from '@pasar/bus';
import { lockKey } from '@pasar/db';
import { checkoutOrderPaid, notifyEmailRequested, type OrderStatus } from '@pasar/contracts';
import type { Logger } from 'pino';
import type { Order, Prisma } from '../generated/prisma/client';
import { CHECKOUT_SOURCE, enqueueOrderStatusChanges } from './order-events';
import { creditPoints } from '../loyalty/ledger';
import { familyCartItemIdsOf, pointsEarnedFor } from './rules';

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
 * confirmation e-mail requested (deferred until the replica arrives while the customer has none yet).
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
  const subOrders = await paySubOrders(tx, orderId);
  await creditPoints(tx, 'earn', { customerId: order.customerId, points: pointsEarned, orderId });
  await removeCheckedOutFamilyItems(tx, order);

  const options = { source: CHECKOUT_SOURCE, requestId: payment.requestId };
  await enqueueEvent(
    tx,
    checkoutOrderPaid,
    {
      orderId,
      shortId: order.shortId,
      customerId: order.customerId,
      isB2b: order.isB2b,
      companyId: order.companyId,
      subOrderIds: subOrders.map((s) => s.id),
      total: order.total.toFixed(2),
      paidAt: payment.paidAt.toISOString(),
    },
    options,
  );
  await enqueueOrderStatusChanges(tx, [{ orderId, isB2b: order.isB2b, companyId: order.companyId, previousStatus: 'pending_payment', status: 'paid' }], payment.paidAt, payment.requestId);
  await requestConfirmationEmail(tx, order, log, payment.requestId);
  return { outcome: 'paid', pointsEarned };
}

/**
 * Moves the order's pending sub-orders to paid and answers every sub-order's id, oldest first (for
 * checkout.order.paid), in one statement: the payment is a hot path and each statement of its
 * transaction costs a round trip and the Prisma client's work.
 */
async function paySubOrders(tx: Tx, orderId: string): Promise<{ id: string }[]> {
  return tx.$queryRaw<{ id: string }[]>`
    WITH paid AS (UPDATE sub_order SET status = 'paid', updated_at = now() WHERE order_id = ${orderId}::uuid AND status = 'pending_payment')
    SELECT id::text AS id FROM sub_order WHERE order_id = ${orderId}::uuid ORDER BY created_at, id`;
}

async function removeCheckedOutFamilyItems(tx: Tx, order: Order): Promise<void> {
  const ids = familyCartItemIdsOf(order.adminNotes);
  if (ids.length === 0 || !order.familyId) return;
  await tx.familyCartItem.deleteMany({ where: { id: { in: ids }, familyId: order.familyId } });
}

/**
 * Requests the order confirmation e-mail. Without a replica of the customer yet (signed up and paid
 * before identity.user.upserted arrived, or while NATS was down) it is deferred, never skipped:
 * `sendDeferredOrderEmails` requests it when the replica arrives.
 */
async function requestConfirmationEmail(tx: Tx, order: Order, log: Logger, requestId?: string): Promise<void> {
  await lockCustomerEmails(tx, order.customerId);
  const customer = await tx.userReplica.findUnique({ where: { userId: order.customerId } });
  if (!customer) {
    await tx.deferredOrderEmail.createMany({ data: [{ orderId: order.id, customerId: order.customerId, requestId }], skipDuplicates: true });
    log.info({ orderId: order.id, customerId: order.customerId }, 'no user replica for the customer yet; order confirmation e-mail deferred until it arrives');
    return;
  }
  await enqueueConfirmationEmail(tx, order, customer, requestId);
}

/**
 * Serialises deferring an e-mail (payment) with the replica's arrival (user replica consumer) per
 * customer: without it, each transaction could miss the other's uncommitted row and the e-mail
 * would be neither sent nor deferred-and-found.
 */
export async function lockCustomerEmails(tx: Tx, customerId: string): Promise<void> {
  await lockKey(tx, `confirmation_email:${customerId}`);
}

/** Requests the confirmation e-mails deferred for this customer (their replica is now there), once each. Take `lockCustomerEmails` first. */
export async function sendDeferredOrderEmails(tx: Tx, customerId: string): Promise<number> {
  const deferred = await tx.deferredOrderEmail.findMany({ where: { customerId }, orderBy: { createdAt: 'asc' } });
  if (deferred.length === 0) return 0;
  const customer = await tx.userReplica.findUnique({ where: { userId: customerId } });
  if (!customer) return 0;
  const orders = await tx.order.findMany({ where: { id: { in: deferred.map((d) => d.orderId) } } });
  for (const row of deferred) {
    const order = orders.find((o) => o.id === row.orderId);
    if (order) await enqueueConfirmationEmail(tx, order, customer, row.requestId ?? undefined);
  }
  await tx.deferredOrderEmail.deleteMany({ where: { orderId: { in: deferred.map((d) => d.orderId) } } });
  return deferred.length;
}

async function enqueueConfirmationEmail(tx: Tx, order: Order, customer: { email: string; fullName: string }, requestId?: string): Promise<void> {
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
