import type { PlacedOrder, SubmitOrderBody } from '@pasar/contracts';
import { badRequest, conflict, notFound } from '@pasar/service-kit';
import { normaliseTin } from '@pasar/tax';
import type { CheckoutConfig } from '../config';
import type { Order, Prisma, PrismaClient } from '../generated/prisma/client';
import { isUniqueViolation } from '../promotions/promotions';
import { placeOrder } from './place-order';
import { requestHash } from './rules';

/** What the submit use cases need. */
export interface OrderDeps {
  prisma: PrismaClient;
  config: Pick<CheckoutConfig, 'ORDER_PAYMENT_TTL'>;
  clock?: () => Date;
}

/** Per request: the optional Idempotency-Key header and the request id for the event. */
export interface SubmitOptions {
  idempotencyKey?: string;
  requestId?: string;
}

type Tx = Prisma.TransactionClient;

/**
 * The order transaction's limits: waiting for a pooled connection under a burst of submits, and
 * the whole transaction (it holds the hot row locks only for its last statements).
 */
export const ORDER_TRANSACTION = { maxWait: 15_000, timeout: 15_000 } as const;
/** A unique-id collision (short id) is retried this many times in all. */
const ATTEMPTS = 3;

/** The answer of every submit. */
export function toPlacedOrder(order: Order): PlacedOrder {
  return {
    orderId: order.id,
    shortId: order.shortId,
    status: order.status,
    subtotal: order.subtotal.toFixed(2),
    discountTotal: order.discountTotal.toFixed(2),
    shippingTotal: order.shippingTotal.toFixed(2),
    total: order.total.toFixed(2),
    pointsRedeemed: order.pointsRedeemed,
  };
}

export interface Idempotency {
  key: string;
  hash: string;
}

/** The order an earlier request with this key placed; 409 `idempotency_key_reused` when its body differed. */
async function earlierOrder(prisma: PrismaClient, customerId: string, idempotency: Idempotency | null): Promise<Order | null> {
  if (!idempotency) return null;
  const order = await prisma.order.findUnique({ where: { customerId_idempotencyKey: { customerId, idempotencyKey: idempotency.key } } });
  if (order && order.requestHash !== idempotency.hash) {
    throw conflict('idempotency_key_reused', 'this Idempotency-Key was used for a different request');
  }
  return order;
}

/**
 * Runs a submit once per Idempotency-Key: a retry with the same key and body answers the first
 * order (before anything is checked again), another body 409. Two identical requests racing meet
 * at the unique (customer, key) index: the second transaction rolls back and answers the first
 * order. `prepare` checks the request (outside the transaction); `place` writes the order.
 */
export async function placeOnce(
  prisma: PrismaClient,
  customerId: string,
  idempotency: Idempotency | null,
  prepare: () => Promise<(tx: Tx) => Promise<Order>>,
): Promise<Order> {
  const earlier = await earlierOrder(prisma, customerId, idempotency);
  if (earlier) return earlier;
  const place = await prepare();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await prisma.$transaction(place, ORDER_TRANSACTION);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const first = await earlierOrder(prisma, customerId, idempotency);
      if (first) return first;
      if (attempt >= ATTEMPTS) throw err;
    }
  }
}

export const idempotencyOf = (kind: string, key: string | undefined, body: unknown): Idempotency | null =>
  key === undefined ? null : { key, hash: requestHash(kind, body) };

/** A buyer TIN as given (empty: none), validated and normalised; 400 `invalid_tin`. */
export function buyerTinOf(input: string | null | undefined): string | null {
  if (input == null || input.trim() === '') return null;
  const tin = normaliseTin(input);
  if (!tin.ok) throw badRequest('invalid_tin', tin.reason);
  return tin.value;
}

/** Saves the TIN to the customer's profile only when the profile has none. */
async function saveTinWhenUnset(tx: Tx, customerId: string, tin: string): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO customer_profile (customer_id, tin, updated_at) VALUES (${customerId}::uuid, ${tin}, now())
    ON CONFLICT (customer_id) DO UPDATE SET tin = EXCLUDED.tin, updated_at = now() WHERE customer_profile.tin IS NULL`;
}

/**
 * POST /checkout/submit: a single-store cart to the caller's own address (404 otherwise), in one
 * transaction (placeOrder); the buyer TIN is written on the order and saved to the profile when
 * the profile has none.
 */
export function submitOrder(deps: OrderDeps, customerId: string, body: SubmitOrderBody, options: SubmitOptions = {}): Promise<Order> {
  const { prisma, config, clock = () => new Date() } = deps;
  const idempotency = idempotencyOf('submit', options.idempotencyKey, body);
  return placeOnce(prisma, customerId, idempotency, async () => {
    const buyerTin = buyerTinOf(body.buyerTin);
    const address = await prisma.customerAddress.findFirst({ where: { id: body.addressId, customerId } });
    if (!address) throw notFound('address');
    const { fullName, phone, addressLine1, addressLine2, city, postcode, state } = address;
    return async (tx) => {
      if (buyerTin) await saveTinWhenUnset(tx, customerId, buyerTin);
      return placeOrder(tx, {
        customerId,
        lines: body.items,
        shippingAddress: { fullName, phone, addressLine1, addressLine2, city, postcode, state },
        shippingMethodIds: body.shippingMethodId ? [body.shippingMethodId] : [],
        singleStore: true,
        voucher: body.voucherId ? { id: body.voucherId, tier: body.voucherTier ?? null } : null,
        kolCode: body.kolCode,
        loyaltyPoints: body.loyaltyPoints,
        buyerTin,
        idempotency,
        now: clock(),
        paymentTtlMs: config.ORDER_PAYMENT_TTL,
        requestId: options.requestId,
      });
    };
  });
}
