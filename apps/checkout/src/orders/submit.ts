import type { CommittedEvents } from '@pasar/bus';
import type { PlacedOrder, PostalAddress, SubmitOrderBody } from '@pasar/contracts';
import { Batcher, isUniqueViolation, sqlPoolOf, type SqlPool } from '@pasar/db';
import { badRequest, conflict, notFound, ProblemError } from '@pasar/service-kit';
import { normaliseOptionalTin } from '@pasar/tax';
import type { CheckoutConfig } from '../config';
import type { Order, Prisma, PrismaClient } from '../generated/prisma/client';
import { orderBatcherOf } from './order-batch';
import {
  CATALOG_ROW_JSON,
  EarlierOrder,
  isPlainOrder,
  placePlainOrder,
  priceOrder,
  writeOrder,
  type PlaceOrderInput,
  type PlainPlacement,
  type PricedOrder,
} from './place-order';
import { PricingCache, type RememberedCart, type VersionedAddress, type VersionedCatalogRow } from './pricing-cache';
import { requestHash } from './rules';
import { systemClock } from '../deps';

/** What the submit use cases need. */
export interface OrderDeps {
  prisma: PrismaClient;
  config: Pick<CheckoutConfig, 'ORDER_PAYMENT_TTL'>;
  clock?: () => Date;
  /** The service's relay: the order batcher hands placed orders' order.created to it (see OrderBatcher). */
  relay?: CommittedEvents;
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

/** The order an earlier request with the same key placed, and the hash of that request. */
interface EarlierRequest {
  id: string;
  requestHash: string | null;
}

/** The order an earlier request with this key placed; 409 `idempotency_key_reused` when its body differed. */
export async function earlierOrder(prisma: PrismaClient, customerId: string, idempotency: Idempotency | null): Promise<Order | null> {
  if (!idempotency) return null;
  // a cheap probe first: almost every key is new
  const [earlier] = await prisma.$queryRaw<EarlierRequest[]>`
    SELECT id, request_hash AS "requestHash" FROM "order" WHERE customer_id = ${customerId}::uuid AND idempotency_key = ${idempotency.key}`;
  return orderOfEarlier(prisma, earlier, idempotency);
}

/** The order an earlier request placed (looked up by its key), or 409 `idempotency_key_reused` when its body differed. */
async function orderOfEarlier(prisma: PrismaClient, earlier: EarlierRequest | undefined | null, idempotency: Idempotency): Promise<Order | null> {
  if (!earlier) return null;
  if (earlier.requestHash !== idempotency.hash) {
    throw conflict('idempotency_key_reused', 'this Idempotency-Key was used for a different request');
  }
  return prisma.order.findUnique({ where: { id: earlier.id } });
}

/** How a prepared order is written: in the order transaction, or on its own (a plain order through the order batcher, placePlainOrder). */
export type Placement = ((tx: Tx) => Promise<Order>) | { alone: () => Promise<Order> };

/**
 * Runs a submit once per Idempotency-Key: a retry with the same key and body answers the first
 * order (before anything is checked again), another body 409. Two identical requests racing meet
 * at the unique (customer, key) index: the second transaction rolls back and answers the first
 * order. `prepare` reads and checks the request (outside the transaction); `place` only writes the
 * order (a retry after a short-id collision writes it again with fresh ids).
 */
export async function placeOnce(
  prisma: PrismaClient,
  customerId: string,
  idempotency: Idempotency | null,
  prepare: () => Promise<Placement>,
): Promise<Order> {
  // the checks read at the same time as the key is looked up; a retry answers the first order whatever they say
  const prepared = prepare();
  prepared.catch(() => undefined);
  const earlier = await earlierOrder(prisma, customerId, idempotency);
  if (earlier) return earlier;
  return placeWithRetries(prisma, customerId, idempotency, await prepared);
}

/** Writes a prepared order (retryingKeyCollisions). */
function placeWithRetries(prisma: PrismaClient, customerId: string, idempotency: Idempotency | null, place: Placement): Promise<Order> {
  return retryingKeyCollisions(prisma, customerId, idempotency, () => (typeof place === 'function' ? prisma.$transaction(place, ORDER_TRANSACTION) : place.alone()));
}

/**
 * Runs a write of an order; a unique-key violation answers the order an identical request placed
 * meanwhile (same Idempotency-Key), else writes again (fresh ids on every call: a short-id collision).
 */
async function retryingKeyCollisions<T>(prisma: PrismaClient, customerId: string, idempotency: Idempotency | null, write: () => Promise<T>): Promise<T | Order> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (err) {
      if (err instanceof EarlierOrder && idempotency) {
        const earlier = await orderOfEarlier(prisma, { id: err.earlier.orderId, requestHash: err.earlier.requestHash }, idempotency);
        if (earlier) return earlier;
      }
      if (!isUniqueViolation(err)) throw err;
      const first = await earlierOrder(prisma, customerId, idempotency);
      if (first) return first;
      if (attempt >= ATTEMPTS) throw err;
    }
  }
}

/** The order of a plain placement: the one placed, or the earlier order of its Idempotency-Key (409 when its body differed). */
async function orderOfPlacement(prisma: PrismaClient, idempotency: Idempotency | null, placement: Exclude<PlainPlacement, { stale: true }>): Promise<Order> {
  if ('placed' in placement) return placement.placed;
  const earlier = idempotency && (await orderOfEarlier(prisma, { id: placement.earlier.orderId, requestHash: placement.earlier.requestHash }, idempotency));
  if (!earlier) throw new Error('place_orders answered an earlier order for a request without its Idempotency-Key');
  return earlier;
}

export const idempotencyOf = (kind: string, key: string | undefined, body: unknown): Idempotency | null =>
  key === undefined ? null : { key, hash: requestHash(kind, body) };

/** A buyer TIN as given (empty: none), validated and normalised; 400 `invalid_tin`. */
export function buyerTinOf(input: string | null | undefined): string | null {
  const tin = normaliseOptionalTin(input);
  if (!tin.ok) throw badRequest('invalid_tin', tin.reason);
  return tin.tin;
}

/** Saves the TIN to the customer's profile only when the profile has none. */
async function saveTinWhenUnset(tx: Tx, customerId: string, tin: string): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO customer_profile (customer_id, tin, updated_at) VALUES (${customerId}::uuid, ${tin}, now())
    ON CONFLICT (customer_id) DO UPDATE SET tin = EXCLUDED.tin, updated_at = now() WHERE customer_profile.tin IS NULL`;
}

/** What a submit reads before it prices: the order of an earlier request with the key, the address, the cart's catalog (with their versions). */
interface SubmitRead {
  earlier: EarlierRequest | null;
  address: VersionedAddress | null;
  catalog: VersionedCatalogRow[];
}

/** What readForSubmit asks for one submit. */
interface SubmitReadInput {
  customerId: string;
  addressId: string;
  key: string | null;
  productIds: string[];
}

/**
 * The three reads of a submit (the order of an earlier request with the key, the address, the
 * cart's catalog; the address and catalog rows with the versions place_orders checks when a later
 * submit is priced from them), for the submits of one batch at once (readBatcherOf): one row per
 * submit, in order. A plain order then costs two round trips in all, each shared by its batch (one,
 * when its rows are in the pricing cache).
 */
const SUBMIT_READS = `
  SELECT
    (SELECT json_build_object('id', o.id, 'requestHash', o.request_hash) FROM "order" o
      WHERE q.key IS NOT NULL AND o.customer_id = q.customer_id AND o.idempotency_key = q.key) AS earlier,
    (SELECT json_build_object('fullName', a.full_name, 'phone', a.phone, 'addressLine1', a.address_line_1, 'addressLine2', a.address_line_2,
        'city', a.city, 'postcode', a.postcode, 'state', a.state, 'version', address_version(a))
      FROM customer_address a WHERE a.id = q.address_id AND a.customer_id = q.customer_id) AS address,
    (SELECT COALESCE(json_agg((${CATALOG_ROW_JSON})::jsonb || jsonb_build_object('version', catalog_version(p))), '[]'::json)
      FROM product p WHERE p.id = ANY(q.product_ids)) AS catalog
  FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS r(e, n)
    CROSS JOIN LATERAL (SELECT (r.e ->> 'customerId')::uuid AS customer_id, (r.e ->> 'addressId')::uuid AS address_id, r.e ->> 'key' AS key,
      ARRAY(SELECT jsonb_array_elements_text(r.e -> 'productIds'))::uuid[] AS product_ids) AS q
  ORDER BY r.n`;

/** Submits' reads per statement at most (two statements in flight at once, see readBatcherOf). */
const MAX_READS_PER_BATCH = 64;
const readBatchers = new WeakMap<SqlPool, Batcher<SubmitReadInput, SubmitRead>>();

/** The one read batcher of a connection pool: the reads of concurrent submits share a round trip (Batcher). */
function readBatcherOf(pool: SqlPool): Batcher<SubmitReadInput, SubmitRead> {
  let batcher = readBatchers.get(pool);
  if (!batcher) {
    batcher = new Batcher({
      maxBatch: MAX_READS_PER_BATCH,
      // reads lock nothing: a submit arriving while a read batch is out goes at once in a second one
      maxInFlight: 2,
      run: async (inputs) => (await pool.query<SubmitRead>({ name: 'checkout_submit_reads', text: SUBMIT_READS, values: [JSON.stringify(inputs)] })).rows,
    });
    readBatchers.set(pool, batcher);
  }
  return batcher;
}

function readForSubmit(prisma: PrismaClient, customerId: string, body: SubmitOrderBody, idempotency: Idempotency | null, productIds: string[]): Promise<SubmitRead> {
  return readBatcherOf(sqlPoolOf(prisma)).submit({ customerId, addressId: body.addressId, key: idempotency?.key ?? null, productIds });
}

const pricingCaches = new WeakMap<SqlPool, PricingCache>();

/** The one pricing cache of a connection pool (of the service's Prisma client). */
export function pricingCacheOf(pool: SqlPool): PricingCache {
  let cache = pricingCaches.get(pool);
  if (!cache) pricingCaches.set(pool, (cache = new PricingCache()));
  return cache;
}

/** Whether a submit may be priced from the pricing cache: a plain order (no voucher, KOL code or points) with no TIN to save. */
const mayPriceFromCache = (body: SubmitOrderBody) => !body.voucherId && !body.kolCode && !body.loyaltyPoints && !body.buyerTin;

/** What priceOrder takes for a submit to `shippingAddress`. */
function submitInput(deps: OrderDeps, customerId: string, body: SubmitOrderBody, options: SubmitOptions, idempotency: Idempotency | null, shippingAddress: PostalAddress, buyerTin: string | null): PlaceOrderInput {
  const { config, clock = systemClock } = deps;
  return {
    customerId,
    lines: body.items,
    shippingAddress,
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
  };
}

/**
 * A plain submit priced from the pricing cache, without a read: the order, or undefined when it
 * must go the whole way (a refusal, which only a fresh read may give; or `stale`: a row it was
 * priced from changed). The write checks the rows' versions and looks up the Idempotency-Key's
 * earlier order, so a retry still answers the first order.
 */
async function placeFromCache(deps: OrderDeps, customerId: string, body: SubmitOrderBody, options: SubmitOptions, idempotency: Idempotency | null, cart: RememberedCart): Promise<Order | undefined> {
  const { prisma } = deps;
  let priced: PricedOrder;
  try {
    priced = await priceOrder(prisma, submitInput(deps, customerId, body, options, idempotency, cart.address, null), cart.catalog);
  } catch (err) {
    if (err instanceof ProblemError) return undefined;
    throw err;
  }
  if (!isPlainOrder(priced)) return undefined;
  const batcher = orderBatcherOf(sqlPoolOf(prisma), deps.relay);
  return retryingKeyCollisions(prisma, customerId, idempotency, async () => {
    const placement = await placePlainOrder(batcher, priced, cart.pricedFrom);
    return 'stale' in placement ? undefined : orderOfPlacement(prisma, idempotency, placement);
  });
}

/**
 * POST /checkout/submit: a single-store cart to the caller's own address (404 otherwise). Named
 * steps (STYLE §1), each idempotent on the Idempotency-Key; nothing to compensate, as nothing is
 * written before the last:
 * 1. fromCache: a plain submit whose address and products a recent submit read (the pricing
 *    cache) is priced from them and placed at once (placeFromCache); the write checks the rows are
 *    unchanged (else `stale`: go on from step 2).
 * 2. read: one read, shared by a batch of submits (readForSubmit): the Idempotency-Key's earlier
 *    order, the address, the cart's catalog; what it read is remembered for step 1.
 * 3. answerEarlier: an earlier order of the key answers at once, before anything is checked again
 *    (409 when its body differed).
 * 4. price: priceOrder checks and prices, writing nothing (refusals are ProblemErrors).
 * 5. place: the one order writer, place_orders: a plain order through the order batcher (group
 *    commit); one with a TIN to save (or a voucher, KOL code, points) in a transaction that then
 *    counts those (writeOrder). A racing identical request meets the earlier order there.
 */
export async function submitOrder(deps: OrderDeps, customerId: string, body: SubmitOrderBody, options: SubmitOptions = {}): Promise<Order> {
  const { prisma } = deps;
  const idempotency = idempotencyOf('submit', options.idempotencyKey, body);
  const productIds = [...new Set(body.items.map((item) => item.productId))];
  const cache = pricingCacheOf(sqlPoolOf(prisma));
  // 1. fromCache
  const cart = mayPriceFromCache(body) ? cache.cart(customerId, body.addressId, productIds) : undefined;
  if (cart) {
    const order = await placeFromCache(deps, customerId, body, options, idempotency, cart);
    if (order) return order;
    cache.forget(customerId, body.addressId, productIds);
  }
  // 2. read
  const read = await readForSubmit(prisma, customerId, body, idempotency, productIds);
  const catalog = cache.remember(customerId, body.addressId, read.address, read.catalog);
  // 3. answerEarlier
  const earlier = idempotency ? await orderOfEarlier(prisma, read.earlier, idempotency) : null;
  if (earlier) return earlier;
  // 4. price
  const buyerTin = buyerTinOf(body.buyerTin);
  if (!read.address) throw notFound('address');
  const { version: _address, ...shippingAddress } = read.address;
  const priced = await priceOrder(prisma, submitInput(deps, customerId, body, options, idempotency, shippingAddress, buyerTin), catalog);
  // 5. place
  const placement: Placement =
    !buyerTin && isPlainOrder(priced)
      ? {
          alone: async () => {
            const placed = await placePlainOrder(orderBatcherOf(sqlPoolOf(prisma), deps.relay), priced);
            if ('stale' in placed) throw new Error('place_orders answered stale for an order without expectations');
            return orderOfPlacement(prisma, idempotency, placed);
          },
        }
      : async (tx: Tx) => {
          if (buyerTin) await saveTinWhenUnset(tx, customerId, buyerTin);
          return writeOrder(tx, priced);
        };
  return placeWithRetries(prisma, customerId, idempotency, placement);
}
