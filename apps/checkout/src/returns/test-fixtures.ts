import { randomBytes, randomUUID } from 'node:crypto';
import type { OrderStatus } from '@pasar/contracts';
import { Prisma, type PrismaClient } from '../generated/prisma/client';

/** Test data only: an order as checkout, payment and delivery leave it, written straight to the schema. */

/** One order line; lines of one store share its sub-order. */
export interface LineSpec {
  storeId: string;
  unitPrice?: string;
  quantity?: number;
  /** The line's share of the order's discounts. */
  discount?: string;
  productName?: string;
}

export interface OrderSpec {
  customerId: string;
  lines: LineSpec[];
  /** Parent status; default delivered (sub-orders delivered; shipped for any other status). */
  status?: OrderStatus;
  /** Stores whose sub-order was cancelled. */
  cancelledStores?: string[];
  /** The customer's point balance after the order earned its points; default what it earned. */
  pointsBalance?: number;
  /** Already refunded on the payment (e.g. by an earlier cancel). */
  refundedAmount?: string;
}

export interface SeededItem {
  id: string;
  storeId: string;
  subOrderId: string;
  productName: string;
}

export interface SeededOrder {
  orderId: string;
  customerId: string;
  /** Payment amount (the order total, shipping included). */
  total: string;
  pointsEarned: number;
  items: SeededItem[];
}

/** Shipping charged per sub-order: a refund never gives it back. */
export const SHIPPING_FEE = '5.00';

/** Where every seeded order went. */
const SHIP_TO = { shipFullName: 'Aminah', shipPhone: '+60123000000', shipAddressLine1: '1 Jalan Tun Razak', shipCity: 'Kuala Lumpur', shipPostcode: '50400', shipState: 'Wilayah Persekutuan' };

const dec = (value: string | number) => new Prisma.Decimal(value);

/** Writes a paid order (delivered by default) with its sub-orders, items, paid payment and the points it earned. */
export async function seedOrder(prisma: PrismaClient, spec: OrderSpec): Promise<SeededOrder> {
  const orderId = randomUUID();
  const status = spec.status ?? 'delivered';
  const subOrderIds = new Map(spec.lines.map((line) => [line.storeId, randomUUID()]));
  const items = spec.lines.map((line, i) => {
    const unitPrice = dec(line.unitPrice ?? '20.00');
    const quantity = line.quantity ?? 1;
    return {
      id: randomUUID(),
      orderId,
      subOrderId: subOrderIds.get(line.storeId) as string,
      storeId: line.storeId,
      productId: randomUUID(),
      productName: line.productName ?? `Item ${i + 1}`,
      unitPrice,
      quantity,
      lineTotal: unitPrice.times(quantity),
      discount: dec(line.discount ?? 0),
    };
  });
  const subOrders = [...subOrderIds].map(([storeId, id]) => {
    const lines = items.filter((item) => item.storeId === storeId);
    const subtotal = lines.reduce((sum, item) => sum.plus(item.lineTotal), dec(0));
    const discount = lines.reduce((sum, item) => sum.plus(item.discount), dec(0));
    const cancelled = spec.cancelledStores?.includes(storeId) ?? false;
    const subStatus = cancelled ? 'cancelled' : status === 'delivered' ? 'delivered' : 'shipped';
    return { id, orderId, storeId, status: subStatus, subtotal, discount, shippingFee: dec(SHIPPING_FEE), total: subtotal.minus(discount).plus(SHIPPING_FEE) } as const;
  });
  const subtotal = subOrders.reduce((sum, s) => sum.plus(s.subtotal), dec(0));
  const discountTotal = subOrders.reduce((sum, s) => sum.plus(s.discount), dec(0));
  const shippingTotal = dec(SHIPPING_FEE).times(subOrders.length);
  const total = subtotal.minus(discountTotal).plus(shippingTotal);
  const pointsEarned = subtotal.minus(discountTotal).floor().toNumber();
  const paidAt = new Date();

  await prisma.$transaction(async (tx) => {
    await tx.order.create({
      data: {
        id: orderId,
        shortId: `PSR-${randomBytes(5).toString('hex').toUpperCase()}`,
        customerId: spec.customerId,
        status,
        subtotal,
        discountTotal,
        shippingTotal,
        total,
        pointsEarned,
        ...SHIP_TO,
        expiresAt: paidAt,
        paidAt,
      },
    });
    await tx.subOrder.createMany({ data: subOrders });
    await tx.orderItem.createMany({ data: items });
    await tx.payment.create({ data: { orderId, status: 'paid', amount: total, refundedAmount: dec(spec.refundedAmount ?? 0), transactionId: randomUUID(), paidAt } });
    const balance = spec.pointsBalance ?? pointsEarned;
    await tx.loyaltyAccount.upsert({
      where: { customerId: spec.customerId },
      create: { customerId: spec.customerId, balance, totalEarned: pointsEarned },
      update: { balance, totalEarned: { increment: pointsEarned } },
    });
    await tx.loyaltyTransaction.create({ data: { customerId: spec.customerId, type: 'earn', points: pointsEarned, orderId } });
  });
  return {
    orderId,
    customerId: spec.customerId,
    total: total.toFixed(2),
    pointsEarned,
    items: items.map((item) => ({ id: item.id, storeId: item.storeId, subOrderId: item.subOrderId, productName: item.productName })),
  };
}
