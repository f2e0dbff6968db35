import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { EventContract, EventData, EventEnvelope } from '@pasar/contracts';
import type { Bus } from './bus';
import { REQUEST_ID_HEADER } from './bus';
import { currentTraceHeaders, outsideTraces, setTraceHeaders } from './trace';

/** The part of a Prisma transaction client that writing to the outbox needs. */
export interface OutboxTx {
  outbox: {
    createMany(args: { data: { id: string; type: string; payload: object; headers: Record<string, string>; aggregate: string | null }[] }): PromiseLike<unknown>;
  };
}

export interface EnqueueOptions {
  source: string;
  requestId?: string;
  /** Defaults to a fresh uuid; pass one to make the event id deterministic. */
  eventId?: string;
  occurredAt?: Date;
}

/**
 * Writes events to the outbox inside the caller's transaction: they are published if, and only
 * if, the transaction commits. Data is validated against its contract first (through the
 * contract's `accepts` fast path when it has one). Each row names its aggregate (the contract's
 * `aggregateOf`, e.g. `order:<id>`): the relay keeps one aggregate's events in order.
 */
export async function enqueueEvents<E extends EventContract>(
  tx: OutboxTx,
  contract: E,
  items: EventData<E>[],
  options: EnqueueOptions,
): Promise<EventEnvelope<EventData<E>>[]> {
  const envelopes = items.map((data, i) => {
    const envelope: EventEnvelope<EventData<E>> = {
      id: i === 0 && options.eventId ? options.eventId : randomUUID(),
      type: contract.type,
      version: contract.version,
      source: options.source,
      occurredAt: (options.occurredAt ?? new Date()).toISOString(),
      // a hot event's fast path (contract.accepts) skips the parse only for data the parse would answer unchanged
      data: contract.accepts?.(data) ? data : (contract.data.parse(data) as EventData<E>),
    };
    return envelope;
  });
  if (envelopes.length === 0) return envelopes;
  // the trace context of the writing request travels with the row: the relay publishes it later, from elsewhere
  const headers: Record<string, string> = { ...currentTraceHeaders(), ...(options.requestId ? { [REQUEST_ID_HEADER]: options.requestId } : {}) };
  const rows: OutboxRow[] = envelopes.map((e) => ({ id: e.id, type: e.type, payload: e, headers, aggregate: aggregateOf(contract, e.data) }));
  await tx.outbox.createMany({ data: rows as (OutboxRow & { payload: object })[] });
  // a transaction that hands its rows over (inTransactionHandingOver) collects them for after its commit
  handOvers.get(tx)?.push(...rows);
  return envelopes;
}

/** The aggregate an event's row names (EventContract.aggregateOf), or null for an event that orders with nothing. */
export function aggregateOf(contract: EventContract, data: unknown): string | null {
  return contract.aggregateOf ? contract.aggregateOf(data as never) : null;
}

export async function enqueueEvent<E extends EventContract>(
  tx: OutboxTx,
  contract: E,
  data: EventData<E>,
  options: EnqueueOptions,
): Promise<EventEnvelope<EventData<E>>> {
  const [envelope] = await enqueueEvents(tx, contract, [data], options);
  return envelope;
}

/** Where a transaction's committed outbox rows are handed: the service's relay (tests may pass a recorder). */
export type CommittedEvents = Pick<OutboxRelay, 'publishCommitted'>;

/** What a transaction that hands its rows over needs: the outbox (enqueueEvent(s)) and raw SQL (a Prisma transaction client fits). */
export interface HandingOverTx extends OutboxTx {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
}

/** The rows enqueueEvent(s) wrote in each transaction that hands its rows over, by its transaction client. */
const handOvers = new WeakMap<object, OutboxRow[]>();

/**
 * Of the rows a transaction wrote, the aggregates with an earlier row not yet published: those rows
 * are left to the relay (so that they go out after it, in order), and the commit wakes it (NOTIFY,
 * as the outbox trigger would have). Run at the end of the transaction, after its row locks: an
 * earlier writer of the same aggregate has committed by then.
 */
const EARLIER_UNPUBLISHED = `SELECT aggregate, pg_notify('outbox_' || current_schema(), '')::text AS woken FROM (SELECT DISTINCT aggregate FROM outbox
  WHERE published_at IS NULL AND aggregate = ANY($1::text[]) AND NOT (id = ANY($2::uuid[]))) AS earlier`;

/**
 * Runs `work` in one transaction of `db` whose outbox rows, written by enqueueEvent(s) inside it,
 * are handed to `relay` (publishCommitted) once it committed: the events go out with the answer,
 * not after the relay's NOTIFY and read, and the commit wakes no relay (HANDING_OVER). A row of an
 * aggregate with an earlier row still unpublished is left to the relay (woken), which keeps the
 * aggregate's order. A publish that fails leaves its row to the relay, which retries it in order;
 * a transaction that fails hands nothing over. Without a relay it is a plain transaction.
 * Rows written otherwise (raw SQL) are not collected: inside, write the outbox with enqueueEvent(s)
 * only, or they wait for the relay's backstop poll.
 */
export async function inTransactionHandingOver<TTx extends HandingOverTx, R>(
  db: { $transaction<T>(fn: (tx: TTx) => Promise<T>): Promise<T> },
  relay: CommittedEvents | undefined,
  work: (tx: TTx) => Promise<R>,
): Promise<R> {
  if (!relay) return db.$transaction(work);
  let rows: OutboxRow[] = [];
  const result = await db.$transaction(async (tx) => {
    rows = [];
    await tx.$queryRawUnsafe(`SELECT ${HANDING_OVER}`);
    handOvers.set(tx, rows);
    const answer = await work(tx);
    handOvers.delete(tx);
    const aggregates = [...new Set(rows.flatMap((row) => (row.aggregate === null ? [] : [row.aggregate])))];
    if (aggregates.length > 0) {
      const earlier = await tx.$queryRawUnsafe<{ aggregate: string }[]>(EARLIER_UNPUBLISHED, aggregates, rows.map((row) => row.id));
      const held = new Set(earlier.map((e) => e.aggregate));
      rows = rows.filter((row) => row.aggregate === null || !held.has(row.aggregate));
    }
    return answer;
  });
  relay.publishCommitted(rows);
  return result;
}

export interface OutboxRelayOptions {
  bus: Bus;
  /** Connection string of the service's database; `?schema=` names the schema that holds `outbox`. */
  databaseUrl: string;
  schema: string;
  /** Backstop poll when no NOTIFY arrives. */
  pollMs?: number;
  batchSize?: number;
  /**
   * How long the marks of rows handed over (publishCommitted) wait, so that the rows handed over
   * meanwhile are marked by the same statement (default 100 ms). A mark lost in a crash only
   * republishes its row (JetStream's duplicate window and the consumers' inboxes drop it).
   */
  markDelayMs?: number;
  /** Called for each row moved to `outbox_dead_letter` (a metric counts them). */
  onParked?: (eventId: string, err: unknown) => void;
}

/** An outbox row that can never be published as it is (too large, invalid). */
export class UnpublishableError extends Error {
  override readonly name = 'UnpublishableError';
}

/**
 * Whether a publish failure is about the row itself (parking it is the only way on) rather than
 * about NATS being away (then the relay keeps the row and retries in order). The client refuses a
 * payload over `max_payload` or an invalid subject before sending; JetStream refuses a message
 * larger than the stream allows.
 */
export function isUnpublishable(err: unknown): boolean {
  if (err instanceof UnpublishableError) return true;
  if (!(err instanceof Error)) return false;
  if (err.name === 'InvalidSubjectError') return true;
  if (err.name === 'InvalidArgumentError' && /max_payload|payload|subject/i.test(err.message)) return true;
  if (err.name === 'JetStreamApiError' && /message size exceeds|maximum.*size|invalid/i.test(err.message)) return true;
  return false;
}

/**
 * An SQL expression that marks the statement's transaction as one whose outbox rows are handed to
 * the relay (publishCommitted) after the commit: the outbox trigger then sends no NOTIFY. Evaluate
 * it before the outbox insert, e.g. `SELECT f(...) FROM (SELECT <HANDING_OVER>) AS handing_over`.
 */
export const HANDING_OVER = "set_config('pasar.outbox_handed_over', 'on', true)";

/** An outbox row as the relay publishes it. */
export interface OutboxRow {
  id: string;
  type: string;
  payload: unknown;
  headers: Record<string, string>;
  /** `order:<id>`, …: rows of one aggregate go out in order (null: a row that orders with nothing). */
  aggregate: string | null;
}

/**
 * The rows of a batch in the rounds they are published in: round k holds the k-th row (by seq) of
 * each aggregate, a row without one in the first round. Each round's publishes go out together;
 * a row is sent only once the one before it of its aggregate went out, so that after a failed
 * publish the later rows of that aggregate wait (in order) while the other aggregates go on.
 */
export function publishRounds<R extends Pick<OutboxRow, 'aggregate'>>(rows: readonly R[]): R[][] {
  const rounds: R[][] = [];
  const seen = new Map<string, number>();
  for (const row of rows) {
    const rank = row.aggregate === null ? 0 : (seen.get(row.aggregate) ?? 0);
    if (row.aggregate !== null) seen.set(row.aggregate, rank + 1);
    (rounds[rank] ??= []).push(row);
  }
  return rounds;
}

/** How often a standby relay tries to become the leader (the leader's connection died: it takes over). */
const STANDBY_POLL_MS = 1000;

/**
 * Publishes unpublished outbox rows in order. One relay per schema leads: it holds a session
 * advisory lock on its own connection, which also LISTENs for the NOTIFY of every outbox insert;
 * the others stand by and try the lock every second, so one takes over when the leader's process
 * or connection dies. The leader sends a batch's publishes one after the other without waiting
 * (JetStream stores them in that order), then awaits the acks and marks the published rows; a
 * row of an aggregate (`order:<id>`, …) is sent only after the one before it of the same
 * aggregate went out (publishRounds). When a publish fails, the later rows of its aggregate wait
 * for the next pass and go out after it, in order; other aggregates are not held.
 * While NATS is down it keeps the rows and retries with a growing pause, in order; a row that can
 * never be published (too large for NATS, refused, invalid) is moved to `outbox_dead_letter` with
 * its error and the relay goes on with the next one.
 */
export class OutboxRelay {
  private readonly pool: pg.Pool;
  private running = false;
  private leading = false;
  private wake?: () => void;
  private stopping?: () => void;
  private readonly stopped: Promise<void>;
  /** A NOTIFY arrived since the last flush began: flush again before sleeping (no row waits for the poll). */
  private notified = false;
  private loopDone?: Promise<void>;
  private leadDone?: Promise<void>;
  private readonly table: string;
  private readonly deadLetterTable: string;
  private readonly lockKey: string;
  /** Aggregates whose row failed to publish in the relay's last pass: their handed-over rows are left to the relay (in order). */
  private heldAggregates = new Set<string>();
  /** Rows handed over by publishCommitted and not yet marked: the relay's read leaves them alone. */
  private readonly handedOver = new Set<string>();
  /** Handed-over rows that went out, waiting for their mark (markHandedOver), with when each went out. */
  private pendingMarks: { id: string; sentAt: Date }[] = [];
  private markTimer?: NodeJS.Timeout;
  private marking: Promise<void> = Promise.resolve();

  constructor(private readonly options: OutboxRelayOptions) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema)) throw new Error(`bad schema name ${options.schema}`);
    // the marks are re-doable (a mark lost in a crash republishes the row; JetStream's duplicate
    // window and the consumers' inboxes drop it), so they need not wait for the WAL flush
    // one connection for the relay's batches, one for the marks of rows handed over (publishCommitted)
    this.pool = new pg.Pool({ connectionString: stripSchema(options.databaseUrl), max: 2, options: '-c synchronous_commit=off' });
    this.pool.on('error', (err) => options.bus.log.warn({ err }, 'outbox pool error'));
    this.table = `"${options.schema}"."outbox"`;
    this.deadLetterTable = `"${options.schema}"."outbox_dead_letter"`;
    this.lockKey = `outbox:${options.schema}`;
    this.stopped = new Promise((r) => (this.stopping = r));
  }

  /** Whether this relay is the schema's leader (the one that publishes). */
  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.leadDone = this.lead();
    this.loopDone = this.loop();
  }

  /** Stops publishing; the rows handed over so far go out and are marked first. A second call waits for the first. */
  stop(): Promise<void> {
    this.stoppedOnce ??= this.stopNow();
    return this.stoppedOnce;
  }

  private stoppedOnce?: Promise<void>;

  private async stopNow(): Promise<void> {
    this.running = false;
    this.stopping?.();
    this.wake?.();
    await this.loopDone;
    await this.leadDone;
    // the handed-over rows' publishes under way, then their marks, before the pool goes
    await Promise.all(this.handingOver);
    clearTimeout(this.markTimer);
    await this.markHandedOver();
    await this.pool.end();
  }

  /**
   * Publishes rows whose transaction has just committed, at once, instead of after the NOTIFY and
   * the relay's read (the submit path's order.created: the event leaves with the answer), and marks
   * them published. Until then the relay's read leaves them alone; a row that does not go out is
   * the relay's again (it retries it in order, or parks it), and one published but not marked is
   * published again by the relay (JetStream's duplicate window and the consumers' inboxes drop it).
   * Stopped: the relay, here or in another instance, publishes them later. The publishes are sent
   * before this returns; one call's rows are marked together (hand a batch's rows over at once).
   */
  publishCommitted(rows: readonly OutboxRow[]): void {
    if (!this.running || rows.length === 0) return;
    for (const row of rows) this.handedOver.add(row.id);
    const publishing = this.publishHandedOver(rows);
    this.handingOver.add(publishing);
    void publishing.finally(() => this.handingOver.delete(publishing));
  }

  /** publishHandedOver calls under way (stop waits for them). */
  private readonly handingOver = new Set<Promise<void>>();

  /**
   * Publishes handed-over rows; those that went out wait for their mark (markDelayMs, with the rows
   * handed over meanwhile: one statement for them all, not a round trip per hand-over), those
   * that did not are the relay's again at once.
   */
  private async publishHandedOver(rows: readonly OutboxRow[]): Promise<void> {
    const sentAt = new Date(); // as the relay marks its rows: when they went out
    let failed = 0;
    const held = new Set<string>();
    for (const round of publishRounds(rows)) {
      // an aggregate whose earlier row the relay holds (a failed publish) or that failed here: the relay sends it, in order
      const sending = round.filter((row) => row.aggregate === null || (!held.has(row.aggregate) && !this.heldAggregates.has(row.aggregate)));
      for (const row of round) {
        if (sending.includes(row)) continue;
        failed += 1;
        this.handedOver.delete(row.id);
      }
      const outcomes = await Promise.allSettled(sending.map((row) => this.publish(row)));
      sending.forEach((row, i) => {
        if (outcomes[i].status === 'fulfilled') {
          this.pendingMarks.push({ id: row.id, sentAt });
        } else {
          failed += 1;
          if (row.aggregate !== null) held.add(row.aggregate);
          this.handedOver.delete(row.id);
        }
      });
    }
    // what did not go out (NATS away, a row too large) is the relay's now
    if (failed > 0) this.wakeUp();
    if (this.pendingMarks.length > 0 && !this.markTimer && this.running) {
      // armed from the request that handed its rows over, for every row handed over meanwhile: the
      // mark is the relay's statement, not that request's (no span in its trace)
      this.markTimer = outsideTraces(() =>
        setTimeout(() => {
          this.markTimer = undefined;
          void this.markHandedOver();
        }, this.options.markDelayMs ?? 100),
      );
    }
  }

  /** Marks the handed-over rows that went out (one statement, each row with its own sending time); then the relay may read them again. */
  private markHandedOver(): Promise<void> {
    this.marking = this.marking.then(async () => {
      const marks = this.pendingMarks;
      this.pendingMarks = [];
      if (marks.length === 0) return;
      try {
        await this.markPublished(this.pool, marks.map((m) => m.id), marks.map((m) => m.sentAt));
      } catch (err) {
        this.options.bus.log.warn({ err: String(err) }, 'could not mark published outbox rows; the relay publishes them again');
      } finally {
        for (const mark of marks) this.handedOver.delete(mark.id);
      }
    });
    return this.marking;
  }

  /** Publishes what is pending now (parking what can never go out); returns how many rows were published. */
  async flush(): Promise<number> {
    let total = 0;
    for (;;) {
      const { published, handled } = await this.publishBatch();
      total += published;
      if (handled < (this.options.batchSize ?? 200)) return total;
    }
  }

  private wakeUp(): void {
    this.notified = true;
    this.wake?.();
  }

  /**
   * Holds the leader's connection: takes the schema's session advisory lock (trying every second
   * while another relay has it), then LISTENs; leadership ends with the connection.
   */
  private async lead(): Promise<void> {
    while (this.running) {
      const client = new pg.Client({ connectionString: stripSchema(this.options.databaseUrl) });
      let connected = true;
      const lost = new Promise<void>((resolve) => {
        client.on('error', () => resolve());
        client.on('end', () => resolve());
      }).then(() => void (connected = false));
      try {
        await client.connect();
        while (this.running && !this.leading) {
          const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(hashtext('${this.lockKey}')) AS ok`);
          if (rows[0].ok) break;
          const gone = await Promise.race([sleep(STANDBY_POLL_MS).then(() => false), lost.then(() => true), this.stopped.then(() => true)]);
          if (gone) break;
        }
        if (this.running && connected) {
          client.on('notification', () => this.wakeUp());
          await client.query(`LISTEN "outbox_${this.options.schema}"`);
          this.leading = true;
          this.wakeUp(); // rows committed before LISTEN
          await Promise.race([lost, this.stopped]);
        }
      } catch (err) {
        if (this.running) this.options.bus.log.warn({ err }, 'outbox relay lost its database connection; reconnecting');
      }
      this.leading = false;
      // wait for a flush in progress before letting another relay lead (ending the connection frees the lock)
      await this.flushing;
      await client.end().catch(() => undefined);
      if (this.running) await Promise.race([sleep(STANDBY_POLL_MS), this.stopped]);
    }
  }

  private flushing: Promise<unknown> = Promise.resolve();

  private async loop(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let pause = this.options.pollMs ?? 1000;
      this.notified = false;
      if (this.leading) {
        const flushed = this.flush();
        this.flushing = flushed.catch(() => undefined);
        try {
          await flushed;
          failures = 0;
        } catch (err) {
          failures += 1;
          pause = Math.min(250 * 2 ** failures, 5000);
          this.options.bus.log.warn({ err: String(err), failures }, 'outbox publish failed; will retry');
        }
      }
      if (!this.running) break;
      // rows committed while that flush ran notified then: publish them now, not after the poll
      if (this.leading && this.notified && failures === 0) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** One batch: read, publish all (acks awaited together), park the unpublishable, mark the published. */
  private async publishBatch(): Promise<{ published: number; handled: number }> {
    const client = await this.pool.connect();
    try {
      let { rows } = await client.query<OutboxRow>({
        name: `outbox-pending-${this.options.schema}`,
        text: `SELECT id, type, payload, headers, aggregate FROM ${this.table} WHERE published_at IS NULL AND NOT (id = ANY($2::uuid[])) ORDER BY seq LIMIT $1`,
        values: [this.options.batchSize ?? 200, [...this.handedOver]],
      });
      // a row handed over (publishCommitted) while the read ran is not the relay's either
      rows = rows.filter((row) => !this.handedOver.has(row.id));
      if (rows.length === 0) return { published: 0, handled: 0 };
      const sentAt = new Date();
      const published: string[] = [];
      let failure: unknown;
      let parked = 0;
      /** Aggregates with a row that did not go out: their later rows wait for the next pass. */
      const held = new Set<string>();
      for (const round of publishRounds(rows)) {
        const sending = round.filter((row) => row.aggregate === null || !held.has(row.aggregate));
        const outcomes = await Promise.allSettled(sending.map((row) => this.publish(row)));
        for (const [i, outcome] of outcomes.entries()) {
          const row = sending[i];
          if (outcome.status === 'fulfilled') {
            published.push(row.id);
          } else if (isUnpublishable(outcome.reason)) {
            await this.park(client, row, outcome.reason);
            parked += 1;
          } else {
            // NATS away or slow, or the subject refused: this row stays unpublished and is retried
            // first; the later rows of its aggregate wait for it, those of other aggregates go on
            failure ??= outcome.reason;
            if (row.aggregate !== null) held.add(row.aggregate);
            await client.query(`UPDATE ${this.table} SET attempts = attempts + 1, last_error = $2 WHERE id = $1`, [row.id, String(outcome.reason).slice(0, 500)]);
          }
        }
      }
      this.heldAggregates = held;
      await this.markPublished(client, published, published.map(() => sentAt));
      if (failure) throw failure;
      return { published: published.length, handled: published.length + parked };
    } finally {
      client.release();
    }
  }

  /** Marks rows published (`published_at` = when each was sent, `sentAt[i]` for `ids[i]`); a row already marked keeps its time. */
  private async markPublished(db: pg.Pool | pg.PoolClient, ids: readonly string[], sentAt: readonly Date[]): Promise<void> {
    if (ids.length === 0) return;
    await db.query({
      name: `outbox-mark-${this.options.schema}`,
      text: `UPDATE ${this.table} AS o SET published_at = m.sent_at FROM unnest($1::uuid[], $2::timestamptz[]) AS m(id, sent_at)
        WHERE o.id = m.id AND o.published_at IS NULL`,
      values: [ids, sentAt],
    });
  }

  /** Moves a row that can never go out to the dead-letter table with its error. */
  private async park(client: pg.PoolClient, row: OutboxRow, err: unknown): Promise<void> {
    await client.query(
      `WITH dead AS (DELETE FROM ${this.table} WHERE id = $1 RETURNING id, seq, type, payload, headers, created_at)
       INSERT INTO ${this.deadLetterTable} (id, seq, type, payload, headers, created_at, error)
       SELECT id, seq, type, payload, headers, created_at, $2 FROM dead ON CONFLICT (id) DO NOTHING`,
      [row.id, String(err).slice(0, 2000)],
    );
    this.options.bus.log.error({ eventId: row.id, type: row.type, err: String(err) }, 'outbox row can never be published; parked in outbox_dead_letter');
    this.options.onParked?.(row.id, err);
  }

  private async publish(row: OutboxRow): Promise<void> {
    const { bus } = this.options;
    const h = bus.headers(row.headers[REQUEST_ID_HEADER]);
    setTraceHeaders(h, row.headers);
    const body = JSON.stringify(row.payload);
    const maxPayload = bus.nc.info?.max_payload;
    if (maxPayload !== undefined && Buffer.byteLength(body) > maxPayload) {
      throw new UnpublishableError(`event of ${Buffer.byteLength(body)} bytes exceeds the NATS max_payload of ${maxPayload} bytes`);
    }
    await bus.js.publish(bus.naming.eventSubject({ type: row.type, data: (row.payload as { data?: unknown } | null)?.data }), body, {
      msgID: row.id,
      headers: h,
      timeout: 2000,
    });
  }
}

/** pg does not understand Prisma's `?schema=`; drop it from the connection string. */
export function stripSchema(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.delete('schema');
  return url.toString();
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

