import { AckPolicy, DeliverPolicy, type ConsumerConfig, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { eventEnvelopeSchema, streamOf, type EventContract, type EventData, type EventEnvelope } from '@pasar/contracts';
import type { Bus } from './bus';
import { REQUEST_ID_HEADER } from './bus';

/** The parts of a Prisma client a consumer with an inbox needs (structural, so any service's client fits). */
/** A service's Prisma transaction client: the inbox row is written with raw SQL (no query compilation per event). */
export interface InboxTx {
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<number>;
}
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
  handler: (data: EventData<E>, ctx: MessageContext) => Promise<void>;
}

export interface InboxConsumerOptions<E extends EventContract, TTx extends InboxTx> extends Omit<ConsumerOptions<E>, 'handler' | 'parking'> {
  db: TransactionalDb<TTx>;
  /** Runs in one transaction with the inbox row: its effect happens once per event id. */
  handler: (data: EventData<E>, ctx: MessageContext & { tx: TTx }) => Promise<void>;
  /**
   * Events the handler has nothing to do with (e.g. b2b and a consumer order): acked without a
   * transaction or inbox row. Only for events on which the handler would do nothing at all.
   */
  ignore?: (data: EventData<E>) => boolean;
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
/** JetStream's "no limit" for max_deliver. */
const UNLIMITED = -1;

export interface RunningConsumer {
  stop(): Promise<void>;
  /** Resolves once the durable consumer exists and messages are being pulled. */
  ready: Promise<void>;
}

/**
 * A durable JetStream pull consumer with explicit ack. A message that fails validation, or whose
 * handler throws `PermanentFailure`, is parked (dead-letter table) and terminated; any other
 * failure is nak'ed with the backoff delay and redelivered until it succeeds (max_deliver is
 * unlimited). If parking itself fails (database down) the message is nak'ed, never terminated.
 * Instances of one service share the durable, so work is split between them.
 */
export function consume<E extends EventContract>(bus: Bus, options: ConsumerOptions<E>): RunningConsumer {
  const backoff = options.backoffMs?.length ? options.backoffMs : DEFAULT_BACKOFF_MS;
  const durable = bus.naming.durable(bus.service, options.name);
  const knownVersions = options.versions ?? [options.event.version];
  const stream = bus.naming.stream(streamOf(options.event.type));
  let messages: ConsumerMessages | undefined;
  let stopped = false;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((r) => (markReady = r));

  const config: Partial<ConsumerConfig> = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: bus.naming.subject(options.event.type),
    // The server never gives up on a message: only a handler's PermanentFailure or invalid data parks one.
    max_deliver: UNLIMITED,
    // No server-side `backoff`: the server would use its first entry as the ack wait and
    // redeliver a slow handler's message while it still runs. Failures are nak'ed with the
    // backoff delay instead; ack_wait only covers a consumer that died mid-message.
    ack_wait: nanos(ACK_WAIT_MS),
  };
  const delayFor = (deliveryCount: number) => backoff[Math.min(deliveryCount - 1, backoff.length - 1)];

  /** Parks the message and terminates it; if the dead-letter insert fails, nak (try again later). */
  const park = async (msg: JsMsg, envelope: EventEnvelope | undefined, err: unknown): Promise<void> => {
    const deliveryCount = msg.info.deliveryCount;
    const log = bus.log.child({ consumer: durable, eventId: envelope?.id, deliveryCount });
    if (!options.parking) {
      log.error({ err }, 'message can never succeed and this consumer has no dead-letter table; terminating it');
      msg.term(String(err).slice(0, 200));
      return;
    }
    try {
      await options.parking.parkedMessage.create({
        data: {
          consumer: durable,
          eventId: envelope?.id ?? String(msg.seq),
          subject: msg.subject,
          payload: msg.string(),
          error: String(err).slice(0, 2000),
          deliveries: deliveryCount,
        },
      });
    } catch (parkErr) {
      const delay = delayFor(deliveryCount);
      log.error({ err: String(err), parkErr: String(parkErr), retryInMs: delay }, 'could not park message; will redeliver');
      msg.nak(delay);
      return;
    }
    log.error({ err }, 'message can never succeed; parked in the dead-letter table');
    msg.term(String(err).slice(0, 200));
  };

  const handle = async (msg: JsMsg): Promise<void> => {
    const deliveryCount = msg.info.deliveryCount;
    let envelope: EventEnvelope | undefined;
    let data: EventData<E>;
    try {
      envelope = eventEnvelopeSchema.parse(msg.json()) as EventEnvelope;
      if (!knownVersions.includes(envelope.version ?? 1)) {
        throw new PermanentFailure(`${options.event.type} version ${envelope.version} is not one this consumer knows (${knownVersions.join(', ')})`);
      }
      data = options.event.data.parse(envelope.data) as EventData<E>;
    } catch (err) {
      return park(msg, envelope, err);
    }
    try {
      const keepAlive = setInterval(() => msg.working(), ACK_WAIT_MS / 3);
      try {
        await options.handler(data, { envelope, requestId: msg.headers?.get(REQUEST_ID_HEADER) || undefined, deliveryCount });
      } finally {
        clearInterval(keepAlive);
      }
      msg.ack();
    } catch (err) {
      if (err instanceof PermanentFailure) return park(msg, envelope, err);
      const delay = delayFor(deliveryCount);
      bus.log
        .child({ consumer: durable, eventId: envelope.id, deliveryCount })
        .warn({ err: String(err), retryInMs: delay }, 'message handler failed; will redeliver');
      msg.nak(delay);
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
        messages = await consumer.consume({ max_messages: 64 });
        markReady();
        attempt = 0;
        for await (const msg of messages) {
          await handle(msg);
        }
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
 * A consumer whose handler runs in one database transaction with an inbox row keyed by
 * (consumer, event id): a second delivery of the same event finds the row and only acks.
 */
export function consumeWithInbox<E extends EventContract, TTx extends InboxTx>(
  bus: Bus,
  options: InboxConsumerOptions<E, TTx>,
): RunningConsumer {
  const consumerName = bus.naming.durable(bus.service, options.name);
  return consume(bus, {
    ...options,
    parking: options.db,
    handler: async (data, ctx) => {
      if (options.ignore?.(data)) return;
      await options.db.$transaction(async (tx) => {
        const count = await tx.$executeRaw`INSERT INTO inbox (consumer, event_id) VALUES (${consumerName}, ${ctx.envelope.id}::uuid) ON CONFLICT DO NOTHING`;
        if (count === 0) return; // already handled
        await options.handler(data, { ...ctx, tx });
      });
    },
  });
}
