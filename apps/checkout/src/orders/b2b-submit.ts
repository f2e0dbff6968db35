import { createHash, randomUUID } from 'node:crypto';
import { callRpc, RpcFailedError, serveRpc, type Bus } from '@pasar/bus';
import {
  b2bReleaseRequests,
  b2bReserveRequests,
  checkoutB2bReservationOrder,
  checkoutCancelB2bOrder,
  checkoutOrderDetails,
  type B2bSubmitBody,
  type PostalAddress,
  type RpcResponse,
} from '@pasar/contracts';
import { notFound, ProblemError } from '@pasar/service-kit';
import type { Logger } from 'pino';
import type { Order, Prisma, PrismaClient } from '../generated/prisma/client';
import { releaseOrderHoldings } from '../lifecycle/holdings';
import { enqueueOrderStatusChanges } from '../lifecycle/order-events';
import { buildOrderDetail } from './orders';
import { priceOrder, writeOrder } from './place-order';
import { priceChanges, type PriceChange } from './rules';
import { earlierOrder, idempotencyOf, placeOnce, type OrderDeps, type SubmitOptions } from './submit';
import { systemClock } from '../deps';

/** What B2B submit needs beyond every submit: b2b answers the reservation over the bus. */
export interface B2bOrderDeps extends OrderDeps {
  bus: Bus;
  log: Pick<Logger, 'warn'>;
}

type Reservation = RpcResponse<typeof b2bReserveRequests>;

/** The HTTP answer of each reserve_requests refusal. */
const RESERVE_REFUSALS: Record<string, { status: number; code: string }> = {
  not_found: { status: 404, code: 'not_found' },
  forbidden: { status: 403, code: 'forbidden' },
  not_approved: { status: 409, code: 'not_approved' },
  tax_incomplete: { status: 400, code: 'tax_incomplete' },
  invalid_request: { status: 400, code: 'validation_failed' },
};

/**
 * The reservation id of a submit: derived from the caller and the Idempotency-Key (a retry resumes
 * the same reservation, STYLE §1), or fresh without a key.
 */
export function reservationIdOf(customerId: string, idempotencyKey: string | undefined): string {
  if (idempotencyKey === undefined) return randomUUID();
  const hex = createHash('sha256').update(`b2b-reservation:${customerId}:${idempotencyKey}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function reserveRequests(bus: Bus, request: { reservationId: string; userId: string; purchaseRequestIds: string[] }, requestId?: string): Promise<Reservation> {
  try {
    return await callRpc(bus, b2bReserveRequests, request, { requestId });
  } catch (err) {
    if (err instanceof RpcFailedError) {
      const refusal = RESERVE_REFUSALS[err.code] ?? { status: 502, code: 'b2b_refused' };
      throw new ProblemError(refusal.status, refusal.code, err.message);
    }
    throw err;
  }
}

/**
 * POST /checkout/b2b/submit (DESIGN §6, STYLE §1), a saga of named steps:
 * 1. reserve: rpc.b2b.reserve_requests (same company, caller company_admin or finance, every
 *    request approved, tax gate; the requests become checkout_pending under the reservation id);
 * 2. place: the same order transaction as every submit (placeOnce: Idempotency-Key; priceOrder,
 *    writeOrder), is_b2b=true, buyer_tin = company TIN, one sub-order per store, the request ids
 *    in checkout.order.created; priced at the approved unit prices only: a request whose catalog
 *    price changed since approval refuses the submit (409 `price_changed`, PricesChanged);
 * 3. confirm: b2b marks the requests paid with the order id when it consumes order.created, if
 *    they are still held by this order's reservation (b2b asks rpc.checkout.b2b_reservation_order);
 *    otherwise it cancels the order (rpc.checkout.cancel_b2b_order).
 * The order's transaction records which reservation placed it (b2b_reservation, one order per
 * reservation), under a lock on the reservation.
 * Compensation: when placing fails and no order of this reservation exists, rpc.b2b.release_requests
 * frees only the requests this call reserved (a call that reused the reservation of a concurrent
 * call with the same key releases nothing), those whose price changed back to pending at the new price; if that fails too, b2b's sweep releases them after the
 * TTL, once checkout has said that the reservation placed no order.
 */
export async function submitB2bOrder(deps: B2bOrderDeps, customerId: string, body: B2bSubmitBody, options: SubmitOptions = {}): Promise<Order> {
  const { prisma, bus, config, clock = systemClock } = deps;
  const idempotency = idempotencyOf('b2b-submit', options.idempotencyKey, body);
  // a retry of a placed submit answers its order without asking b2b again (its requests may be paid by now)
  const earlier = await earlierOrder(prisma, customerId, idempotency);
  if (earlier) return earlier;
  const reservationId = reservationIdOf(customerId, options.idempotencyKey);
  const held = await reserveRequests(bus, { reservationId, userId: customerId, purchaseRequestIds: [...new Set(body.purchaseRequestIds)] }, options.requestId);
  try {
    return await placeOnce(prisma, customerId, idempotency, async () => {
      const shippingAddress = body.addressId ? await customerAddress(prisma, customerId, body.addressId) : held.companyAddress;
      const priced = await priceOrder(prisma, {
        customerId,
        lines: held.lines,
        shippingAddress,
        isB2b: true,
        companyId: held.companyId,
        buyerTin: held.buyerTin,
        purchaseRequestIds: held.lines.map((line) => line.purchaseRequestId),
        idempotency,
        now: clock(),
        paymentTtlMs: config.ORDER_PAYMENT_TTL,
        requestId: options.requestId,
      });
      const changes = priceChanges(held.lines, (productId, variantId) => priced.lines.find((l) => l.productId === productId && l.variantId === variantId)!.unitPrice);
      if (changes.length > 0) throw new PricesChanged(changes);
      return async (tx) => {
        await lockReservation(tx, reservationId);
        const order = await writeOrder(tx, priced);
        await tx.b2bReservation.create({ data: { reservationId, orderId: order.id } });
        return order;
      };
    });
  } catch (err) {
    await releaseUnplaced(deps, reservationId, held.reserved, options.requestId, err instanceof PricesChanged ? err.changes : []);
    throw err;
  }
}

/**
 * 409 `price_changed`: the catalog's price of some requests is no longer the approved one. The
 * company pays what its approver approved or nothing: the vendor sells at its current price, so
 * those requests go back to `pending` at that price for their approver to see (the release), the
 * others of the submit to `approved`; no order, stock or reservation is left behind.
 */
class PricesChanged extends ProblemError {
  constructor(readonly changes: readonly PriceChange[]) {
    super(
      409,
      'price_changed',
      `the price of ${changes.length} purchase request(s) changed since approval; they need approving again`,
      changes.map((c) => ({
        path: ['purchaseRequestIds', c.purchaseRequestId],
        code: 'price_changed',
        message: `approved at ${c.approvedPrice}, now ${c.currentPrice}`,
        approvedPrice: c.approvedPrice,
        currentPrice: c.currentPrice,
      })),
    );
  }
}

/** Serialises the order transaction of a reservation with the check of a failed submit's compensation. */
const lockReservation = (tx: Prisma.TransactionClient, reservationId: string) =>
  tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`b2b-reservation:${reservationId}`}, 0))`;

/**
 * The compensation of a failed submit: releases the requests this call reserved, unless the
 * reservation placed an order (a concurrent call with the same key placed it: its requests stay
 * held for it). The check waits for an order transaction of the reservation in flight.
 */
async function releaseUnplaced(deps: B2bOrderDeps, reservationId: string, reserved: readonly string[], requestId: string | undefined, changes: readonly PriceChange[]): Promise<void> {
  if (reserved.length === 0) return;
  const placed = await deps.prisma.$transaction(async (tx) => {
    await lockReservation(tx, reservationId);
    return tx.b2bReservation.findUnique({ where: { reservationId } });
  });
  if (placed) return;
  const repriced = changes.filter((c) => reserved.includes(c.purchaseRequestId)).map((c) => ({ purchaseRequestId: c.purchaseRequestId, unitPrice: c.currentPrice }));
  await callRpc(deps.bus, b2bReleaseRequests, { reservationId, purchaseRequestIds: [...reserved], repriced }, { requestId }).catch((releaseErr: unknown) =>
    deps.log.warn({ err: releaseErr, reservationId }, 'release failed; the b2b sweep will release the reservation'),
  );
}

async function customerAddress(prisma: PrismaClient, customerId: string, addressId: string): Promise<PostalAddress> {
  const [address] = await prisma.$queryRaw<PostalAddress[]>`
    SELECT full_name AS "fullName", phone, address_line_1 AS "addressLine1", address_line_2 AS "addressLine2", city, postcode, state
    FROM customer_address WHERE id = ${addressId}::uuid AND customer_id = ${customerId}::uuid`;
  if (!address) throw notFound('address');
  return address;
}

/** rpc.checkout.b2b_reservation_order: the order a reservation placed and its status (nulls: none). */
export function reservationOrderResponder(bus: Bus, prisma: PrismaClient) {
  return serveRpc(bus, checkoutB2bReservationOrder, async ({ reservationId }) => {
    const row = await prisma.b2bReservation.findUnique({ where: { reservationId }, include: { order: { select: { status: true } } } });
    return { orderId: row?.orderId ?? null, status: row?.order.status ?? null };
  });
}

/**
 * rpc.checkout.cancel_b2b_order: b2b found that another order holds this B2B order's purchase
 * requests. While unpaid the order is cancelled (its payment failed, sub-orders cancelled), its
 * stock and other holdings returned, and `checkout.order.status_changed` enqueued, in one
 * transaction; a repeat, or an order past pending_payment, changes nothing and says its status.
 */
export async function cancelB2bOrder(deps: { prisma: PrismaClient; log: Pick<Logger, 'error'> }, orderId: string, reason: string, now = new Date()) {
  return deps.prisma.$transaction(async (tx) => {
    const [order] = await tx.$queryRaw<{ status: Order['status']; companyId: string | null }[]>`
      SELECT status, company_id AS "companyId" FROM "order" WHERE id = ${orderId}::uuid AND is_b2b FOR UPDATE`;
    if (!order) return { cancelled: false, status: null };
    if (order.status !== 'pending_payment') {
      if (order.status !== 'cancelled') deps.log.error({ orderId, status: order.status, reason }, 'a duplicate B2B order is past payment: it needs a refund');
      return { cancelled: false, status: order.status };
    }
    await tx.order.update({ where: { id: orderId }, data: { status: 'cancelled', adminNotes: reason } });
    await tx.payment.updateMany({ where: { orderId, status: 'pending' }, data: { status: 'failed' } });
    await tx.subOrder.updateMany({ where: { orderId, status: 'pending_payment' }, data: { status: 'cancelled', cancelledAt: now } });
    await releaseOrderHoldings(tx, [orderId]);
    await enqueueOrderStatusChanges(tx, [{ orderId, isB2b: true, companyId: order.companyId, previousStatus: 'pending_payment', status: 'cancelled' }], now);
    return { cancelled: true, status: 'cancelled' as const };
  });
}

export function cancelB2bOrderResponder(bus: Bus, prisma: PrismaClient, log: Pick<Logger, 'error'>) {
  return serveRpc(bus, checkoutCancelB2bOrder, ({ orderId, reason }) => cancelB2bOrder({ prisma, log }, orderId, reason));
}

/** rpc.checkout.order_details: the order detail (as the customer sees it) for b2b's order view; null when unknown. */
export function orderDetailsResponder(bus: Bus, prisma: PrismaClient) {
  return serveRpc(bus, checkoutOrderDetails, async ({ orderId }) => ({ order: await buildOrderDetail(prisma, orderId) }));
}
