import { randomBytes, randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '../generated/prisma/client';

/** Test data only: an order as a submit leaves it, written straight to the checkout schema. */
export interface PendingOrderOptions {
  customerId?: string;
  /** One sub-order per store, each with one line of its own product. Default 1. */
  stores?: number;
  /** The first line takes a variant (stock on the variant) instead of product stock. */
  variant?: boolean;
  quantity?: number;
  unitPrice?: string;
  shippingFee?: string;
  /** A voucher with this discount counted once (used_count 1), the discount on the first sub-order. */
  voucherDiscount?: string;
  kolCode?: boolean;
  /** Points debited at submit (balance already lowered, `redeem` row written); 100 points = MYR 1.00 off. */
  pointsRedeemed?: number;
  /** The customer's point balance left after the submit. Default 0. */
  pointsBalance?: number;
  expiresAt?: Date;
  familyId?: string | null;
  adminNotes?: string | null;
  isB2b?: boolean;
  /** The buying company of a B2B order. */
  companyId?: string | null;
  /** Buy the same product/variant rows, voucher and KOL code as this earlier order (taking stock and uses again). */
  sameGoodsAs?: SeededOrder;
}

export interface SeededLine {
  productId: string;
  variantId: string | null;
  /** Stock left on the row the line took from, after the submit. */
  stockAfterSubmit: number;
}

export interface SeededOrder {
  orderId: string;
  shortId: string;
  customerId: string;
  total: string;
  subOrders: { id: string; storeId: string; total: string }[];
  lines: SeededLine[];
  voucherId: string | null;
  kolCodeId: string | null;
}

/** Stock on every product/variant before the submit took its quantity. */
export const STOCK_BEFORE_SUBMIT = 10;

const money = (value: string | number) => new Prisma.Decimal(value);

/**
 * Writes an order in pending_payment with its sub-orders, items and pending payment, and takes
 * from stock, voucher, KOL code and points what a submit would have taken.
 */
export async function seedPendingOrder(prisma: PrismaClient, options: PendingOrderOptions = {}): Promise<SeededOrder> {
  const customerId = options.customerId ?? randomUUID();
  const storeCount = options.stores ?? 1;
  const quantity = options.quantity ?? 2;
  const unitPrice = money(options.unitPrice ?? '25.50');
  const shippingFee = money(options.shippingFee ?? '4.50');
  const voucherDiscount = money(options.voucherDiscount ?? 0);
  const pointsRedeemed = options.pointsRedeemed ?? 0;
  const pointsDiscount = money(pointsRedeemed).dividedBy(100);
  const orderDiscount = voucherDiscount.plus(pointsDiscount);
  const lineTotal = unitPrice.times(quantity);
  const stockAfterSubmit = STOCK_BEFORE_SUBMIT - quantity;

  const earlier = options.sameGoodsAs;
  const voucherId = earlier ? await useAgain(prisma.voucher, earlier.voucherId) : options.voucherDiscount ? await seedVoucher(prisma, voucherDiscount) : null;
  const kolCodeId = earlier ? await useAgain(prisma.kolCode, earlier.kolCodeId) : options.kolCode ? await seedKolCode(prisma) : null;
  if (pointsRedeemed > 0 || options.pointsBalance) {
    await prisma.loyaltyAccount.upsert({
      where: { customerId },
      create: { customerId, balance: options.pointsBalance ?? 0, totalRedeemed: pointsRedeemed },
      update: { balance: options.pointsBalance ?? 0, totalRedeemed: { increment: pointsRedeemed } },
    });
  }

  const orderId = randomUUID();
  const shortId = `PSR-${randomBytes(5).toString('hex').toUpperCase()}`;
  const subOrders: SeededOrder['subOrders'] = [];
  const lines: SeededLine[] = [];
  const items: Prisma.OrderItemCreateManyInput[] = [];
  const subOrderRows: Prisma.SubOrderCreateManyInput[] = [];
  for (let i = 0; i < storeCount; i += 1) {
    const storeId = earlier?.subOrders[i]?.storeId ?? randomUUID();
    const earlierLine = earlier?.lines[i];
    const line = earlierLine
      ? await takeStockAgain(prisma, earlierLine, quantity)
      : await seedProduct(prisma, storeId, unitPrice, i === 0 && options.variant === true, stockAfterSubmit);
    const discount = i === 0 ? orderDiscount : money(0);
    const total = lineTotal.minus(discount).plus(shippingFee);
    const subOrderId = randomUUID();
    subOrderRows.push({ id: subOrderId, orderId, storeId, subtotal: lineTotal, discount, shippingFee, total, createdAt: new Date(Date.now() + i) });
    items.push({
      orderId,
      subOrderId,
      storeId,
      productId: line.productId,
      variantId: line.variantId,
      productName: `Product ${i + 1}`,
      unitPrice,
      quantity,
      lineTotal,
    });
    subOrders.push({ id: subOrderId, storeId, total: total.toFixed(2) });
    lines.push(line);
  }
  const subtotal = lineTotal.times(storeCount);
  const total = subtotal.minus(orderDiscount).plus(shippingFee.times(storeCount));
  await prisma.$transaction(async (tx) => {
    await tx.order.create({
      data: {
        id: orderId,
        shortId,
        customerId,
        isB2b: options.isB2b ?? false,
        companyId: options.companyId ?? null,
        familyId: options.familyId ?? null,
        adminNotes: options.adminNotes ?? null,
        subtotal,
        discountTotal: orderDiscount,
        shippingTotal: shippingFee.times(storeCount),
        total,
        pointsRedeemed,
        voucherId,
        kolCodeId,
        shipFullName: 'Siti Aminah',
        shipPhone: '+60123456789',
        shipAddressLine1: '12 Jalan Ampang',
        shipCity: 'Kuala Lumpur',
        shipPostcode: '50450',
        shipState: 'Wilayah Persekutuan',
        expiresAt: options.expiresAt ?? new Date(Date.now() + 30 * 60_000),
      },
    });
    await tx.subOrder.createMany({ data: subOrderRows });
    await tx.orderItem.createMany({ data: items });
    await tx.payment.create({ data: { orderId, amount: total } });
    if (pointsRedeemed > 0) await tx.loyaltyTransaction.create({ data: { customerId, type: 'redeem', points: -pointsRedeemed, orderId } });
  });
  return { orderId, shortId, customerId, total: total.toFixed(2), subOrders, lines, voucherId, kolCodeId };
}

async function seedProduct(prisma: PrismaClient, storeId: string, basePrice: Prisma.Decimal, withVariant: boolean, stock: number): Promise<SeededLine> {
  const slug = `product-${randomBytes(4).toString('hex')}`;
  const product = await prisma.product.create({
    data: { storeId, name: slug, slug, status: 'live', basePrice, stock: withVariant ? STOCK_BEFORE_SUBMIT : stock },
  });
  if (!withVariant) return { productId: product.id, variantId: null, stockAfterSubmit: stock };
  const variant = await prisma.productVariant.create({ data: { productId: product.id, name: 'Large', stock } });
  return { productId: product.id, variantId: variant.id, stockAfterSubmit: stock };
}

async function takeStockAgain(prisma: PrismaClient, line: SeededLine, quantity: number): Promise<SeededLine> {
  const row = line.variantId
    ? await prisma.productVariant.update({ where: { id: line.variantId }, data: { stock: { decrement: quantity } } })
    : await prisma.product.update({ where: { id: line.productId }, data: { stock: { decrement: quantity } } });
  return { ...line, stockAfterSubmit: row.stock };
}

interface UsedCounter {
  update(args: { where: { id: string }; data: { usedCount: { increment: number } } }): PromiseLike<unknown>;
}

async function useAgain(table: UsedCounter, id: string | null): Promise<string | null> {
  if (id) await table.update({ where: { id }, data: { usedCount: { increment: 1 } } });
  return id;
}

async function seedVoucher(prisma: PrismaClient, discountValue: Prisma.Decimal): Promise<string> {
  const voucher = await prisma.voucher.create({
    data: { code: `V${randomBytes(4).toString('hex')}`, tier: 'platform', discountType: 'fixed', discountValue, maxUses: 100, usedCount: 1 },
  });
  return voucher.id;
}

async function seedKolCode(prisma: PrismaClient): Promise<string> {
  const category = await prisma.category.create({ data: { name: `Cat ${randomUUID()}`, slug: `cat-${randomUUID()}` } });
  const kol = await prisma.kolCode.create({
    data: { code: `K${randomBytes(4).toString('hex')}`, discountType: 'percentage', discountValue: new Prisma.Decimal(10), categoryId: category.id, usedCount: 1 },
  });
  return kol.id;
}

/** Puts the customer in the user replica (where the confirmation e-mail's recipient comes from). */
export async function seedCustomerReplica(prisma: PrismaClient, userId: string, email = 'siti@example.test', fullName = 'Siti Aminah'): Promise<void> {
  await prisma.userReplica.create({ data: { userId, email, fullName, role: 'customer', updatedAt: new Date() } });
}
