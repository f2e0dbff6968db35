import { randomUUID } from 'node:crypto';
import { enqueueEvent, type OutboxTx } from '@pasar/bus';
import { checkoutOrderCreated, type EventData, type PostalAddress } from '@pasar/contracts';
import { badRequest } from '@pasar/service-kit';
import { chooseVariant, effectiveUnitPrice, VARIANT_PROBLEMS } from '../catalog/rules';
import { Prisma, type Order, type Product, type ProductVariant, type ShippingMethodReplica } from '../generated/prisma/client';
import { redeemPoints } from '../loyalty/ledger';
import { activeKolCode, applicableVoucher, countKolCodeUse, countVoucherUse, type Db } from '../promotions/promotions';
import { placeOrdersIn, type BatchEntry, type OrderBatcher, type PricedFrom } from './order-batch';
import { amountTooLarge, chooseShipping, linesInLockOrder, planOrder, shippingAddressOf, shippingColumns, shortOrderId, type LineRequest, type OrderPlan } from './rules';

type Tx = Prisma.TransactionClient;
const ZERO = new Prisma.Decimal(0);

/** Everything an order is made of; single, family and B2B submit fill it in their own way. */
export interface PlaceOrderInput {
  customerId: string;
  lines: readonly { productId: string; variantId?: string | null; quantity: number }[];
  shippingAddress: PostalAddress;
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
  /** The buying company of a B2B order. */
  companyId?: string | null;
  familyId?: string | null;
  adminNotes?: string | null;
  purchaseRequestIds?: readonly string[];
  idempotency?: { key: string; hash: string } | null;
  now: Date;
  /** ORDER_PAYMENT_TTL in ms: the order expires unpaid after it. */
  paymentTtlMs: number;
  requestId?: string;
}

type CatalogVariant = Pick<ProductVariant, 'id' | 'name' | 'priceOverride' | 'stock'>;
export type CatalogProduct = Pick<Product, 'id' | 'storeId' | 'categoryId' | 'name' | 'status' | 'basePrice' | 'weightKg' | 'lengthCm' | 'widthCm' | 'heightCm' | 'stock'> & {
  variants: CatalogVariant[];
};
export type CatalogMethod = Pick<ShippingMethodReplica, 'id' | 'storeId' | 'type' | 'rateConfig' | 'isActive'>;

/** What an order reads of the catalog: the products of the cart and the shipping methods of their stores. */
export interface Catalog {
  products: ReadonlyMap<string, CatalogProduct>;
  methods: readonly CatalogMethod[];
}

export interface CatalogRow {
  id: string;
  storeId: string;
  categoryId: string | null;
  name: string;
  status: Product['status'];
  basePrice: string;
  weightKg: string | null;
  lengthCm: string | null;
  widthCm: string | null;
  heightCm: string | null;
  stock: number;
  variants: { id: string; name: string; priceOverride: string | null; stock: number }[];
  methods: CatalogMethod[];
}

const decimalOrNull = (value: string | null) => (value === null ? null : new Prisma.Decimal(value));

/**
 * The json of one cart product row (alias `p`): its variants and the shipping methods of its
 * store. Plain SQL text: readCatalog runs it through Prisma, the submit's one read (submit.ts)
 * as a prepared statement on the pg pool.
 */
export const CATALOG_ROW_JSON = `json_build_object('id', p.id, 'storeId', p.store_id, 'categoryId', p.category_id, 'name', p.name,
      'status', p.status::text, 'basePrice', p.base_price::text, 'weightKg', p.weight_kg::text, 'lengthCm', p.length_cm::text,
      'widthCm', p.width_cm::text, 'heightCm', p.height_cm::text, 'stock', p.stock,
      'variants', COALESCE((SELECT json_agg(json_build_object('id', v.id, 'name', v.name, 'priceOverride', v.price_override::text, 'stock', v.stock))
        FROM product_variant v WHERE v.product_id = p.id), '[]'::json),
      'methods', COALESCE((SELECT json_agg(json_build_object('id', m.id, 'storeId', m.store_id, 'type', m.type, 'rateConfig', m.rate_config, 'isActive', m.is_active))
        FROM shipping_method_replica m WHERE m.store_id = p.store_id), '[]'::json))`;

/** The cart's products with their variants and the shipping methods of their stores, in one query. */
async function readCatalog(db: Db, productIds: readonly string[]): Promise<Catalog> {
  const rows = await db.$queryRaw<{ row: CatalogRow }[]>`
    SELECT ${Prisma.raw(CATALOG_ROW_JSON)} AS row FROM product p WHERE p.id = ANY(${[...new Set(productIds)]}::uuid[])`;
  return catalogOf(rows.map((r) => r.row));
}

/** A catalog product from its row (CATALOG_ROW_JSON), money and measures as decimals; its store's methods stay on the row. */
export function catalogProductOf(row: CatalogRow): CatalogProduct {
  return {
    ...row,
    basePrice: new Prisma.Decimal(row.basePrice),
    weightKg: decimalOrNull(row.weightKg),
    lengthCm: decimalOrNull(row.lengthCm),
    widthCm: decimalOrNull(row.widthCm),
    heightCm: decimalOrNull(row.heightCm),
    variants: row.variants.map((v) => ({ ...v, priceOverride: decimalOrNull(v.priceOverride) })),
  };
}

/** A catalog of products (catalogProductOf) and the shipping methods of their stores (each once). */
export function catalogFrom(entries: readonly { product: CatalogProduct; methods: readonly CatalogMethod[] }[]): Catalog {
  const methods = new Map<string, CatalogMethod>();
  for (const entry of entries) for (const method of entry.methods) methods.set(method.id, method);
  return { products: new Map(entries.map((entry) => [entry.product.id, entry.product])), methods: [...methods.values()] };
}

/** A catalog from its rows (CATALOG_ROW_JSON). */
export function catalogOf(rows: readonly CatalogRow[]): Catalog {
  return catalogFrom(rows.map((row) => ({ product: catalogProductOf(row), methods: row.methods })));
}

interface PricedLine extends LineRequest {
  product: CatalogProduct;
  variant: CatalogVariant | null;
  unitPrice: Prisma.Decimal;
  lineTotal: Prisma.Decimal;
}

/** Prices the lines server-side from the catalog: live products only, the variant's override over the base price. */
function priceLines(products: Catalog['products'], lines: readonly LineRequest[]): PricedLine[] {
  return lines.map((line) => {
    const product = products.get(line.productId);
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
function shippingPerStore(methods: Catalog['methods'], lines: readonly PricedLine[], chosenIds: readonly string[]) {
  const stores = storesOf(lines);
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

/** A priced and checked order, ready to be written (priceOrder, then writeOrder in the transaction). */
export interface PricedOrder {
  input: PlaceOrderInput;
  plan: OrderPlan;
  lines: readonly PricedLine[];
  shipping: ReadonlyMap<string, { methodId: string | null }>;
  voucherId: string | null;
  kolCodeId: string | null;
}

/**
 * Reads and checks everything an order needs, writing nothing (DESIGN §6): prices the lines
 * server-side, quotes shipping per store, checks the voucher, KOL code and points. Runs before the
 * order transaction so that the transaction is only its writes; what may have changed since
 * (stock, voucher uses, points, KOL code) is guarded by writeOrder's conditional updates.
 * Any refusal is a ProblemError. `catalogRead`: the cart's catalog when the caller read it already.
 */
export async function priceOrder(db: Db, input: PlaceOrderInput, catalogRead?: Catalog): Promise<PricedOrder> {
  const requested = linesInLockOrder(input.lines);
  const catalog = catalogRead ?? (await readCatalog(db, requested.map((l) => l.productId)));
  const lines = priceLines(catalog.products, requested);
  const stores = storesOf(lines);
  if (input.singleStore && stores.length > 1) throw badRequest('multiple_stores', 'a cart may hold the products of one store only');
  const shipping = shippingPerStore(catalog.methods, lines, input.shippingMethodIds ?? []);
  const subtotal = lines.reduce((sum, l) => sum.add(l.lineTotal), ZERO);
  const voucher = input.voucher
    ? await applicableVoucher(db, input.voucher.id, { tier: input.voucher.tier, storeIds: stores, subtotal, now: input.now })
    : null;
  const kolCode = input.kolCode ? await activeKolCode(db, input.kolCode) : null;
  const planned = planOrder({
    lines: lines.map((l) => ({ storeId: l.product.storeId, categoryId: l.product.categoryId, lineTotal: l.lineTotal })),
    kolCode,
    voucherDiscount: voucher?.discount ?? ZERO,
    points: input.loyaltyPoints ?? 0,
    shippingFees: new Map([...shipping].map(([storeId, s]) => [storeId, s.fee])),
  });
  if (!planned.ok) throw badRequest(planned.code, planned.detail);
  const tooLarge = amountTooLarge(planned.plan, lines.map((l) => l.lineTotal));
  if (tooLarge) throw badRequest('amount_too_large', tooLarge);
  return { input, plan: planned.plan, lines, shipping, voucherId: voucher?.voucher.id ?? null, kolCodeId: kolCode?.id ?? null };
}

/**
 * An order of the customer already has the Idempotency-Key of the order being written (place_orders
 * answered `earlier`): thrown so that the order transaction rolls back; the submit answers that order.
 */
export class EarlierOrder extends Error {
  constructor(readonly earlier: { orderId: string; requestHash: string | null }) {
    super('an order of this customer already has this Idempotency-Key');
  }
}

/**
 * Writes a priced order inside the caller's transaction (DESIGN §6), through the one order writer
 * every submit uses: `place_orders` with a batch of this one order (its rows, stock taken with
 * the rows locked in a fixed order, the Idempotency-Key checked; see order-batch.ts). Then counts
 * the voucher use, debits the points and counts the KOL use, each with a conditional update that
 * refuses to exceed a use limit or go below zero points. Any refusal is a ProblemError and the
 * whole transaction rolls back; an earlier order of the key is EarlierOrder. Used by single
 * (with a voucher, KOL code, points or TIN), family and B2B submit.
 */
export async function writeOrder(tx: Tx, priced: PricedOrder): Promise<Order> {
  const { input } = priced;
  const { order, entry } = await batchEntryOf(priced);
  const outcome = await placeOrdersIn(tx, entry);
  if (outcome === 'insufficient_stock') throw stockRefusal(priced);
  if (outcome === 'stale') throw new Error('place_orders answered stale for an order without expectations');
  if (outcome !== 'placed') throw new EarlierOrder(outcome.earlier);

  // The contended rows, last, so their locks are held only until the commit that follows, and
  // always in this order (as the expiry release takes them): stock rows, voucher, points, KOL code.
  if (order.voucherId) await countVoucherUse(tx, order.voucherId, input.now);
  const points = input.loyaltyPoints ?? 0;
  if (points > 0 && !(await redeemPoints(tx, { customerId: input.customerId, points, orderId: order.id }))) {
    throw badRequest('insufficient_points', `the loyalty balance does not cover ${points} points`);
  }
  if (order.kolCodeId) await countKolCodeUse(tx, order.kolCodeId);
  return order;
}

/** 400 `insufficient_stock`: naming the product for a one-line order. */
function stockRefusal(priced: PricedOrder) {
  return priced.lines.length === 1
    ? insufficientStock(priced.lines[0])
    : badRequest('insufficient_stock', 'not enough stock of a product of this order for the quantity asked');
}

/**
 * A plain order: no voucher, no points and no KOL code (each of those is another conditional
 * update that keeps the transactional path). Any number of lines: the batch takes their stock.
 */
export function isPlainOrder(priced: PricedOrder): boolean {
  return priced.voucherId === null && priced.kolCodeId === null && (priced.input.loyaltyPoints ?? 0) === 0;
}

/**
 * What became of a plain order in its batch when it was not refused: placed; not placed because
 * what it was priced from changed (`stale`, only with `pricedFrom`); or not placed because an order
 * of the customer already has its Idempotency-Key (`earlier`).
 */
export type PlainPlacement = { placed: Order } | { stale: true } | { earlier: { orderId: string; requestHash: string | null } };

/**
 * Places a plain order (isPlainOrder) through the service's order batcher: one call of
 * `place_orders` with the other orders that queued meanwhile. Fresh ids on every call (a retry
 * after a short-id collision). `pricedFrom`: the versions of the cached rows it was priced from,
 * which the write checks. 400 `insufficient_stock` when its units were gone (nothing written).
 */
export async function placePlainOrder(batcher: OrderBatcher, priced: PricedOrder, pricedFrom?: PricedFrom): Promise<PlainPlacement> {
  if (!isPlainOrder(priced)) throw new Error('placePlainOrder needs a plain order');
  const { order, entry } = await batchEntryOf(priced);
  const outcome = await batcher.place(pricedFrom ? { ...entry, expect: pricedFrom } : entry);
  if (outcome === 'placed') return { placed: order };
  if (outcome === 'stale') return { stale: true };
  if (outcome !== 'insufficient_stock') return outcome;
  throw stockRefusal(priced);
}

/** A priced order's rows before they are written: the order, fresh sub-order and item ids, and its order.created outbox row. */
async function newOrderRows(priced: PricedOrder) {
  const { plan, lines, shipping } = priced;
  const order = orderRow(priced);
  const subOrderIds = plan.subOrders.map(() => randomUUID());
  const itemIds = lines.map(() => randomUUID());
  const subOrderOf = (storeId: string) => subOrderIds[plan.subOrders.findIndex((s) => s.storeId === storeId)];
  const [outbox] = await orderCreatedOutboxRows({ order, plan, lines, subOrderIds, itemIds, shipping }, priced.input.requestId);
  return { order, subOrderIds, itemIds, subOrderOf, outbox };
}

/** The rows of a priced order as place_orders inserts them (the one shape every submit writes), and the order as a read of it would answer. */
export async function batchEntryOf(priced: PricedOrder): Promise<{ order: Order; entry: BatchEntry }> {
  const { plan, lines, shipping } = priced;
  const { order, subOrderIds, itemIds, subOrderOf, outbox } = await newOrderRows(priced);
  const created = order.createdAt.toISOString();
  const updated = order.updatedAt.toISOString();
  const entry: BatchEntry = {
    order: {
      id: order.id,
      short_id: order.shortId,
      customer_id: order.customerId,
      is_b2b: order.isB2b,
      family_id: order.familyId,
      buyer_tin: order.buyerTin,
      company_id: order.companyId,
      admin_notes: order.adminNotes,
      subtotal: order.subtotal.toFixed(2),
      discount_total: order.discountTotal.toFixed(2),
      shipping_total: order.shippingTotal.toFixed(2),
      total: order.total.toFixed(2),
      points_redeemed: order.pointsRedeemed,
      voucher_id: order.voucherId,
      kol_code_id: order.kolCodeId,
      purchase_request_ids: order.purchaseRequestIds,
      idempotency_key: order.idempotencyKey,
      request_hash: order.requestHash,
      ship_full_name: order.shipFullName,
      ship_phone: order.shipPhone,
      ship_address_line_1: order.shipAddressLine1,
      ship_address_line_2: order.shipAddressLine2,
      ship_city: order.shipCity,
      ship_postcode: order.shipPostcode,
      ship_state: order.shipState,
      expires_at: order.expiresAt.toISOString(),
      created_at: created,
      updated_at: updated,
    },
    subOrders: plan.subOrders.map((sub, s) => ({
      id: subOrderIds[s],
      order_id: order.id,
      store_id: sub.storeId,
      shipping_method_id: shipping.get(sub.storeId)?.methodId ?? null,
      subtotal: cents(sub.subtotal).toFixed(2),
      discount: cents(sub.discount).toFixed(2),
      shipping_fee: cents(sub.shippingFee).toFixed(2),
      total: cents(sub.total).toFixed(2),
      created_at: created,
      updated_at: updated,
    })),
    items: lines.map((line, i) => ({
      id: itemIds[i],
      order_id: order.id,
      sub_order_id: subOrderOf(line.product.storeId),
      store_id: line.product.storeId,
      product_id: line.productId,
      variant_id: line.variantId,
      product_name: line.product.name,
      variant_name: line.variant?.name ?? null,
      unit_price: cents(line.unitPrice).toFixed(2),
      quantity: line.quantity,
      line_total: cents(line.lineTotal).toFixed(2),
      discount: cents(plan.lineDiscounts[i]).toFixed(2),
      created_at: created,
    })),
    payment: { id: randomUUID(), order_id: order.id, amount: order.total.toFixed(2), created_at: updated, updated_at: updated },
    outbox: { id: outbox.id, type: outbox.type, payload: outbox.payload, headers: outbox.headers, aggregate: outbox.aggregate },
  };
  return { order, entry };
}

/** Money as the Decimal(12,2) columns store it. */
const cents = (amount: Prisma.Decimal) => amount.toDecimalPlaces(2, Prisma.Decimal.ROUND_HALF_UP);

/** The order row place_orders inserts, exactly as a read of it would answer. */
function orderRow({ input, plan, voucherId, kolCodeId }: PricedOrder): Order {
  return {
    id: randomUUID(),
    shortId: shortOrderId(),
    customerId: input.customerId,
    status: 'pending_payment',
    isB2b: input.isB2b ?? false,
    familyId: input.familyId ?? null,
    buyerTin: input.buyerTin ?? null,
    companyId: input.companyId ?? null,
    adminNotes: input.adminNotes ?? null,
    subtotal: cents(plan.subtotal),
    discountTotal: cents(plan.discountTotal),
    shippingTotal: cents(plan.shippingTotal),
    total: cents(plan.total),
    pointsRedeemed: input.loyaltyPoints ?? 0,
    pointsEarned: 0,
    voucherId,
    kolCodeId,
    purchaseRequestIds: [...(input.purchaseRequestIds ?? [])],
    idempotencyKey: input.idempotency?.key ?? null,
    requestHash: input.idempotency?.hash ?? null,
    ...shippingColumns(input.shippingAddress),
    expiresAt: new Date(input.now.getTime() + input.paymentTtlMs),
    paidAt: null,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

type OutboxRow = Parameters<OutboxTx['outbox']['createMany']>[0]['data'][number];

/** The outbox rows of the order's `checkout.order.created` event, built by enqueueEvent and kept for place_orders. */
async function orderCreatedOutboxRows(written: WrittenOrder, requestId: string | undefined): Promise<OutboxRow[]> {
  const rows: OutboxRow[] = [];
  const collector: OutboxTx = {
    outbox: {
      createMany: async ({ data }) => {
        rows.push(...data);
      },
    },
  };
  await enqueueEvent(collector, checkoutOrderCreated, orderCreatedEvent(written), { source: 'checkout', requestId, occurredAt: written.order.createdAt });
  return rows;
}
