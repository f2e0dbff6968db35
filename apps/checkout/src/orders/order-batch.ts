import { HANDING_OVER, type OutboxRelay, type OutboxRow } from '@pasar/bus';
import { isConnectionFailure, type sqlPoolOf } from '@pasar/db';
import { unavailable } from '@pasar/service-kit';

/** A service's pg pool (sqlPoolOf). */
type SqlPool = ReturnType<typeof sqlPoolOf>;

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

interface Queued {
  entry: BatchEntry;
  resolve: (outcome: BatchOutcome) => void;
  reject: (err: unknown) => void;
}

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
  private readonly queue: Queued[] = [];
  private inFlight: Promise<void> | null = null;
  private stopped = false;
  private relay?: CommittedEvents;

  constructor(
    private readonly pool: SqlPool,
    private readonly maxOrders = MAX_ORDERS_PER_BATCH,
  ) {}

  /** From now on, placed orders' events are handed to `relay` after their commit. */
  handOverTo(relay: CommittedEvents): void {
    this.relay = relay;
  }

  /** Orders waiting for the batch in flight to return. */
  get queued(): number {
    return this.queue.length;
  }

  /** Whether a batch is in flight. */
  get busy(): boolean {
    return this.inFlight !== null;
  }

  /** Places the order (in a batch); `insufficient_stock` when its units were gone (nothing written). */
  place(entry: BatchEntry): Promise<BatchOutcome> {
    if (this.stopped) return Promise.reject(stopping());
    return new Promise<BatchOutcome>((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      if (!this.inFlight) this.sendNext();
    });
  }

  /** Refuses new and queued orders (503) and waits for the batch in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const queued of this.queue.splice(0)) queued.reject(stopping());
    while (this.inFlight) await this.inFlight;
  }

  private sendNext(): void {
    const batch = this.queue.splice(0, this.maxOrders);
    if (batch.length === 0) {
      this.inFlight = null;
      return;
    }
    this.inFlight = this.send(batch).finally(() => this.sendNext());
  }

  private async send(batch: Queued[]): Promise<void> {
    try {
      const placed = await this.call(batch.map((q) => q.entry));
      this.relay?.publishCommitted(batch.filter((_, i) => placed[i]).map((q) => q.entry.outbox));
      batch.forEach((q, i) => q.resolve(placed[i] ? 'placed' : 'insufficient_stock'));
      return;
    } catch (err) {
      if (batch.length === 1 || isConnectionFailure(err)) {
        const reason = isConnectionFailure(err) ? connectionLost() : err;
        for (const q of batch) q.reject(reason);
        return;
      }
    }
    // the whole batch rolled back: one by one, so only the order that breaks fails
    for (const q of batch) {
      try {
        const [placed] = await this.call([q.entry]);
        if (placed) this.relay?.publishCommitted([q.entry.outbox]);
        q.resolve(placed ? 'placed' : 'insufficient_stock');
      } catch (err) {
        q.reject(isConnectionFailure(err) ? connectionLost() : err);
      }
    }
  }

  private async call(entries: BatchEntry[]): Promise<boolean[]> {
    const statement = this.relay
      ? { name: 'place_order_batch_handing_over', text: PLACE_ORDER_BATCH_HANDING_OVER }
      : { name: 'place_order_batch', text: PLACE_ORDER_BATCH };
    const result = await this.pool.query<{ placed: boolean[] }>({ ...statement, values: [JSON.stringify(entries)] });
    const placed = result.rows[0]?.placed;
    if (!Array.isArray(placed) || placed.length !== entries.length) throw new Error('place_order_batch answered a result of another size');
    return placed;
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
