import { randomUUID } from 'node:crypto';
import { enqueueEvent } from '@pasar/bus';
import { checkoutOrderCreated, type EventData, type ShippingAddressSnapshot } from '@pasar/contracts';
import { badRequest } from '@pasar/service-kit';
import { effectiveUnitPrice } from '../catalog/rules';
import { chooseVariant } from '../family/rules';
import { Prisma, type Order, type Product, type ProductVariant } from '../generated/prisma/client';
import { redeemPoints } from '../loyalty/loyalty';
import { activeKolCode, applicableVoucher, countKolCodeUse, countVoucherUse } from '../promotions/promotions';
import { chooseShipping, linesInLockOrder, planOrder, shippingAddressOf, shippingColumns, shortOrderId, type LineRequest, type OrderPlan } from './rules';

type Tx = Prisma.TransactionClient;
const ZERO = new Prisma.Decimal(0);

/** Everything an order is made of; single, family and B2B submit fill it in their own way. */
export interface PlaceOrderInput {
  customerId: string;
  lines: readonly { productId: string; variantId?: string | null; quantity: number }[];
  shippingAddress: ShippingAddressSnapshot;
  /** Methods the buyer chose, at most one per store of the cart; a store without one gets its cheapest active method. */
  shippingMethodIds?: readonly string[];
  /** true: a cart that spans stores is refused (400 `multiple_stores`). */
  singleStore?: boolean;
  voucher?: { id: string; tier: string | null } | null;
  kolCode?: string | null;
  loyaltyPoints?: number | null;
  /** Already validated and normalised. */
  buyerTin?: string | null;
  isB2b?: boolean;
  familyId?: string | null;
  adminNotes?: string | null;
  purchaseRequestIds?: readonly string[];
  idempotency?: { key: string; hash: string } | null;
  now: Date;
  /** ORDER_PAYMENT_TTL in ms: the order expires unpaid after it. */
  paymentTtlMs: number;
  requestId?: string;
}

type CatalogProduct = Product & { variants: ProductVariant[] };

interface PricedLine extends LineRequest {
  product: CatalogProduct;
  variant: ProductVariant | null;
  unitPrice: Prisma.Decimal;
  lineTotal: Prisma.Decimal;
}

const VARIANT_PROBLEMS = {
  variant_required: 'the product has variants: choose one of them',
  unknown_variant: 'the variant is not one of the product variants',
} as const;

/** Prices the lines server-side from the catalog: live products only, the variant's override over the base price. */
async function priceLines(tx: Tx, lines: readonly LineRequest[]): Promise<PricedLine[]> {
  const products = await tx.product.findMany({
    where: { id: { in: [...new Set(lines.map((l) => l.productId))] } },
    include: { variants: true },
  });
  const byId = new Map(products.map((p) => [p.id, p]));
  return lines.map((line) => {
    const product = byId.get(line.productId);
    if (!product || product.status !== 'live') throw badRequest('product_unavailable', `product ${line.productId} is not on sale`);
    const choice = chooseVariant(product.variants.map((v) => v.id), line.variantId);
    if (!choice.ok) throw badRequest(choice.code, `${product.name}: ${VARIANT_PROBLEMS[choice.code]}`);
    const variant = product.variants.find((v) => v.id === choice.variantId) ?? null;
    const unitPrice = effectiveUnitPrice(product.basePrice, variant?.priceOverride);
    const priced = { ...line, product, variant, unitPrice, lineTotal: unitPrice.mul(line.quantity) };
    // sold out already: refuse before writing anything (takeStock is what guarantees it)
    if ((variant ?? product).stock < line.quantity) throw insufficientStock(priced);
    return priced;
  });
}

function insufficientStock(line: PricedLine) {
  const name = line.variant ? `${line.product.name} (${line.variant.name})` : line.product.name;
  return badRequest('insufficient_stock', `not enough stock of ${name} for ${line.quantity}`);
}

/** The stores of the cart in the order they first appear. */
const storesOf = (lines: readonly PricedLine[]) => [...new Set(lines.map((l) => l.product.storeId))];

/** Shipping method and fee per store (DESIGN §7 quote); 400 `shipping_method_unavailable` / `shipping_unavailable`. */
async function shippingPerStore(tx: Tx, lines: readonly PricedLine[], chosenIds: readonly string[]) {
  const stores = storesOf(lines);
  const methods = await tx.shippingMethodReplica.findMany({ where: { storeId: { in: stores } } });
  const chosen = new Map<string, string>();
  for (const id of new Set(chosenIds)) {
    const method = methods.find((m) => m.id === id && m.isActive);
    if (!method || chosen.has(method.storeId)) {
      throw badRequest('shipping_method_unavailable', 'each chosen shipping method must be an active method of a store of the cart, one per store');
    }
    chosen.set(method.storeId, id);
  }
  const perStore = new Map<string, { methodId: string | null; fee: Prisma.Decimal }>();
  for (const storeId of stores) {
    const storeLines = lines.filter((l) => l.product.storeId === storeId).map((l) => ({ ...l.product, quantity: l.quantity }));
    const choice = chooseShipping(
      methods.filter((m) => m.storeId === storeId),
      chosen.get(storeId) ?? null,
      storeLines,
    );
    if (!choice.ok) throw badRequest(choice.code, choice.detail);
    perStore.set(storeId, { methodId: choice.methodId, fee: choice.fee });
  }
  return perStore;
}

/**
 * Takes the stock of every line with a conditional update, in the lines' fixed lock order (rows
 * are locked as late as possible: right before commit). 400 `insufficient_stock` naming the
 * product when a row has fewer units left; the caller's transaction then rolls back entirely.
 */
async function takeStock(tx: Tx, lines: readonly PricedLine[]): Promise<void> {
  for (const line of lines) {
    const taken = line.variant
      ? await tx.$executeRaw`UPDATE product_variant SET stock = stock - ${line.quantity}::int WHERE id = ${line.variant.id}::uuid AND stock >= ${line.quantity}::int`
      : await tx.$executeRaw`UPDATE product SET stock = stock - ${line.quantity}::int WHERE id = ${line.product.id}::uuid AND stock >= ${line.quantity}::int`;
    if (taken !== 1) throw insufficientStock(line);
  }
}

/** What the order transaction wrote, for its `checkout.order.created` event. */
interface WrittenOrder {
  order: Order;
  plan: OrderPlan;
  lines: readonly PricedLine[];
  subOrderIds: readonly string[];
  itemIds: readonly string[];
  shipping: ReadonlyMap<string, { methodId: string | null }>;
}

function orderCreatedEvent({ order, plan, lines, subOrderIds, itemIds, shipping }: WrittenOrder): EventData<typeof checkoutOrderCreated> {
  return {
    orderId: order.id,
    shortId: order.shortId,
    customerId: order.customerId,
    isB2b: order.isB2b,
    familyId: order.familyId,
    purchaseRequestIds: order.purchaseRequestIds,
    buyerTin: order.buyerTin,
    total: order.total.toFixed(2),
    shippingAddress: shippingAddressOf(order),
    subOrders: plan.subOrders.map((sub, s) => ({
      subOrderId: subOrderIds[s],
      storeId: sub.storeId,
      shippingMethodId: shipping.get(sub.storeId)?.methodId ?? null,
      subtotal: sub.subtotal.toFixed(2),
      shippingFee: sub.shippingFee.toFixed(2),
      total: sub.total.toFixed(2),
      items: lines.flatMap((line, i) =>
        line.product.storeId === sub.storeId
          ? [
              {
                orderItemId: itemIds[i],
                productId: line.productId,
                variantId: line.variantId,
                productName: line.product.name,
                variantName: line.variant?.name ?? null,
                quantity: line.quantity,
                unitPrice: line.unitPrice.toFixed(2),
                weightKg: line.product.weightKg?.toFixed(3) ?? null,
              },
            ]
          : [],
      ),
    })),
    createdAt: order.createdAt.toISOString(),
  };
}

/**
 * Writes one order inside the caller's transaction (DESIGN §6): prices the lines server-side,
 * checks the voucher, KOL code and points, quotes shipping per store, writes the order, its
 * sub-orders (one per store), items, the pending payment and the `checkout.order.created` outbox
 * row; then, last, takes stock (fixed row order, conditional updates), counts the voucher use,
 * debits the points and counts the KOL use, each with a conditional update that refuses to
 * oversell, exceed a use limit or go below zero points. Any refusal is a ProblemError and the whole transaction
 * rolls back. Used by single, family and B2B submit.
 */
export async function placeOrder(tx: Tx, input: PlaceOrderInput): Promise<Order> {
  const lines = await priceLines(tx, linesInLockOrder(input.lines));
  const stores = storesOf(lines);
  if (input.singleStore && stores.length > 1) throw badRequest('multiple_stores', 'a cart may hold the products of one store only');
  const shipping = await shippingPerStore(tx, lines, input.shippingMethodIds ?? []);
  const subtotal = lines.reduce((sum, l) => sum.add(l.lineTotal), ZERO);
  const voucher = input.voucher
    ? await applicableVoucher(tx, input.voucher.id, { tier: input.voucher.tier, storeIds: stores, subtotal, now: input.now })
    : null;
  const kolCode = input.kolCode ? await activeKolCode(tx, input.kolCode) : null;
  const points = input.loyaltyPoints ?? 0;
  const planned = planOrder({
    lines: lines.map((l) => ({ storeId: l.product.storeId, categoryId: l.product.categoryId, lineTotal: l.lineTotal })),
    kolCode,
    voucherDiscount: voucher?.discount ?? ZERO,
    points,
    shippingFees: new Map([...shipping].map(([storeId, s]) => [storeId, s.fee])),
  });
  if (!planned.ok) throw badRequest(planned.code, planned.detail);

  const order = await writeOrder(tx, { input, plan: planned.plan, lines, shipping, voucherId: voucher?.voucher.id ?? null, kolCodeId: kolCode?.id ?? null });

  // The contended rows, last, so their locks are held only until the commit that follows, and
  // always in this order (as the expiry release takes them): stock rows, voucher, points, KOL code.
  await takeStock(tx, lines);
  if (order.voucherId) await countVoucherUse(tx, order.voucherId, input.now);
  if (points > 0 && !(await redeemPoints(tx, { customerId: input.customerId, points, orderId: order.id }))) {
    throw badRequest('insufficient_points', `the loyalty balance does not cover ${points} points`);
  }
  if (order.kolCodeId) await countKolCodeUse(tx, order.kolCodeId);
  return order;
}

/** A priced and checked order, ready to be written. */
interface PricedOrder {
  input: PlaceOrderInput;
  plan: OrderPlan;
  lines: readonly PricedLine[];
  shipping: ReadonlyMap<string, { methodId: string | null }>;
  voucherId: string | null;
  kolCodeId: string | null;
}

/** Inserts the order, its sub-orders, items, the pending payment and the `checkout.order.created` outbox row. */
async function writeOrder(tx: Tx, { input, plan, lines, shipping, voucherId, kolCodeId }: PricedOrder): Promise<Order> {
  const order = await tx.order.create({
    data: {
      id: randomUUID(),
      shortId: shortOrderId(),
      customerId: input.customerId,
      isB2b: input.isB2b ?? false,
      familyId: input.familyId ?? null,
      buyerTin: input.buyerTin ?? null,
      adminNotes: input.adminNotes ?? null,
      subtotal: plan.subtotal,
      discountTotal: plan.discountTotal,
      shippingTotal: plan.shippingTotal,
      total: plan.total,
      pointsRedeemed: input.loyaltyPoints ?? 0,
      voucherId,
      kolCodeId,
      purchaseRequestIds: [...(input.purchaseRequestIds ?? [])],
      idempotencyKey: input.idempotency?.key ?? null,
      requestHash: input.idempotency?.hash ?? null,
      ...shippingColumns(input.shippingAddress),
      expiresAt: new Date(input.now.getTime() + input.paymentTtlMs),
      createdAt: input.now,
    },
  });
  const subOrderIds = plan.subOrders.map(() => randomUUID());
  const itemIds = lines.map(() => randomUUID());
  const subOrderOf = (storeId: string) => subOrderIds[plan.subOrders.findIndex((s) => s.storeId === storeId)];
  await tx.subOrder.createMany({
    data: plan.subOrders.map((sub, s) => ({
      id: subOrderIds[s],
      orderId: order.id,
      storeId: sub.storeId,
      shippingMethodId: shipping.get(sub.storeId)?.methodId ?? null,
      subtotal: sub.subtotal,
      discount: sub.discount,
      shippingFee: sub.shippingFee,
      total: sub.total,
      createdAt: input.now,
    })),
  });
  await tx.orderItem.createMany({
    data: lines.map((line, i) => ({
      id: itemIds[i],
      orderId: order.id,
      subOrderId: subOrderOf(line.product.storeId),
      storeId: line.product.storeId,
      productId: line.productId,
      variantId: line.variantId,
      productName: line.product.name,
      variantName: line.variant?.name ?? null,
      unitPrice: line.unitPrice,
      quantity: line.quantity,
      lineTotal: line.lineTotal,
      discount: plan.lineDiscounts[i],
      createdAt: input.now,
    })),
  });
  await tx.payment.create({ data: { orderId: order.id, amount: plan.total } });
  await enqueueEvent(tx, checkoutOrderCreated, orderCreatedEvent({ order, plan, lines, subOrderIds, itemIds, shipping }), {
    source: 'checkout',
    requestId: input.requestId,
    occurredAt: input.now,
  });
  return order;
}
