import { randomUUID } from 'node:crypto';
import { createTestBus, waitFor, type TestBus } from '@pasar/testkit';
import { E2E_NATS_USER } from './stack';

export interface Envelope<T> {
  id: string;
  type: string;
  source: string;
  occurredAt: string;
  data: T;
}

export function envelope<T>(type: string, data: T, id: string = randomUUID()): Envelope<T> {
  return { id, type, source: 'e2e', occurredAt: new Date().toISOString(), data };
}

/**
 * A NATS connection on the stack's namespace, for publishing events as a service would: on a stack
 * with NATS users (useNatsUsers) pass `stack.natsSeeds[E2E_NATS_USER]`, the test's user with every permission.
 */
export async function connectBus(natsUrl: string, namespace: string, nkeySeed?: string): Promise<TestBus> {
  return createTestBus('e2e', namespace, natsUrl, nkeySeed ? { nkeySeed } : undefined);
}

/**
 * Publishes an envelope on its subject with its own JetStream message id (so the stream's
 * duplicate window does not drop a deliberate re-delivery). Returns the stream sequence.
 */
export async function publish<T>(testBus: TestBus, event: Envelope<T>, msgID: string = randomUUID()): Promise<number> {
  const ack = await testBus.bus.js.publish(testBus.bus.naming.eventSubject(event), JSON.stringify(event), { msgID });
  return ack.seq;
}

/** Waits until a service's durable consumer has acked every message up to `seq` on the stream. */
export async function waitForAck(testBus: TestBus, stream: 'IDENTITY' | 'NOTIFY' | 'VENDOR', durable: string, seq: number, timeoutMs = 30_000): Promise<void> {
  const jsm = await testBus.bus.jsm;
  await waitFor(
    async () => {
      const info = await jsm.consumers.info(testBus.bus.naming.stream(stream), durable);
      return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0;
    },
    timeoutMs,
    100,
  );
}

/**
 * The first envelope of `type` on a stream whose data matches, as the service published it (read
 * back by sequence), with its stream sequence; undefined when there is none yet.
 */
export async function findEnvelope<T>(
  testBus: TestBus,
  stream: 'CHECKOUT' | 'VENDOR',
  type: string,
  matches: (data: T) => boolean,
): Promise<{ envelope: Envelope<T>; seq: number } | undefined> {
  const jsm = await testBus.bus.jsm;
  const name = testBus.bus.naming.stream(stream);
  const subject = testBus.bus.naming.subject(type);
  const { state } = await jsm.streams.info(name);
  for (let seq = state.first_seq; seq <= state.last_seq; seq += 1) {
    const message = await jsm.streams.getMessage(name, { seq }).catch(() => null);
    // a routed type's events are on `<type>.<key>` (EventRoute)
    if (!message || (message.subject !== subject && !message.subject.startsWith(`${subject}.`))) continue;
    const envelope = message.json<Envelope<T>>();
    if (matches(envelope.data)) return { envelope, seq };
  }
  return undefined;
}

/** The test's own bus on an e2e stack: as the `e2e` superuser when the stack runs NATS users, else anonymous. */
export function connectStackBus(e2e: { stack: { natsUrl: string; natsSeeds: Record<string, string> }; namespace: string }): Promise<TestBus> {
  return connectBus(e2e.stack.natsUrl, e2e.namespace, e2e.stack.natsSeeds[E2E_NATS_USER]);
}
