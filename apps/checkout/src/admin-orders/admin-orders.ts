import type { AdminOrderDetail, AdminOrderPage, AdminOrderSummary, AdminOrdersQuery } from '@pasar/contracts';
import { afterTimeCursor, notFound, timePage, type Refusal } from '@pasar/service-kit';
import type { Order, Prisma, PrismaClient } from '../generated/prisma/client';
import { orderQueryOf, orderTimeline } from './rules';

export interface AdminOrderDeps {
  prisma: PrismaClient;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;
const cents = (value: Prisma.Decimal | null) => (value === null ? null : value.toFixed(2));

/** The orders the search names, newest first, `limit` after `cursor`; an unusable q is refused. */
export async function searchOrders(deps: AdminOrderDeps, query: AdminOrdersQuery): Promise<AdminOrderPage | Refusal<'unusable_query'>> {
  const named = orderQueryOf(query.q);
  if ('ok' in named) return named;
  const where: Prisma.OrderWhereInput = afterTimeCursor(query.cursor);
  if (named.kind === 'id') where.id = named.id;
  else if (named.kind === 'short_id') where.shortId = named.shortId;
  else {
    const customers = await deps.prisma.userReplica.findMany({ where: { email: named.email }, select: { userId: true } });
    where.customerId = { in: customers.map((c) => c.userId) };
  }
  const rows = await deps.prisma.order.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
    include: { _count: { select: { subOrders: true } } },
  });
  const { page, nextCursor } = timePage(rows, query.limit);
  const customers = await customersOf(deps, page);
  return { orders: page.map((o) => toSummary(o, o._count.subOrders, customers.get(o.customerId))), nextCursor };
}

async function customersOf(deps: AdminOrderDeps, orders: Order[]): Promise<Map<string, { email: string; fullName: string }>> {
  const ids = [...new Set(orders.map((o) => o.customerId))];
  const users = ids.length ? await deps.prisma.userReplica.findMany({ where: { userId: { in: ids } } }) : [];
  return new Map(users.map((u) => [u.userId, { email: u.email, fullName: u.fullName }]));
}

function toSummary(order: Order, subOrderCount: number, customer: { email: string; fullName: string } | undefined): AdminOrderSummary {
  return {
    id: order.id,
    shortId: order.shortId,
    status: order.status,
    customerId: order.customerId,
    customerEmail: customer?.email ?? null,
    customerName: customer?.fullName ?? null,
    total: order.total.toFixed(2),
    subOrderCount,
    isB2b: order.isB2b,
    createdAt: order.createdAt.toISOString(),
  };
}

/** One order as the console shows it; the timeline from checkout's own rows. */
export async function adminOrderDetail(deps: AdminOrderDeps, id: string): Promise<AdminOrderDetail> {
  const order = await deps.prisma.order.findUnique({
    where: { id },
    include: { subOrders: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], include: { items: { orderBy: { createdAt: 'asc' } } } }, payment: true },
  });
  if (!order) throw notFound('order');
  const [notifications, returns, stores, customers] = await Promise.all([
    deps.prisma.paymentNotification.findMany({ where: { orderId: id }, orderBy: [{ receivedAt: 'asc' }, { id: 'asc' }] }),
    deps.prisma.returnRequest.findMany({ where: { orderId: id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    deps.prisma.storeReplica.findMany({ where: { storeId: { in: [...new Set(order.subOrders.map((s) => s.storeId))] } }, select: { storeId: true, name: true } }),
    customersOf(deps, [order]),
  ]);
  const storeName = new Map(stores.map((s) => [s.storeId, s.name]));
  const subOrders = order.subOrders.map((s) => ({ ...s, storeName: storeName.get(s.storeId) ?? null }));
  const payment = order.payment;
  return {
    order: {
      ...toSummary(order, order.subOrders.length, customers.get(order.customerId)),
      subtotal: order.subtotal.toFixed(2),
      discountTotal: order.discountTotal.toFixed(2),
      shippingTotal: order.shippingTotal.toFixed(2),
      buyerTin: order.buyerTin,
      familyId: order.familyId,
      paidAt: iso(order.paidAt),
      expiresAt: order.expiresAt.toISOString(),
    },
    subOrders: subOrders.map((s) => ({
      id: s.id,
      storeId: s.storeId,
      storeName: s.storeName,
      status: s.status,
      subtotal: s.subtotal.toFixed(2),
      shippingFee: s.shippingFee.toFixed(2),
      total: s.total.toFixed(2),
      courier: s.courier,
      trackingId: s.trackingId,
      items: s.items.map((i) => ({ productName: i.productName, variantName: i.variantName, quantity: i.quantity, lineTotal: i.lineTotal.toFixed(2) })),
    })),
    payment: payment && {
      status: payment.status,
      amount: payment.amount.toFixed(2),
      refundedAmount: payment.refundedAmount.toFixed(2),
      currency: payment.currency,
      attempts: payment.attempts,
      transactionId: payment.transactionId,
      paidAt: iso(payment.paidAt),
    },
    paymentNotifications: notifications.map((n) => ({ transactionId: n.transactionId, status: n.status, verified: n.verified, receivedAt: n.receivedAt.toISOString() })),
    timeline: orderTimeline({
      order,
      notifications,
      subOrders,
      returns: returns.map((r) => ({ ...r, refundAmount: cents(r.refundAmount) })),
    }),
  };
}
