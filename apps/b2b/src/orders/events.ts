import { consumeWithInbox, type RunningConsumer, type Unvalidated } from '@pasar/bus';
import { checkoutOrderCreated, checkoutOrderPaid, checkoutOrderStatusChanged, type EventData } from '@pasar/contracts';
import type { Logger } from 'pino';
import { lockKey, type Tx } from '../deps';
import type { B2bContext } from '../feature';
import { laterStatus } from './rules';

type OrderCreated = EventData<typeof checkoutOrderCreated>;
type OrderPaid = EventData<typeof checkoutOrderPaid>;
type OrderStatusChanged = EventData<typeof checkoutOrderStatusChanged>;

/** checkout.order.created → requests paid + read model; .paid and .status_changed → read model status. */
export function orderConsumers({ bus, prisma, log }: B2bContext): RunningConsumer[] {
  const byOrder = (event: { orderId: string }) => `order:${event.orderId}`;
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
      handler: (order, { tx }) => confirmOrder(tx, log, order),
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
 * and the order enters the read model. A request the sweep already released (approved again:
 * the crossing) is still the order's: the order exists and was placed for it, so it is confirmed
 * too. A request another order already took, or that was cancelled, is left alone and logged.
 */
export async function confirmOrder(tx: Tx, log: Logger, order: OrderCreated): Promise<void> {
  if (!isB2bOrderWithRequests(order)) return;
  await lockKey(tx, `order:${order.orderId}`);
  const requests = await tx.purchaseRequest.findMany({ where: { id: { in: order.purchaseRequestIds } }, select: { id: true, companyId: true, status: true, orderId: true } });
  const companyId = requests[0]?.companyId;
  if (!companyId) {
    log.warn({ orderId: order.orderId }, 'B2B order for unknown purchase requests');
    return;
  }
  const at = new Date(order.createdAt);
  const confirmed = await tx.purchaseRequest.updateMany({
    where: { id: { in: order.purchaseRequestIds }, orderId: null, status: { in: ['checkout_pending', 'approved'] } },
    data: { status: 'paid', orderId: order.orderId, reservedAt: null, updatedAt: at },
  });
  if (confirmed.count < requests.filter((r) => r.orderId !== order.orderId).length) {
    log.warn({ orderId: order.orderId, requests }, 'some purchase requests of a B2B order were taken or cancelled meanwhile');
  }
  const fields = {
    companyId,
    shortId: order.shortId,
    customerId: order.customerId,
    total: order.total,
    subOrderCount: order.subOrders.length,
    createdAt: at,
  };
  const row = await tx.b2bOrder.findUnique({ where: { orderId: order.orderId } });
  if (row) await tx.b2bOrder.update({ where: { orderId: order.orderId }, data: fields });
  else await tx.b2bOrder.create({ data: { orderId: order.orderId, status: 'pending_payment', ...fields } });
}

/** checkout.order.paid: status paid (never backwards) and the paid time, for spend by month. */
export async function applyOrderPaid(tx: Tx, paid: OrderPaid): Promise<void> {
  if (!paid.isB2b) return;
  await mergeStatus(tx, paid.orderId, 'paid', new Date(paid.paidAt));
}

/** checkout.order.status_changed: same end state whatever the order or overlap of the events (STYLE §3). */
export async function applyOrderStatus(tx: Tx, change: OrderStatusChanged): Promise<void> {
  if (!change.isB2b) return;
  await mergeStatus(tx, change.orderId, change.status, change.status === 'paid' ? new Date(change.changedAt) : null);
}

async function mergeStatus(tx: Tx, orderId: string, status: OrderStatusChanged['status'], paidAt: Date | null): Promise<void> {
  await lockKey(tx, `order:${orderId}`);
  const row = await tx.b2bOrder.findUnique({ where: { orderId } });
  const next = laterStatus(row?.status ?? null, status);
  const stamp = row?.paidAt ?? paidAt;
  if (row) await tx.b2bOrder.update({ where: { orderId }, data: { status: next, paidAt: stamp, updatedAt: new Date() } });
  else await tx.b2bOrder.create({ data: { orderId, status: next, paidAt: stamp } });
}
