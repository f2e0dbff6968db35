import { callRpc, consumeWithInbox, type Bus, type RunningConsumer, type Unvalidated } from '@pasar/bus';
import {
  checkoutB2bReservationOrder,
  checkoutCancelB2bOrder,
  checkoutOrderCreated,
  checkoutOrderPaid,
  checkoutOrderStatusChanged,
  type EventData,
  type RpcResponse,
} from '@pasar/contracts';
import type { Logger } from 'pino';
import { lockKey, type Tx } from '../deps';
import type { B2bContext } from '../feature';
import { laterStatus, orderEndedUnpaid, orderHoldsRequests } from './rules';

type OrderCreated = EventData<typeof checkoutOrderCreated>;
type OrderPaid = EventData<typeof checkoutOrderPaid>;
type OrderStatusChanged = EventData<typeof checkoutOrderStatusChanged>;

/** What confirming an order asks checkout: which order a reservation placed, and to cancel a duplicate. */
export interface CheckoutOrders {
  reservationOrder(reservationId: string): Promise<RpcResponse<typeof checkoutB2bReservationOrder>>;
  cancelOrder(orderId: string, reason: string): Promise<RpcResponse<typeof checkoutCancelB2bOrder>>;
}

/** CheckoutOrders over the bus; a failed call fails the handler, and the event is delivered again. */
export const checkoutOrdersOver = (bus: Bus): CheckoutOrders => ({
  reservationOrder: (reservationId) => callRpc(bus, checkoutB2bReservationOrder, { reservationId }),
  cancelOrder: (orderId, reason) => callRpc(bus, checkoutCancelB2bOrder, { orderId, reason }),
});

/** checkout.order.created → requests paid + read model; .paid and .status_changed → read model status. */
export function orderConsumers({ bus, prisma, log }: B2bContext): RunningConsumer[] {
  const byOrder = (event: { orderId: string }) => `order:${event.orderId}`;
  const checkout = checkoutOrdersOver(bus);
  // paid and status changes of consumer orders: acked on the raw data, without parsing, a transaction or an inbox row
  return [
    consumeWithInbox(bus, {
      name: 'b2b-order-created',
      event: checkoutOrderCreated,
      db: prisma,
      // B2B orders only: NATS never delivers b2b the consumer orders (checkout.order.created is routed)
      routeKey: 'b2b',
      ignore: (order) => !isB2bOrderWithRequests(order),
      lockKey: byOrder,
      handler: (order, { tx }) => confirmOrder(tx, log, checkout, order),
    }),
    consumeWithInbox(bus, {
      name: 'b2b-order-paid',
      event: checkoutOrderPaid,
      db: prisma,
      ignore: (paid) => paid.isB2b !== true,
      lockKey: byOrder,
      handler: (paid, { tx }) => applyOrderPaid(tx, paid),
    }),
    consumeWithInbox(bus, {
      name: 'b2b-order-status',
      event: checkoutOrderStatusChanged,
      db: prisma,
      ignore: (change) => change.isB2b !== true,
      lockKey: byOrder,
      handler: (change, { tx }) => applyOrderStatus(tx, change),
    }),
  ];
}

/** Only a B2B order placed for purchase requests concerns b2b's order handlers (also asked of unchecked data, by `ignore`). */
export const isB2bOrderWithRequests = (order: Unvalidated<OrderCreated>): boolean =>
  order.isB2b === true && Array.isArray(order.purchaseRequestIds) && order.purchaseRequestIds.length > 0;

/**
 * Step 3 of B2B submit (confirm): the order's purchase requests become paid with its order id,
 * and the order enters the read model, only when every request is held (checkout_pending) by the
 * reservation that placed this order, as checkout answers (rpc.checkout.b2b_reservation_order).
 * Otherwise the order is a duplicate (its reservation was released and the requests held or
 * taken by another checkout since, or they were cancelled): checkout cancels it and returns its
 * stock (rpc.checkout.cancel_b2b_order), so one order at most is ever payable for a request.
 * A redelivery changes nothing; an order that ended unpaid before its order.created binds nothing.
 */
export async function confirmOrder(tx: Tx, log: Logger, checkout: CheckoutOrders, order: OrderCreated): Promise<void> {
  if (!isB2bOrderWithRequests(order)) return;
  await lockKey(tx, `order:${order.orderId}`);
  const requests = await tx.purchaseRequest.findMany({
    where: { id: { in: order.purchaseRequestIds } },
    select: { id: true, companyId: true, status: true, orderId: true, reservationId: true },
  });
  const companyId = requests[0]?.companyId;
  if (!companyId) {
    log.warn({ orderId: order.orderId }, 'B2B order for unknown purchase requests');
    return;
  }
  const row = await tx.b2bOrder.findUnique({ where: { orderId: order.orderId } });
  const alreadyBound = requests.length === order.purchaseRequestIds.length && requests.every((r) => r.orderId === order.orderId);
  if (!alreadyBound) {
    const reservationId = requests[0].reservationId;
    const placedBy = reservationId ? await checkout.reservationOrder(reservationId) : null;
    const holds = orderHoldsRequests(order.orderId, order.purchaseRequestIds.length, requests, placedBy?.orderId ?? null);
    if (!holds) {
      const answer = await checkout.cancelOrder(order.orderId, 'its purchase requests are held by another checkout');
      log.warn({ orderId: order.orderId, requests, answer }, 'a B2B order whose purchase requests its reservation no longer holds was cancelled');
      return;
    }
    // an order that ended unpaid before this event takes nothing: the sweep releases its reservation
    if (!(row && orderEndedUnpaid(row.status))) {
      await tx.purchaseRequest.updateMany({
        where: { id: { in: order.purchaseRequestIds }, reservationId, status: 'checkout_pending' },
        data: { status: 'paid', orderId: order.orderId, reservedAt: null, updatedAt: new Date(order.createdAt) },
      });
    }
  }
  const fields = {
    companyId,
    shortId: order.shortId,
    customerId: order.customerId,
    total: order.total,
    subOrderCount: order.subOrders.length,
    createdAt: new Date(order.createdAt),
  };
  if (row) await tx.b2bOrder.update({ where: { orderId: order.orderId }, data: fields });
  else await tx.b2bOrder.create({ data: { orderId: order.orderId, status: 'pending_payment', ...fields } });
}

/** checkout.order.paid: status paid (never backwards) and the paid time, for spend by month. */
export async function applyOrderPaid(tx: Tx, paid: OrderPaid): Promise<void> {
  if (!paid.isB2b) return;
  await mergeStatus(tx, paid.orderId, 'paid', new Date(paid.paidAt));
}

/**
 * checkout.order.status_changed: same end state whatever the order or overlap of the events
 * (STYLE §3). An order that ended unpaid (expired, payment failed) gives its purchase
 * requests back: they are approved again, for another checkout.
 */
export async function applyOrderStatus(tx: Tx, change: OrderStatusChanged): Promise<void> {
  if (!change.isB2b) return;
  await mergeStatus(tx, change.orderId, change.status, change.status === 'paid' ? new Date(change.changedAt) : null);
  if (orderEndedUnpaid(change.status)) {
    await tx.purchaseRequest.updateMany({
      where: { orderId: change.orderId, status: 'paid' },
      data: { status: 'approved', orderId: null, reservationId: null, reservedAt: null, updatedAt: new Date(change.changedAt) },
    });
  }
}

async function mergeStatus(tx: Tx, orderId: string, status: OrderStatusChanged['status'], paidAt: Date | null): Promise<void> {
  await lockKey(tx, `order:${orderId}`);
  const row = await tx.b2bOrder.findUnique({ where: { orderId } });
  const next = laterStatus(row?.status ?? null, status);
  const stamp = row?.paidAt ?? paidAt;
  if (row) await tx.b2bOrder.update({ where: { orderId }, data: { status: next, paidAt: stamp, updatedAt: new Date() } });
  else await tx.b2bOrder.create({ data: { orderId, status: next, paidAt: stamp } });
}
