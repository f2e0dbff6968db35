import type { CustomerOrderList, OrderDetail, PendingOrder } from '@pasar/contracts';
import { notFound } from '@pasar/service-kit';
import { pageCount } from '../catalog/rules';
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import { ORDER_PAGE_SIZE, shippingAddressOf } from './rules';
import { systemClock } from '../deps';

export interface OrderReadDeps {
  prisma: PrismaClient;
  clock?: () => Date;
}

/** A Prisma client or a transaction. */
type Db = PrismaClient | Prisma.TransactionClient;

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** GET /account/orders: the caller's orders, newest first, 20 per page. */
export async function listCustomerOrders({ prisma }: OrderReadDeps, customerId: string, page: number): Promise<CustomerOrderList> {
  const [orders, total] = await Promise.all([
    prisma.order.findMany({
      where: { customerId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (page - 1) * ORDER_PAGE_SIZE,
      take: ORDER_PAGE_SIZE,
      select: { id: true, shortId: true, status: true, total: true, createdAt: true },
    }),
    prisma.order.count({ where: { customerId } }),
  ]);
  const units = await prisma.orderItem.groupBy({
    by: ['orderId'],
    where: { orderId: { in: orders.map((o) => o.id) } },
    _sum: { quantity: true },
  });
  const unitsOf = new Map(units.map((u) => [u.orderId, u._sum.quantity ?? 0]));
  return {
    orders: orders.map((o) => ({
      id: o.id,
      shortId: o.shortId,
      status: o.status,
      total: o.total.toFixed(2),
      createdAt: o.createdAt.toISOString(),
      itemCount: unitsOf.get(o.id) ?? 0,
    })),
    page,
    totalPages: pageCount(total, ORDER_PAGE_SIZE),
  };
}

/**
 * The order detail (customer order detail; the B2B order detail mirrors it): the order, its
 * sub-orders with status, tracking and store name, their items, and the payment with its refunded
 * amount. null when no order has this id. The caller checks who may see it.
 */
export async function buildOrderDetail(db: Db, orderId: string): Promise<OrderDetail | null> {
  const order = await db.order.findUnique({
    where: { id: orderId },
    include: {
      subOrders: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], include: { items: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } } },
      payment: true,
    },
  });
  if (!order) return null;
  const stores = await db.storeReplica.findMany({
    where: { storeId: { in: order.subOrders.map((s) => s.storeId) } },
    select: { storeId: true, name: true },
  });
  const storeName = new Map(stores.map((s) => [s.storeId, s.name]));
  return {
    id: order.id,
    shortId: order.shortId,
    status: order.status,
    isB2b: order.isB2b,
    familyId: order.familyId,
    buyerTin: order.buyerTin,
    subtotal: order.subtotal.toFixed(2),
    discountTotal: order.discountTotal.toFixed(2),
    shippingTotal: order.shippingTotal.toFixed(2),
    total: order.total.toFixed(2),
    pointsRedeemed: order.pointsRedeemed,
    pointsEarned: order.pointsEarned,
    createdAt: order.createdAt.toISOString(),
    expiresAt: order.expiresAt.toISOString(),
    paidAt: iso(order.paidAt),
    shippingAddress: shippingAddressOf(order),
    subOrders: order.subOrders.map((sub) => ({
      id: sub.id,
      storeId: sub.storeId,
      storeName: storeName.get(sub.storeId) ?? null,
      status: sub.status,
      shippingFee: sub.shippingFee.toFixed(2),
      total: sub.total.toFixed(2),
      courier: sub.courier,
      trackingId: sub.trackingId,
      trackingUrl: sub.trackingUrl,
      shippedAt: iso(sub.shippedAt),
      deliveredAt: iso(sub.deliveredAt),
      cancelledAt: iso(sub.cancelledAt),
      items: sub.items.map((item) => ({
        id: item.id,
        productId: item.productId,
        variantId: item.variantId,
        productName: item.productName,
        variantName: item.variantName,
        unitPrice: item.unitPrice.toFixed(2),
        quantity: item.quantity,
        lineTotal: item.lineTotal.toFixed(2),
      })),
    })),
    payment: order.payment && {
      status: order.payment.status,
      amount: order.payment.amount.toFixed(2),
      refundedAmount: order.payment.refundedAmount.toFixed(2),
      paidAt: iso(order.payment.paidAt),
    },
  };
}

/** GET /account/orders/{id}: the caller's own order; anybody else's is 404. */
export async function customerOrderDetail({ prisma }: OrderReadDeps, customerId: string, orderId: string): Promise<OrderDetail> {
  const own = await prisma.order.findFirst({ where: { id: orderId, customerId }, select: { id: true } });
  const detail = own && (await buildOrderDetail(prisma, own.id));
  if (!detail) throw notFound('order');
  return detail;
}

/** GET /checkout/pending-order: the caller's newest order still awaiting payment and not expired, or null. */
export async function pendingOrderOf({ prisma, clock = systemClock }: OrderReadDeps, customerId: string): Promise<PendingOrder> {
  const order = await prisma.order.findFirst({
    where: { customerId, status: 'pending_payment', expiresAt: { gt: clock() } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  if (!order) return null;
  return {
    orderId: order.id,
    shortId: order.shortId,
    status: order.status,
    total: order.total.toFixed(2),
    createdAt: order.createdAt.toISOString(),
    expiresAt: order.expiresAt.toISOString(),
  };
}
