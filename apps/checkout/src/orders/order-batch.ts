import { HANDING_OVER, type OutboxRelay, type OutboxRow } from '@pasar/bus';
import { Batcher, isConnectionFailure, type SqlPool } from '@pasar/db';
import { unavailable } from '@pasar/service-kit';

/**
 * One plain order as `place_order_batch` takes it: the rows to insert, by table, with their
 * snake_case columns (see the function's migration). Built by place-order.ts `batchEntryOf`.
 */
export interface BatchEntry {
  order: Record<string, unknown>;
  subOrders: Record<string, unknown>[];
  items: ({ product_id: string; variant_id: string | null; quantity: number } & Record<string, unknown>)[];
  payment: Record<string, unknown>;
  outbox: OutboxRow;
}

export type BatchOutcome = 'placed' | 'insufficient_stock';

/** Orders per call of place_order_batch at most. */
export const MAX_ORDERS_PER_BATCH = 64;

const PLACE_ORDER_BATCH = 'SELECT place_order_batch($1::jsonb) AS placed';
/** The same, its outbox rows handed to the relay after the commit (the commit sends no NOTIFY). */
const PLACE_ORDER_BATCH_HANDING_OVER = `SELECT place_order_batch($1::jsonb) AS placed FROM (SELECT ${HANDING_OVER}) AS handing_over`;

/** Where placed orders' order.created rows go once committed: the service's outbox relay. */
export type CommittedEvents = Pick<OutboxRelay, 'publishCommitted'>;

/**
 * Group commit of plain orders: an order that arrives while no batch is in flight goes at once,
 * alone (no timer); the orders that arrive while one is in flight queue up and go together, up
 * to MAX_ORDERS_PER_BATCH, in ONE call of `place_order_batch` as soon as it returns. Under a burst
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

  /** Places the order (in a batch); `insufficient_stock` when its units were gone (nothing written). */
  place(entry: BatchEntry): Promise<BatchOutcome> {
    return this.batcher.submit(entry);
  }

  /** Refuses new and queued orders (503) and waits for the batch in flight. */
  stop(): Promise<void> {
    return this.batcher.stop(stopping);
  }

  /** One call of place_order_batch; the placed orders' events go to the relay once it returned (committed). */
  private async placeBatch(entries: BatchEntry[]): Promise<BatchOutcome[]> {
    const statement = this.relay
      ? { name: 'place_order_batch_handing_over', text: PLACE_ORDER_BATCH_HANDING_OVER }
      : { name: 'place_order_batch', text: PLACE_ORDER_BATCH };
    const result = await this.pool.query<{ placed: boolean[] }>({ ...statement, values: [JSON.stringify(entries)] });
    const placed = result.rows[0]?.placed;
    if (!Array.isArray(placed) || placed.length !== entries.length) throw new Error('place_order_batch answered a result of another size');
    this.relay?.publishCommitted(entries.filter((_, i) => placed[i]).map((entry) => entry.outbox));
    return placed.map((ok) => (ok ? 'placed' : 'insufficient_stock'));
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
