import { AckPolicy, DeliverPolicy, type ConsumerConfig, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { eventEnvelopeSchema, eventFilterOf, streamOf, type EventContract, type EventData, type EventEnvelope } from '@pasar/contracts';
import { sqlPoolOf, type RawTx, type SqlTx } from '@pasar/db';
import type pg from 'pg';
import type { Bus } from './bus';
import { REQUEST_ID_HEADER } from './bus';
import { inBatchSpan, inMessageSpan } from './trace';

/** A service's Prisma transaction client (structural, so any service's fits): the inbox rows and locks are raw SQL. */
export type InboxTx = RawTx;
/**
 * A plain pg client inside a transaction (a `pg.PoolClient` fits): what a handler on the plain-SQL
 * path gets. Hot handlers pass named statements (`{ name, text, values }`, e.g. through
 * @pasar/db's runStatement): prepared once per connection.
 */
export type { SqlTx };
export interface ParkingDb {
  parkedMessage: {
    create(args: {
      data: { consumer: string; eventId: string; subject: string; payload: string; error: string; deliveries: number };
    }): PromiseLike<unknown>;
  };
}
export interface TransactionalDb<TTx> extends ParkingDb {
  $transaction<R>(fn: (tx: TTx) => Promise<R>): Promise<R>;
}

export interface MessageContext {
  envelope: EventEnvelope;
  requestId?: string;
  deliveryCount: number;
}

export interface ConsumerOptions<E extends EventContract> {
  /** Durable name within the service, e.g. `user-replica`. */
  name: string;
  event: E;
  /**
   * Pauses between redeliveries after a failure (ms); the last one repeats for as long as it takes:
   * an infrastructure error (database down) must never drop a message. A handler whose failure is
   * itself an answer (notifier: an SMTP server that keeps refusing) throws PermanentFailure.
   */
  backoffMs?: number[];
  /** The dead-letter table (the service's `parked_message`) for messages that can never succeed. */
  parking?: ParkingDb;
  /**
   * The envelope versions this consumer understands (default: the contract's own). Any other is
   * parked, never handled by guesswork: a producer that bumped its version shows up loudly.
   */
  versions?: readonly number[];
  /**
   * For a routed event (EventRoute): the one part of it this consumer listens on (e.g. b2b's
   * `b2b` orders); the server then never delivers it the rest. Default: every part.
   */
  routeKey?: string;
  /**
   * How long the server waits for a message's ack before it delivers it again (default 30 s: what
   * a consumer that died mid-message costs). A batch still being handled is kept alive meanwhile.
   */
  ackWaitMs?: number;
  /**
   * How long a batch may be handled before it is taken as hung (default 5 min): a query on a
   * connection that never answers, a call without a timeout. Past it its messages are no longer
   * kept alive, so the server delivers them again after ack_wait, to another instance, and this
   * instance stops pulling (what it had buffered goes back at once) until the batch ends. With an
   * inbox a late end of the hung batch still has its effect once.
   */
  maxHandlingMs?: number;
  handler: (data: EventData<E>, ctx: MessageContext) => Promise<void>;
}

/**
 * Event data as it came off the wire, before the contract's schema checked it: every field may be
 * missing or of another type. What `ignore` sees, so that it runs before (and instead of) parsing.
 */
export type Unvalidated<T> = { readonly [K in keyof T]?: unknown };

export interface InboxConsumerOptions<E extends EventContract, TTx extends InboxTx> extends Omit<ConsumerOptions<E>, 'handler' | 'parking'> {
  db: TransactionalDb<TTx>;
  /**
   * Runs in one transaction with the inbox row: its effect happens once per event id. `locked`:
   * the transaction already holds the advisory lock of `lockKey(data)` (the handler need not take it).
   */
  handler: (data: EventData<E>, ctx: MessageContext & { tx: TTx; locked: boolean }) => Promise<void>;
  /**
   * Events the handler has nothing to do with (e.g. b2b and a consumer order): acked without
   * parsing, a transaction or an inbox row. It sees the raw data (nothing is validated yet), so it
   * must answer true only for events on which the handler would do nothing at all.
   */
  ignore?: (data: Unvalidated<EventData<E>>) => boolean;
  /**
   * The key the handler serialises on (what it passes to `lockKey`, e.g. `order:<id>`). Messages
   * that are already buffered are handled together in one transaction; their keys are locked
   * first, in sorted order, so two batches (or two consumers of one service) never deadlock.
   */
  lockKey?: (data: EventData<E>) => string;
}

/**
 * An inbox consumer whose transaction is a plain pg one on `sqlPoolOf(db)` (the same connections
 * as the Prisma client `db`, made by createPrisma) instead of a Prisma interactive transaction:
 * for hot handlers written as prepared statements, where Prisma's per-call cost dominates.
 */
export type SqlInboxConsumerOptions<E extends EventContract> = Omit<InboxConsumerOptions<E, InboxTx>, 'db' | 'handler'> & {
  plainSql: true;
  /** A client made by createPrisma: its pool runs the transactions, its `parkedMessage` parks. */
  db: ParkingDb;
} & (
    | { handler: (data: EventData<E>, ctx: MessageContext & { tx: SqlTx; locked: boolean }) => Promise<void>; claimAndHandle?: never }
    | {
        /**
         * Instead of `handler`: the batch's whole transaction is ONE statement, which this sends on
         * `pool` outside any transaction (autocommit: one round trip and one commit for the batch,
         * where BEGIN, the inbox, the handler's statements and COMMIT took four). The statement
         * claims the batch first with the bus's SQL function `inbox_claim(claim.consumer,
         * claim.eventIds, claim.lockKeys)` (the keys' advisory locks in order, then the inbox rows;
         * it answers the new event ids) and acts on the events with those ids only. It belongs in a
         * VOLATILE plpgsql function: its statements after the claim see what committed while the
         * claim waited for a lock (a single plain statement would keep its earlier snapshot). Its
         * effect must be what `handler` run on each new event in turn would have done.
         */
        claimAndHandle: (events: { id: string; data: EventData<E> }[], claim: InboxClaim, pool: pg.Pool) => Promise<void>;
        handler?: never;
      }
  );

/** What a one-statement consumer passes to the bus's `inbox_claim` SQL function (claimAndHandle). */
export interface InboxClaim {
  /** The durable consumer's name: the inbox rows' `consumer`. */
  consumer: string;
  /** The batch's event ids, in arrival order, each once (lower case): the ids of claimAndHandle's events. */
  eventIds: string[];
  /** The batch's lock keys (`lockKey`), sorted and without repeats; empty without `lockKey`. */
  lockKeys: string[];
}

/**
 * Thrown by a handler that refuses a message for good (it can never succeed, e.g. it names
 * something that cannot exist): the message is parked in the dead-letter table, not retried.
 * Any other error is taken as transient and retried with backoff, without limit.
 */
export class PermanentFailure extends Error {
  override readonly name = 'PermanentFailure';
}

export const DEFAULT_BACKOFF_MS = [1000, 2000, 5000, 10000, 30000];
const ACK_WAIT_MS = 30_000;
const MAX_HANDLING_MS = 5 * 60_000;
/** JetStream's "no limit" for max_deliver. */
const UNLIMITED = -1;
/** Messages pulled ahead; also the most an inbox consumer handles in one transaction. */
const MAX_BUFFERED = 64;

export interface RunningConsumer {
  stop(): Promise<void>;
  /** Resolves once the durable consumer exists and messages are being pulled. */
  ready: Promise<void>;
}

/** A message whose envelope and data passed their schemas. */
interface Delivery<E extends EventContract> {
  msg: JsMsg;
  envelope: EventEnvelope;
  data: EventData<E>;
  ctx: MessageContext;
}

type BaseOptions<E extends EventContract> = Omit<ConsumerOptions<E>, 'handler'>;

/** The per-message steps every consumer shares: decoding, parking, ack / nak with backoff. */
class MessageSettler<E extends EventContract> {
  private readonly backoff: number[];
  private readonly knownVersions: readonly number[];

  constructor(
    private readonly bus: Bus,
    readonly durable: string,
    private readonly options: BaseOptions<E>,
  ) {
    this.backoff = options.backoffMs?.length ? options.backoffMs : DEFAULT_BACKOFF_MS;
    this.knownVersions = options.versions ?? [options.event.version];
  }

  delayFor(deliveryCount: number): number {
    return this.backoff[Math.min(deliveryCount - 1, this.backoff.length - 1)];
  }

  /** The envelope of a message, or undefined when it was parked (malformed, unknown version). */
  async envelopeOf(msg: JsMsg): Promise<EventEnvelope | undefined> {
    let envelope: EventEnvelope | undefined;
    try {
      envelope = eventEnvelopeSchema.parse(msg.json()) as EventEnvelope;
      if (!this.knownVersions.includes(envelope.version ?? 1)) {
        throw new PermanentFailure(`${this.options.event.type} version ${envelope.version} is not one this consumer knows (${this.knownVersions.join(', ')})`);
      }
      return envelope;
    } catch (err) {
      await this.park(msg, envelope, err);
      return undefined;
    }
  }

  /** The validated delivery, or undefined when its data failed the contract (then it was parked). */
  async deliveryOf(msg: JsMsg, envelope: EventEnvelope): Promise<Delivery<E> | undefined> {
    let data: EventData<E>;
    try {
      // a hot event's fast path (contract.accepts) skips the parse only for data the parse would answer unchanged
      const { event } = this.options;
      data = (event.accepts?.(envelope.data) ? envelope.data : event.data.parse(envelope.data)) as EventData<E>;
    } catch (err) {
      await this.park(msg, envelope, err);
      return undefined;
    }
    const ctx = { envelope, requestId: msg.headers?.get(REQUEST_ID_HEADER) || undefined, deliveryCount: msg.info.deliveryCount };
    return { msg, envelope, data, ctx };
  }

  /**
   * A parked message's delivery rebuilt from its stored payload, for a replay in this process
   * (no JetStream message: nothing to ack). Throws when it still fails its contract.
   */
  replayedDelivery(payload: string): Delivery<E> {
    const envelope = eventEnvelopeSchema.parse(JSON.parse(payload)) as EventEnvelope;
    const data = this.options.event.data.parse(envelope.data) as EventData<E>;
    return { msg: undefined as unknown as JsMsg, envelope, data, ctx: { envelope, requestId: undefined, deliveryCount: 1 } };
  }

  /** Runs `work` for one message: ack on success, park on PermanentFailure, otherwise nak with backoff. */
  async settle(delivery: Delivery<E>, work: () => Promise<void>): Promise<void> {
    const { msg, envelope } = delivery;
    try {
      await inMessageSpan(`${envelope.type} process`, msg.headers, () => messageAttributes(msg, envelope, this.durable), work);
      msg.ack();
    } catch (err) {
      if (err instanceof PermanentFailure) return this.park(msg, envelope, err);
      const deliveryCount = msg.info.deliveryCount;
      const delay = this.delayFor(deliveryCount);
      this.bus.log
        .child({ consumer: this.durable, eventId: envelope.id, deliveryCount })
        .warn({ err: String(err), retryInMs: delay }, 'message handler failed; will redeliver');
      msg.nak(delay);
    }
  }

  /** Parks the message and terminates it; if the dead-letter insert fails, nak (try again later). */
  async park(msg: JsMsg, envelope: EventEnvelope | undefined, err: unknown): Promise<void> {
    const deliveryCount = msg.info.deliveryCount;
    const log = this.bus.log.child({ consumer: this.durable, eventId: envelope?.id, deliveryCount });
    if (!this.options.parking) {
      log.error({ err }, 'message can never succeed and this consumer has no dead-letter table; terminating it');
      terminate(msg);
      return;
    }
    try {
      await this.options.parking.parkedMessage.create({
        data: {
          consumer: this.durable,
          eventId: envelope?.id ?? String(msg.seq),
          subject: msg.subject,
          payload: msg.string(),
          error: String(err).slice(0, 2000),
          deliveries: deliveryCount,
        },
      });
    } catch (parkErr) {
      const delay = this.delayFor(deliveryCount);
      log.error({ err: String(err), parkErr: String(parkErr), retryInMs: delay }, 'could not park message; will redeliver');
      msg.nak(delay);
      return;
    }
    log.error({ err }, 'message can never succeed; parked in the dead-letter table');
    terminate(msg);
  }
}

/** A consumer span's attributes (OpenTelemetry messaging conventions). */
function messageAttributes(msg: JsMsg, envelope: EventEnvelope, consumer: string): Record<string, string | number> {
  return {
    'messaging.system': 'nats',
    'messaging.operation.type': 'process',
    'messaging.destination.name': msg.subject,
    'messaging.consumer.group.name': consumer,
    'messaging.message.id': envelope.id,
    'messaging.nats.delivery_count': msg.info.deliveryCount,
  };
}

/**
 * Terminates a message for good. Without a reason: a NATS 2.9 server does not understand
 * `+TERM <reason>` and redelivers the message after ack_wait (a parked message came back); the
 * reason is in the dead-letter table and the log anyway.
 */
function terminate(msg: JsMsg): void {
  msg.term();
}

/**
 * The durable pull consumer's loop: creates or updates the durable, buffers what the server sends
 * and hands everything buffered so far (at most MAX_BUFFERED) to `handleBatch`, one batch at a
 * time, so the order of the stream is kept. Reconnects with a growing pause. While a batch runs
 * its messages are kept alive (`working`, every third of ack_wait), for at most maxHandlingMs:
 * past it the batch is taken as hung, and its messages and the ones buffered behind it go to the
 * durable's other instances (ConsumerOptions.maxHandlingMs).
 */
function runDurable<E extends EventContract>(
  bus: Bus,
  options: BaseOptions<E>,
  durable: string,
  handleBatch: (msgs: JsMsg[]) => Promise<void>,
): RunningConsumer {
  const stream = bus.naming.stream(streamOf(options.event.type));
  let messages: ConsumerMessages | undefined;
  let stopped = false;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((r) => (markReady = r));
  const ackWaitMs = options.ackWaitMs ?? ACK_WAIT_MS;
  const maxHandlingMs = options.maxHandlingMs ?? MAX_HANDLING_MS;

  const config: Partial<ConsumerConfig> = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: bus.naming.subject(eventFilterOf(options.event, options.routeKey)),
    // The server never gives up on a message: only a handler's PermanentFailure or invalid data parks one.
    max_deliver: UNLIMITED,
    // No server-side `backoff`: the server would use its first entry as the ack wait and
    // redeliver a slow handler's message while it still runs. Failures are nak'ed with the
    // backoff delay instead; ack_wait only covers a consumer that died mid-message.
    ack_wait: nanos(ackWaitMs),
  };

  const buffered: JsMsg[] = [];
  let wake: (() => void) | undefined;

  /** Stops pulling and gives what is buffered back to the server (nak: delivered again at once, elsewhere). */
  const stopPulling = async (): Promise<void> => {
    await messages?.close();
    for (const msg of buffered.splice(0)) msg.nak();
  };

  /** `handleBatch`, its messages kept alive while it runs, for at most maxHandlingMs. */
  const handleKeptAlive = async (batch: JsMsg[]): Promise<void> => {
    const started = Date.now();
    const keepAlive = setInterval(() => batch.forEach((msg) => msg.working()), ackWaitMs / 3);
    let hung = false;
    const watchdog = setTimeout(() => {
      hung = true;
      clearInterval(keepAlive);
      bus.log.error({ consumer: durable, messages: batch.length, maxHandlingMs }, 'a batch is still being handled after maxHandlingMs: taken as hung, its messages go to other instances; pulling stops until it ends');
      void stopPulling();
    }, maxHandlingMs);
    try {
      await handleBatch(batch);
    } finally {
      clearInterval(keepAlive);
      clearTimeout(watchdog);
      if (hung) bus.log.warn({ consumer: durable, handlingMs: Date.now() - started }, 'the hung batch ended; pulling again');
    }
  };
  /** Handles batches until the buffer is empty and `closed` has settled. */
  const drain = async (closed: Promise<void | Error>): Promise<void | Error> => {
    let ended: { err: void | Error } | undefined;
    void closed.then((err) => {
      ended = { err };
      wake?.();
    });
    for (;;) {
      if (buffered.length > 0) {
        await handleKeptAlive(buffered.splice(0, MAX_BUFFERED));
        continue;
      }
      if (ended) return ended.err;
      await new Promise<void>((r) => (wake = r));
      wake = undefined;
    }
  };

  const run = async (): Promise<void> => {
    let attempt = 0;
    while (!stopped) {
      try {
        const jsm = await bus.jsm;
        try {
          await jsm.consumers.info(stream, durable);
          await jsm.consumers.update(stream, durable, {
            max_deliver: config.max_deliver,
            ack_wait: config.ack_wait,
            filter_subject: config.filter_subject,
          });
        } catch (err) {
          if (!/not found/i.test(String(err))) throw err;
          await jsm.consumers.add(stream, config);
        }
        const consumer = await bus.js.consumers.get(stream, durable);
        messages = await consumer.consume({
          max_messages: MAX_BUFFERED,
          callback: (msg) => {
            buffered.push(msg);
            wake?.();
          },
        });
        markReady();
        attempt = 0;
        const err = await drain(messages.closed());
        if (err) throw err;
      } catch (err) {
        if (stopped) break;
        attempt += 1;
        bus.log.warn({ err: String(err), consumer: durable, attempt }, 'consumer not running; retrying');
        await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 5000)));
      }
    }
  };
  const done = run();

  return {
    ready,
    async stop() {
      stopped = true;
      await messages?.close();
      await done;
    },
  };
}

/**
 * A durable JetStream pull consumer with explicit ack. A message that fails validation, or whose
 * handler throws `PermanentFailure`, is parked (dead-letter table) and terminated; any other
 * failure is nak'ed with the backoff delay and redelivered until it succeeds (max_deliver is
 * unlimited). If parking itself fails (database down) the message is nak'ed, never terminated.
 * Instances of one service share the durable, so work is split between them.
 */
export function consume<E extends EventContract>(bus: Bus, options: ConsumerOptions<E>): RunningConsumer {
  const durable = bus.naming.durable(bus.service, options.name);
  const settler = new MessageSettler<E>(bus, durable, options);
  bus.replayers.set(durable, async (payload) => {
    const delivery = settler.replayedDelivery(payload);
    await options.handler(delivery.data, delivery.ctx);
  });
  return runDurable(bus, options, durable, async (msgs) => {
    for (const msg of msgs) {
      const envelope = await settler.envelopeOf(msg);
      const delivery = envelope && (await settler.deliveryOf(msg, envelope));
      if (delivery) await settler.settle(delivery, () => options.handler(delivery.data, delivery.ctx));
    }
  });
}

/**
 * A consumer whose handler runs in one database transaction with an inbox row keyed by
 * (consumer, event id): a second delivery of the same event finds the row and only acks.
 *
 * The messages already buffered are handled together, in ONE transaction: their inbox rows in one
 * statement (the duplicates drop out), their lock keys locked in sorted order, then the handler
 * per event in arrival order; all are acked after the commit. If that transaction fails, each
 * message gets its own transaction, so one that fails (or can never succeed) is retried or parked
 * alone and the others commit.
 *
 * With `plainSql: true` the transaction is a plain pg one on the Prisma client's own pool and the
 * handler gets a pg client (SqlTx); otherwise it is a Prisma interactive transaction.
 */
export function consumeWithInbox<E extends EventContract>(bus: Bus, options: SqlInboxConsumerOptions<E>): RunningConsumer;
export function consumeWithInbox<E extends EventContract, TTx extends InboxTx>(bus: Bus, options: InboxConsumerOptions<E, TTx>): RunningConsumer;
export function consumeWithInbox<E extends EventContract, TTx extends InboxTx>(
  bus: Bus,
  options: InboxConsumerOptions<E, TTx> | SqlInboxConsumerOptions<E>,
): RunningConsumer {
  const durable = bus.naming.durable(bus.service, options.name);
  const settler = new MessageSettler<E>(bus, durable, { ...options, parking: options.db });

  /** One transaction for the deliveries: inbox rows, locks, then the handler for each new event. */
  const handleTogether = async (deliveries: Delivery<E>[]): Promise<void> => {
    const ids = deliveries.map((d) => d.envelope.id.toLowerCase());
    const keys = options.lockKey ? [...new Set(deliveries.map((d) => options.lockKey!(d.data)))].sort() : [];
    const locked = keys.length > 0;
    /** The deliveries whose inbox row is new (an id twice in the batch: its first delivery). */
    const todoOf = (inserted: { id: string }[]) => {
      const fresh = new Set(inserted.map((r) => r.id));
      return deliveries.filter((d, i) => fresh.delete(ids[i]));
    };
    if ('plainSql' in options && options.plainSql && options.claimAndHandle) {
      // an event twice in the batch (a re-publish under another message id) is handed over once
      const seen = new Set<string>();
      const events = deliveries.flatMap((d, i) => (seen.has(ids[i]) ? [] : (seen.add(ids[i]), [{ id: ids[i], data: d.data }])));
      await options.claimAndHandle(events, { consumer: durable, eventIds: events.map((e) => e.id), lockKeys: keys }, sqlPoolOf(options.db));
      return;
    }
    if ('plainSql' in options && options.plainSql) {
      const { handler } = options;
      // BEGIN and the inbox statement go in one round trip (the transaction's first)
      await inSqlTransaction(sqlPoolOf(options.db), (tx) => beginWithInbox(tx, durable, ids, keys), async (tx, inserted) => {
        for (const d of todoOf(inserted)) await handler!(d.data, { ...d.ctx, tx, locked });
      });
      return;
    }
    const { db, handler } = options as InboxConsumerOptions<E, TTx>;
    await db.$transaction(async (tx) => {
      const inserted = await tx.$queryRawUnsafe<{ id: string }[]>(INBOX_BATCH, durable, ids, keys);
      for (const d of todoOf(inserted)) await handler(d.data, { ...d.ctx, tx, locked });
    });
  };

  // a replay runs through the inbox like a delivery: an event already handled is not handled twice
  bus.replayers.set(durable, (payload) => handleTogether([settler.replayedDelivery(payload)]));
  return runDurable(bus, options, durable, async (msgs) => {
    const deliveries: Delivery<E>[] = [];
    const ignored: JsMsg[] = [];
    for (const msg of msgs) {
      const envelope = await settler.envelopeOf(msg);
      if (!envelope) continue;
      if (options.ignore?.((envelope.data ?? {}) as Unvalidated<EventData<E>>)) {
        ignored.push(msg);
        continue;
      }
      const delivery = await settler.deliveryOf(msg, envelope);
      if (delivery) deliveries.push(delivery);
    }
    // acked together, in one write to NATS (an ack between two awaits above would be a write each)
    for (const msg of ignored) msg.ack();
    if (deliveries.length > 1) {
      try {
        await inBatchSpan(
          `${deliveries[0].envelope.type} process`,
          deliveries.map((d) => ({ headers: d.msg.headers, id: d.envelope.id })),
          () => handleTogether(deliveries),
        );
        for (const d of deliveries) d.msg.ack();
        return;
      } catch (err) {
        bus.log.debug({ err: String(err), consumer: durable, messages: deliveries.length }, 'batch transaction failed; handling its messages one by one');
      }
    }
    for (const d of deliveries) await settler.settle(d, () => handleTogether([d]));
  });
}

/**
 * The inbox statement, one round trip: the locks first (the uncorrelated sub-select runs once,
 * before any row is inserted; unnest yields the array's order, so they are taken in sorted order),
 * then the inbox rows; the events already handled drop out of RETURNING. Its arguments are SQL
 * expressions: the consumer, the event ids (uuid[]) and the sorted lock keys (text[]). A key's lock
 * is the one @pasar/db's lockKey takes (same hash), so a handler's own lockKey of it does not wait.
 */
const inboxStatement = (consumer: string, ids: string, keys: string) =>
  `INSERT INTO inbox (consumer, event_id) SELECT ${consumer}, id FROM unnest(${ids}) AS id
    WHERE (SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest(${keys}) AS k) AS locks) >= 0
    ON CONFLICT DO NOTHING RETURNING event_id::text AS id`;

/** The Prisma path's inbox statement: $1 consumer, $2 event ids, $3 sorted lock keys. */
const INBOX_BATCH = inboxStatement('$1', '$2::uuid[]', '$3::text[]');

/**
 * BEGIN and the inbox statement as one simple-protocol query (one round trip instead of two), its
 * values escaped as literals by pg (escapeLiteral); answers the inserted inbox rows.
 */
async function beginWithInbox(tx: pg.PoolClient, consumer: string, ids: string[], keys: string[]): Promise<{ id: string }[]> {
  const array = (values: string[], type: string) => `ARRAY[${values.map((v) => tx.escapeLiteral(v)).join(', ')}]::${type}[]`;
  const results = (await tx.query(`BEGIN; ${inboxStatement(tx.escapeLiteral(consumer), array(ids, 'uuid'), array(keys, 'text'))}`)) as unknown as pg.QueryResult<{ id: string }>[];
  return results[1].rows;
}

/**
 * Runs `work` in a transaction on a client of `pool`, opened by `begin` (which sends BEGIN and may
 * do more in the same round trip; `work` gets what it answered); a client whose rollback failed is
 * discarded, not reused.
 */
async function inSqlTransaction<T>(pool: pg.Pool, begin: (tx: pg.PoolClient) => Promise<T>, work: (tx: pg.PoolClient, begun: T) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const begun = await begin(client);
    await work(client, begun);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken = rollbackErr));
    throw err;
  } finally {
    client.release(broken);
  }
}
