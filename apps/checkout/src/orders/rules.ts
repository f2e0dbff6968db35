import { createHash, randomBytes } from 'node:crypto';
import type { PostalAddress } from '@pasar/contracts';
import { Prisma, type DiscountType, type Order } from '../generated/prisma/client';
import { maxRedeemablePoints, pointsValue } from '../loyalty/rules';
import { discountOn, roundToCents } from '../promotions/rules';

type Decimal = Prisma.Decimal;
const ZERO = new Prisma.Decimal(0);

/** Orders per page of GET /account/orders. */
export const ORDER_PAGE_SIZE = 20;

// ---------------------------------------------------------------- lines and lock order

export interface LineRequest {
  productId: string;
  variantId: string | null;
  quantity: number;
}

/**
 * The cart's lines with one entry per (product, variant), quantities added up, in the fixed order
 * in which submit takes the stock row locks: product rows (lines without a variant) by product
 * id, then variant rows by variant id, the order the expiry/cancel release uses too, so two
 * transactions that share rows take them in the same order and never deadlock.
 */
export function linesInLockOrder(lines: readonly { productId: string; variantId?: string | null; quantity: number }[]): LineRequest[] {
  const merged = new Map<string, LineRequest>();
  for (const line of lines) {
    const variantId = line.variantId ?? null;
    const key = `${line.productId}/${variantId ?? ''}`;
    const current = merged.get(key);
    if (current) current.quantity += line.quantity;
    else merged.set(key, { productId: line.productId, variantId, quantity: line.quantity });
  }
  const rowOf = (line: LineRequest) => (line.variantId === null ? `0:${line.productId}` : `1:${line.variantId}`);
  return [...merged.values()].sort((a, b) => compare(rowOf(a), rowOf(b)));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// ---------------------------------------------------------------- B2B: the approved price

/** A purchase request whose approved unit price is not the catalog's price now. */
export interface PriceChange {
  purchaseRequestId: string;
  approvedPrice: string;
  currentPrice: string;
}

/**
 * The B2B lines whose approved unit price (the request's snapshot, DESIGN §6) differs from the
 * catalog's price now, either way, in the lines' order: the company pays what its approver
 * approved, or the submit is refused (409 `price_changed`) and those requests are approved again.
 * `current`: the catalog's unit price of each (product, variant) of the order.
 */
export function priceChanges(
  lines: readonly { purchaseRequestId: string; productId: string; variantId: string | null; unitPrice: string }[],
  current: (productId: string, variantId: string | null) => Decimal,
): PriceChange[] {
  return lines.flatMap((line) => {
    const now = current(line.productId, line.variantId);
    return now.equals(line.unitPrice) ? [] : [{ purchaseRequestId: line.purchaseRequestId, approvedPrice: new Prisma.Decimal(line.unitPrice).toFixed(2), currentPrice: now.toFixed(2) }];
  });
}

// ---------------------------------------------------------------- shipping quote (DESIGN §7)

/** What the quote reads of a line: quantity, weight and dimensions of one unit. */
export interface ShippableLine {
  quantity: number;
  weightKg: Decimal | null;
  lengthCm: Decimal | null;
  widthCm: Decimal | null;
  heightCm: Decimal | null;
}

export interface RatedMethod {
  type: string;
  rateConfig: unknown;
}

export type ShippingQuote = { ok: true; fee: Decimal } | { ok: false; reason: string };

/** A rate_config value: a non-negative finite number or numeric string; null when missing or invalid. */
function rate(config: unknown, key: string): Decimal | null {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return null;
  const value = (config as Record<string, unknown>)[key];
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return new Prisma.Decimal(value);
  if (typeof value === 'string' && /^\d{1,12}(\.\d{1,8})?$/.test(value.trim())) return new Prisma.Decimal(value.trim());
  return null;
}

function totalOver(lines: readonly ShippableLine[], measure: (line: ShippableLine) => Decimal | null): Decimal | null {
  let total = ZERO;
  for (const line of lines) {
    const unit = measure(line);
    if (unit === null) return null;
    total = total.add(unit.mul(line.quantity));
  }
  return total;
}

const volumeCm3 = (line: ShippableLine) =>
  line.lengthCm && line.widthCm && line.heightCm ? line.lengthCm.mul(line.widthCm).mul(line.heightCm) : null;

/**
 * The shipping fee of one sub-order under a method (DESIGN §7), rounded half-up to cents:
 * `flat` rate; `weight` base_rate + per_kg × kg; `dimension` base_rate + per_cm3 × cm³; kg and
 * cm³ summed over the lines (unit measure × quantity). A missing or invalid rate_config key, an
 * unknown type, or a line without the weight/dimensions the type needs: no quote.
 */
export function quoteShipping(method: RatedMethod, lines: readonly ShippableLine[]): ShippingQuote {
  const fee = (() => {
    switch (method.type) {
      case 'flat':
        return rate(method.rateConfig, 'rate');
      case 'weight': {
        const [base, perKg, kg] = [rate(method.rateConfig, 'base_rate'), rate(method.rateConfig, 'per_kg'), totalOver(lines, (l) => l.weightKg)];
        return base && perKg && kg ? base.add(perKg.mul(kg)) : null;
      }
      case 'dimension': {
        const [base, perCm3, cm3] = [rate(method.rateConfig, 'base_rate'), rate(method.rateConfig, 'per_cm3'), totalOver(lines, volumeCm3)];
        return base && perCm3 && cm3 ? base.add(perCm3.mul(cm3)) : null;
      }
      default:
        return null;
    }
  })();
  return fee ? { ok: true, fee: roundToCents(fee) } : { ok: false, reason: `the ${method.type} shipping method cannot quote this cart` };
}

export interface ShippingCandidate extends RatedMethod {
  id: string;
  isActive: boolean;
}

export type ShippingChoice =
  | { ok: true; methodId: string | null; fee: Decimal }
  | { ok: false; code: 'shipping_method_unavailable' | 'shipping_unavailable'; detail: string };

/**
 * The method and fee of one store's sub-order. A chosen method must be one of the store's active
 * methods (else `shipping_method_unavailable`) and quote the lines (else `shipping_unavailable`).
 * Without a choice: the cheapest active method that quotes them (ties: the smaller id); no active
 * method: free shipping; active methods of which none can quote: `shipping_unavailable`.
 */
export function chooseShipping(methods: readonly ShippingCandidate[], chosenId: string | null, lines: readonly ShippableLine[]): ShippingChoice {
  const active = methods.filter((m) => m.isActive);
  if (chosenId !== null) {
    const chosen = active.find((m) => m.id === chosenId);
    if (!chosen) return { ok: false, code: 'shipping_method_unavailable', detail: 'the shipping method is not an active method of the store' };
    const quote = quoteShipping(chosen, lines);
    return quote.ok ? { ok: true, methodId: chosen.id, fee: quote.fee } : { ok: false, code: 'shipping_unavailable', detail: quote.reason };
  }
  if (active.length === 0) return { ok: true, methodId: null, fee: ZERO };
  const quoted = active
    .map((m) => ({ id: m.id, quote: quoteShipping(m, lines) }))
    .flatMap((q) => (q.quote.ok ? [{ id: q.id, fee: q.quote.fee }] : []))
    .sort((a, b) => a.fee.comparedTo(b.fee) || compare(a.id, b.id));
  if (quoted.length === 0) return { ok: false, code: 'shipping_unavailable', detail: 'no shipping method of the store can quote this cart' };
  return { ok: true, methodId: quoted[0].id, fee: quoted[0].fee };
}

// ---------------------------------------------------------------- discounts and totals

/**
 * Splits `amount` (cents) over `weights` in proportion, to the cent, adding up to `amount`
 * exactly (largest remainder; ties to the earlier weight). No share exceeds its weight while
 * `amount` does not exceed their sum.
 */
export function allocate(amount: Decimal, weights: readonly Decimal[]): Decimal[] {
  const total = weights.reduce((sum, w) => sum.add(w), ZERO);
  if (weights.length === 0) return [];
  if (total.lte(ZERO)) return weights.map((_, i) => (i === 0 ? amount : ZERO));
  const exact = weights.map((w) => amount.mul(w).div(total));
  const shares = exact.map((e) => e.toDecimalPlaces(2, Prisma.Decimal.ROUND_DOWN));
  let leftCents = amount.sub(shares.reduce((sum, s) => sum.add(s), ZERO)).mul(100).round().toNumber();
  const byRemainder = exact.map((e, i) => ({ i, rest: e.sub(shares[i]) })).sort((a, b) => b.rest.comparedTo(a.rest) || a.i - b.i);
  for (const { i } of byRemainder) {
    if (leftCents <= 0) break;
    shares[i] = shares[i].add('0.01');
    leftCents -= 1;
  }
  return shares;
}

/** A priced line as the order plan reads it. */
export interface PlannedLine {
  storeId: string;
  categoryId: string | null;
  lineTotal: Decimal;
}

export interface PlanInput {
  lines: readonly PlannedLine[];
  kolCode: { categoryId: string; discountType: DiscountType; discountValue: Decimal } | null;
  /** What the voucher takes off the subtotal (already checked); 0 without one. */
  voucherDiscount: Decimal;
  points: number;
  /** The shipping fee of each store of the cart. */
  shippingFees: ReadonlyMap<string, Decimal>;
}

export interface SubOrderPlan {
  storeId: string;
  subtotal: Decimal;
  discount: Decimal;
  shippingFee: Decimal;
  total: Decimal;
}

export interface OrderPlan {
  /** Per line (same order as the input): its share of all the discounts. */
  lineDiscounts: Decimal[];
  /** One per store, in the order the stores first appear in the lines. */
  subOrders: SubOrderPlan[];
  subtotal: Decimal;
  kolDiscount: Decimal;
  voucherDiscount: Decimal;
  pointsValue: Decimal;
  discountTotal: Decimal;
  shippingTotal: Decimal;
  total: Decimal;
}

export type PlanResult = { ok: true; plan: OrderPlan } | { ok: false; code: 'kol_code_not_applicable' | 'loyalty_points_limit'; detail: string };

/**
 * The money of an order. The KOL code discounts the lines of its category (percentage of them,
 * or a fixed amount clamped to them); the voucher discount comes off the subtotal, never more than
 * what the KOL code left; points pay up to 50% of the subtotal and never more than what is left
 * to pay. Voucher and points are shared over the lines in proportion to what each still costs, so
 * every sub-order's total is its own: subtotal - discount + shipping. The order's discountTotal
 * holds all three; total = subtotal - discountTotal + shippingTotal.
 */
export function planOrder(input: PlanInput): PlanResult {
  const { lines } = input;
  const subtotal = lines.reduce((sum, l) => sum.add(l.lineTotal), ZERO);

  let kolShares = lines.map(() => ZERO);
  if (input.kolCode) {
    const { categoryId, discountType, discountValue } = input.kolCode;
    const eligible = lines.map((l) => l.categoryId === categoryId);
    if (!eligible.some(Boolean)) return { ok: false, code: 'kol_code_not_applicable', detail: 'no line of the cart is in the category of the KOL code' };
    const base = lines.reduce((sum, l, i) => (eligible[i] ? sum.add(l.lineTotal) : sum), ZERO);
    const eligibleShares = allocate(discountOn(base, discountType, discountValue), lines.filter((_, i) => eligible[i]).map((l) => l.lineTotal));
    let next = 0;
    kolShares = lines.map((_, i) => (eligible[i] ? eligibleShares[next++] : ZERO));
  }
  const kolDiscount = kolShares.reduce((sum, s) => sum.add(s), ZERO);
  const voucherDiscount = Prisma.Decimal.min(input.voucherDiscount, subtotal.sub(kolDiscount));

  const payable = subtotal.sub(kolDiscount).sub(voucherDiscount);
  const pointsCap = maxRedeemablePoints(subtotal, payable);
  if (input.points > pointsCap) {
    return { ok: false, code: 'loyalty_points_limit', detail: `this order can redeem at most ${pointsCap} points (50% of the subtotal)` };
  }
  const redeemed = pointsValue(input.points);

  const orderShares = allocate(voucherDiscount.add(redeemed), lines.map((l, i) => l.lineTotal.sub(kolShares[i])));
  const lineDiscounts = lines.map((_, i) => kolShares[i].add(orderShares[i]));

  const subOrders: SubOrderPlan[] = [];
  lines.forEach((line, i) => {
    let sub = subOrders.find((s) => s.storeId === line.storeId);
    if (!sub) {
      const shippingFee = input.shippingFees.get(line.storeId) ?? ZERO;
      sub = { storeId: line.storeId, subtotal: ZERO, discount: ZERO, shippingFee, total: shippingFee };
      subOrders.push(sub);
    }
    sub.subtotal = sub.subtotal.add(line.lineTotal);
    sub.discount = sub.discount.add(lineDiscounts[i]);
    sub.total = sub.subtotal.sub(sub.discount).add(sub.shippingFee);
  });

  const discountTotal = kolDiscount.add(voucherDiscount).add(redeemed);
  const shippingTotal = subOrders.reduce((sum, s) => sum.add(s.shippingFee), ZERO);
  return {
    ok: true,
    plan: {
      lineDiscounts,
      subOrders,
      subtotal,
      kolDiscount,
      voucherDiscount,
      pointsValue: redeemed,
      discountTotal,
      shippingTotal,
      total: subtotal.sub(discountTotal).add(shippingTotal),
    },
  };
}

// ---------------------------------------------------------------- amount limits

/**
 * The largest amount an order may carry in any of its money columns (line, sub-order, order
 * totals and shipping fees). Decimal(12,2) itself ends at 9,999,999,999.99; the bound is lower so
 * that the points an order earns (1 per MYR paid) fit the loyalty counters (int) with room to spare.
 */
export const MAX_ORDER_AMOUNT = new Prisma.Decimal('999999999.99');

/**
 * Null when every amount of the plan fits, else why not (400 `amount_too_large`): checked before
 * anything is written, so a quantity times a price, or a shipping rate, that passes the bound is
 * refused instead of overflowing a numeric column.
 */
export function amountTooLarge(plan: OrderPlan, lineTotals: readonly Decimal[]): string | null {
  const limit = MAX_ORDER_AMOUNT.toFixed(2);
  if (lineTotals.some((total) => total.greaterThan(MAX_ORDER_AMOUNT))) return `a line of this order costs more than ${limit}`;
  for (const sub of plan.subOrders) {
    if (sub.shippingFee.greaterThan(MAX_ORDER_AMOUNT)) return `the shipping fee of this order is more than ${limit}`;
    if (sub.subtotal.greaterThan(MAX_ORDER_AMOUNT) || sub.total.greaterThan(MAX_ORDER_AMOUNT)) return `this order comes to more than ${limit}`;
  }
  const amounts = [plan.subtotal, plan.shippingTotal, plan.total, plan.discountTotal];
  if (amounts.some((amount) => amount.greaterThan(MAX_ORDER_AMOUNT))) return `this order comes to more than ${limit}`;
  return null;
}

// ---------------------------------------------------------------- identifiers and notes

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Bytes drawn from crypto.randomBytes at once: a call per order was measurable on the submit path. */
const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let randomOffset = 0;

/** `size` cryptographically random bytes, cut from a pooled randomBytes buffer (never handed out twice). */
export function pooledRandomBytes(size: number): Buffer {
  if (randomOffset + size > randomPool.length) {
    randomPool = randomBytes(Math.max(RANDOM_POOL_BYTES, size));
    randomOffset = 0;
  }
  const bytes = randomPool.subarray(randomOffset, randomOffset + size);
  randomOffset += size;
  return bytes;
}

/** The customer-facing order number: `PSR-` + 8 base32 characters (40 random bits). */
export function shortOrderId(random: Buffer = pooledRandomBytes(5)): string {
  // 40 bits fit a double exactly
  let bits = 0;
  for (let i = 0; i < 5; i += 1) bits = bits * 256 + random[i];
  let id = '';
  for (let i = 7; i >= 0; i -= 1) id += BASE32[Math.floor(bits / 2 ** (i * 5)) % 32];
  return `PSR-${id}`;
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  // one string built in place (every submit with an Idempotency-Key hashes its body): the text
  // must stay byte for byte what it was, since request_hash of earlier orders is compared with it
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) text += ',';
      const element = canonicalJson(value[i]) as string | undefined; // undefined (JSON has no text for it): empty, as join writes it
      if (element !== undefined) text += element;
    }
    return `${text}]`;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort(compare);
    let text = '{';
    for (const key of keys) {
      const inner = record[key];
      if (inner === undefined) continue;
      if (text.length > 1) text += ',';
      text += `${JSON.stringify(key)}:${canonicalJson(inner)}`;
    }
    return `${text}}`;
  }
  return JSON.stringify(value);
}

/** What an Idempotency-Key is bound to: the hash of the request (its kind and parsed body). */
export function requestHash(kind: string, body: unknown): string {
  return createHash('sha256').update(`${kind}\n${canonicalJson(body)}`).digest('hex');
}

/** admin_notes of a family order: the cart items the payment notification removes. */
export function familyOrderNotes(cartItemIds: readonly string[]): string {
  return JSON.stringify({ familyCartItemIds: cartItemIds });
}

// ---------------------------------------------------------------- delivery address

type ShippingColumns = Pick<Order, 'shipFullName' | 'shipPhone' | 'shipAddressLine1' | 'shipAddressLine2' | 'shipCity' | 'shipPostcode' | 'shipState'>;

/** The delivery address an order keeps (a snapshot: later address edits do not move it), as its columns. */
export function shippingColumns(address: PostalAddress): ShippingColumns {
  return {
    shipFullName: address.fullName,
    shipPhone: address.phone,
    shipAddressLine1: address.addressLine1,
    shipAddressLine2: address.addressLine2,
    shipCity: address.city,
    shipPostcode: address.postcode,
    shipState: address.state,
  };
}

/** An order's delivery address as events and the order detail show it. */
export function shippingAddressOf(order: ShippingColumns): PostalAddress {
  return {
    fullName: order.shipFullName,
    phone: order.shipPhone,
    addressLine1: order.shipAddressLine1,
    addressLine2: order.shipAddressLine2,
    city: order.shipCity,
    postcode: order.shipPostcode,
    state: order.shipState,
  };
}
