import { DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { Bus } from '@pasar/bus';
import type { Logger } from 'pino';
import { FEED_FILTERS, FEED_STREAMS, isFeedEventType, keysOf, type FeedEventType, type FeedStream, type Position, type StreamBounds } from './rules';

/** One followed event off JetStream: where it sits in its stream, and what it says. */
export interface FeedMessage {
  stream: FeedStream;
  seq: number;
  type: FeedEventType;
  data: Record<string, unknown>;
  /** Fan-out keys (`order:<id>`, `store:<id>`, `b2b`). */
  keys: string[];
}

export type FeedListener = (message: FeedMessage) => void;

/**
 * The gateway's view of the domain events its live streams follow. Each gateway instance reads
 * the CHECKOUT and VENDOR streams itself through an ordered (ephemeral, in-memory) JetStream
 * consumer that starts at the streams' ends, and fans every message out in-process to the
 * streams listening on its keys: a client on any instance gets every event, whichever instance
 * of whichever service published it. A resume reads the gap from JetStream by sequence.
 */
export class LiveFeed {
  private readonly listeners = new Map<string, Set<FeedListener>>();
  private readonly running: ConsumerMessages[] = [];
  private stopped = false;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
  ) {}

  /** Starts reading both streams from their current ends (resolves once both consumers are there). */
  start(): Promise<void> {
    this.ready ??= Promise.all(FEED_STREAMS.map((stream) => this.follow(stream))).then(() => undefined);
    return this.ready;
  }

  /** Listens on `keys` (one listener per key however often it is added); `unlisten` stops it. */
  listen(keys: readonly string[], listener: FeedListener): void {
    for (const key of keys) {
      let set = this.listeners.get(key);
      if (!set) this.listeners.set(key, (set = new Set()));
      set.add(listener);
    }
  }

  /** Stops `listener` listening on `keys`. */
  unlisten(keys: readonly string[], listener: FeedListener): void {
    for (const key of keys) {
      const set = this.listeners.get(key);
      set?.delete(listener);
      if (set?.size === 0) this.listeners.delete(key);
    }
  }

  /** Each stream's first and last sequence right now. */
  async bounds(): Promise<Record<FeedStream, StreamBounds>> {
    const jsm = await this.bus.jsm;
    // a stream not created yet holds nothing
    const empty = { state: { first_seq: 0, last_seq: 0 } };
    const infos = await Promise.all(
      FEED_STREAMS.map((stream) =>
        jsm.streams.info(this.bus.naming.stream(stream)).catch((err: unknown) => {
          if (isStreamNotFound(err)) return empty;
          throw err;
        }),
      ),
    );
    return Object.fromEntries(
      FEED_STREAMS.map((stream, i) => [stream, { firstSeq: infos[i].state.first_seq, lastSeq: infos[i].state.last_seq }]),
    ) as Record<FeedStream, StreamBounds>;
  }

  /**
   * Reads each stream's messages after `from` up to and including `to` (a bounded range: the
   * caller checked it with `planResume`) and hands the followed ones to `onMessage`, stream by stream in order.
   */
  async replay(from: Position, to: Position, onMessage: (message: FeedMessage) => void): Promise<void> {
    for (const stream of FEED_STREAMS) {
      if (from[stream] >= to[stream]) continue;
      // no subject filter: the message at `to` is always delivered, so the read knows where to stop
      const consumer = await this.bus.js.consumers.get(this.bus.naming.stream(stream), {
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: from[stream] + 1,
      });
      const messages = await consumer.consume({ max_messages: 256 });
      try {
        for await (const msg of messages) {
          const message = this.decode(stream, msg);
          if (message) onMessage(message);
          if (msg.seq >= to[stream]) break;
        }
      } finally {
        messages.stop();
        // stopped, an ordered consumer stays on the server for its 5-minute inactive threshold
        await consumer.delete().catch((err: unknown) => this.log.warn({ err, stream }, 'live feed: a replay consumer was not deleted; the server drops it when inactive'));
      }
    }
  }

  /** Stops both consumers; listeners get nothing more. */
  stop(): void {
    this.stopped = true;
    for (const messages of this.running) messages.stop();
    this.listeners.clear();
  }

  /** How many streams listen right now (metrics and tests). */
  listenerCount(): number {
    const all = new Set<FeedListener>();
    for (const set of this.listeners.values()) for (const listener of set) all.add(listener);
    return all.size;
  }

  /**
   * Follows `stream` from its end. With NATS users each service creates only its own streams, so
   * on a first start the gateway may be up before checkout and vendor: a stream not there yet is
   * followed in the background from its first message once it exists (start does not wait).
   */
  private async follow(stream: FeedStream): Promise<void> {
    const jsm = await this.bus.jsm;
    const name = this.bus.naming.stream(stream);
    const state = await jsm.streams.info(name).then(
      (info) => info.state,
      (err: unknown) => {
        if (!isStreamNotFound(err)) throw err;
        return undefined;
      },
    );
    if (!state) {
      this.log.info({ stream: name }, 'live feed: stream not created yet; following it once it exists');
      void this.followWhenCreated(stream);
      return;
    }
    await this.consumeFrom(stream, state.last_seq + 1);
  }

  private async followWhenCreated(stream: FeedStream): Promise<void> {
    const jsm = await this.bus.jsm;
    const name = this.bus.naming.stream(stream);
    while (!this.stopped) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      try {
        await jsm.streams.info(name);
        // every message the stream holds arrived after the feed started: read them all
        if (!this.stopped) await this.consumeFrom(stream, 1);
        return;
      } catch (err) {
        if (!isStreamNotFound(err)) this.log.warn({ err, stream: name }, 'live feed: waiting for the stream failed; trying again');
      }
    }
  }

  private async consumeFrom(stream: FeedStream, startSeq: number): Promise<void> {
    const name = this.bus.naming.stream(stream);
    const state = { last_seq: startSeq - 1 };
    // an ordered consumer resets itself after a disconnect and goes on after the last sequence it saw
    const consumer = await this.bus.js.consumers.get(name, {
      filter_subjects: this.bus.naming.subject(FEED_FILTERS[stream]),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: state.last_seq + 1,
    });
    const messages = await consumer.consume();
    this.running.push(messages);
    void (async () => {
      try {
        for await (const msg of messages) {
          const message = this.decode(stream, msg);
          if (message) this.fanOut(message);
        }
      } catch (err) {
        if (!this.stopped) this.log.error({ err, stream }, 'live feed stopped reading');
      }
    })();
  }

  private fanOut(message: FeedMessage): void {
    const seen = new Set<FeedListener>();
    for (const key of message.keys) {
      for (const listener of this.listeners.get(key) ?? []) {
        if (seen.has(listener)) continue;
        seen.add(listener);
        try {
          listener(message);
        } catch (err) {
          this.log.error({ err, key }, 'a live stream failed to take an event');
        }
      }
    }
  }

  private decode(stream: FeedStream, msg: JsMsg): FeedMessage | undefined {
    const type = this.bus.naming.typeOf(msg.subject);
    if (!isFeedEventType(type)) return undefined;
    try {
      const envelope = msg.json<{ data?: unknown }>();
      if (typeof envelope.data !== 'object' || envelope.data === null) return undefined;
      const data = envelope.data as Record<string, unknown>;
      return { stream, seq: msg.seq, type, data, keys: keysOf(type, data) };
    } catch {
      this.log.warn({ subject: msg.subject, seq: msg.seq }, 'live feed skipped a message that is not JSON');
      return undefined;
    }
  }
}

/** JetStream's answer for a stream that does not exist (yet). */
function isStreamNotFound(err: unknown): boolean {
  return err instanceof Error && (err.name === 'StreamNotFoundError' || /stream not found/i.test(err.message));
}
