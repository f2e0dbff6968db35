import { HANDING_OVER, type CommittedEvents, type OutboxRow } from '@pasar/bus';
import { Batcher, isConnectionFailure, type SqlPool } from '@pasar/db';
import { unavailable } from '@pasar/service-kit';

/**
 * One order as `place_orders` (the one order writer) takes it: the rows to insert, by table, with
 * their snake_case columns (see apps/checkout/sql/functions/place_orders.sql). Built by
 * place-order.ts `batchEntryOf`.
 */
export interface BatchEntry {
  order: Record<string, unknown>;
  subOrders: Record<string, unknown>[];
  items: ({ product_id: string; variant_id: string | null; quantity: number } & Record<string, unknown>)[];
  payment: Record<string, unknown>;
  outbox: OutboxRow;
  /** What the order was priced from, when that came from the pricing cache: placed only while the database still holds it. */
  expect?: PricedFrom;
}

/** The versions (catalog_version, address_version) of the address and products an order was priced from. */
export interface PricedFrom {
  address: { id: string; version: string };
  products: { id: string; version: string }[];
}

/**
 * What became of an order in its batch: placed; refused for stock; not placed because what it was
 * priced from changed (`stale`: price it again from a fresh read); or not placed because an order
 * of the customer already has its Idempotency-Key (`earlier`).
 */
export type BatchOutcome = 'placed' | 'insufficient_stock' | 'stale' | { earlier: { orderId: string; requestHash: string | null } };

/** Orders per call of place_orders at most. */
export const MAX_ORDERS_PER_BATCH = 64;

const PLACE_ORDERS = 'SELECT place_orders($1::jsonb) AS outcomes';
/** The same, its outbox rows handed to the relay after the commit (the commit sends no NOTIFY). */
const PLACE_ORDERS_HANDING_OVER = `SELECT place_orders($1::jsonb) AS outcomes FROM (SELECT ${HANDING_OVER}) AS handing_over`;

/** One element of place_orders' answer. */
type OutcomeRow = { outcome: 'placed' | 'insufficient_stock' | 'stale' } | { outcome: 'earlier'; orderId: string; requestHash: string | null };

const outcomeOf = (row: OutcomeRow): BatchOutcome => (row.outcome === 'earlier' ? { earlier: { orderId: row.orderId, requestHash: row.requestHash } } : row.outcome);

/** What place_orders is called on inside an order transaction (a Prisma transaction client). */
interface RawQuery {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

/**
 * Places one order inside the caller's transaction with the same function as the batcher
 * (`place_orders`, a batch of one): the order writer of the submits that also count a voucher,
 * points or a KOL code, save a TIN, or are family or B2B orders. Nothing is written unless placed.
 */
export async function placeOrdersIn(tx: RawQuery, entry: BatchEntry): Promise<BatchOutcome> {
  const [row] = await tx.$queryRawUnsafe<{ outcomes: OutcomeRow[] }[]>(PLACE_ORDERS, JSON.stringify([entry]));
  if (!Array.isArray(row?.outcomes) || row.outcomes.length !== 1) throw new Error('place_orders answered a result of another size');
  return outcomeOf(row.outcomes[0]);
}

/**
 * Group commit of plain orders: an order that arrives while no batch is in flight goes at once,
 * alone (no timer); the orders that arrive while one is in flight queue up and go together, up
 * to MAX_ORDERS_PER_BATCH, in ONE call of `place_orders` as soon as it returns. Under a burst
 * on one hot product, the stock row is then locked once per batch instead of once per order, and
 * each order costs a fraction of a round trip.
 *
 * A batch the function rejects as a whole (a unique key, a constraint: an unexpected error) is
 * placed again order by order, so a bad order fails only itself. A broken connection is never
 * retried (the batch may have committed): its orders answer 503. `stop` drains: queued orders
 * answer 503, the batch in flight finishes.
 *
 * With the service's relay (`handOverTo`), the placed orders' order.created rows go to
 * `relay.publishCommitted` as soon as their batch committed, out with the answers, and the commit
 * wakes no relay; without one, the relay's NOTIFY path publishes them.
 */
export class OrderBatcher {
  private readonly batcher: Batcher<BatchEntry, BatchOutcome>;
  private relay?: CommittedEvents;

  constructor(
    private readonly pool: SqlPool,
    maxOrders = MAX_ORDERS_PER_BATCH,
  ) {
    this.batcher = new Batcher({
      run: (entries) => this.placeBatch(entries),
      maxBatch: maxOrders,
      // a broken connection is never retried (the batch may have committed)
      retryAlone: (err) => !isConnectionFailure(err),
      failure: (err) => (isConnectionFailure(err) ? connectionLost() : err),
    });
  }

  /** From now on, placed orders' events are handed to `relay` after their commit. */
  handOverTo(relay: CommittedEvents): void {
    this.relay = relay;
  }

  /** Orders waiting for the batch in flight to return. */
  get queued(): number {
    return this.batcher.queued;
  }

  /** Whether a batch is in flight. */
  get busy(): boolean {
    return this.batcher.busy;
  }

  /** Places the order (in a batch); what became of it (BatchOutcome; nothing written unless placed). */
  place(entry: BatchEntry): Promise<BatchOutcome> {
    return this.batcher.submit(entry);
  }

  /** Refuses new and queued orders (503) and waits for the batch in flight. */
  stop(): Promise<void> {
    return this.batcher.stop(stopping);
  }

  /** One call of place_orders; the placed orders' events go to the relay once it returned (committed). */
  private async placeBatch(entries: BatchEntry[]): Promise<BatchOutcome[]> {
    const statement = this.relay ? { name: 'place_orders_handing_over', text: PLACE_ORDERS_HANDING_OVER } : { name: 'place_orders', text: PLACE_ORDERS };
    const result = await this.pool.query<{ outcomes: OutcomeRow[] }>({ ...statement, values: [JSON.stringify(entries)] });
    const outcomes = result.rows[0]?.outcomes;
    if (!Array.isArray(outcomes) || outcomes.length !== entries.length) throw new Error('place_orders answered a result of another size');
    this.relay?.publishCommitted(entries.filter((_, i) => outcomes[i].outcome === 'placed').map((entry) => entry.outbox));
    return outcomes.map(outcomeOf);
  }
}

const stopping = () => unavailable('checkout is stopping; submit the order again');
const connectionLost = () => unavailable('the database connection failed while placing the order; check the pending order before submitting again');

const batchers = new WeakMap<SqlPool, OrderBatcher>();

/** The one batcher of a connection pool (of a service's Prisma client, sqlPoolOf), handing over to `relay` when given. */
export function orderBatcherOf(pool: SqlPool, relay?: CommittedEvents): OrderBatcher {
  let batcher = batchers.get(pool);
  if (!batcher) {
    batcher = new OrderBatcher(pool);
    batchers.set(pool, batcher);
  }
  if (relay) batcher.handOverTo(relay);
  return batcher;
}
