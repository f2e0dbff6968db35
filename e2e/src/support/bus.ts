import { randomUUID } from 'node:crypto';
import { createTestBus, waitFor, type TestBus } from '@pasar/testkit';

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

/** A NATS connection on the stack's namespace, for publishing events as a service would. */
export async function connectBus(natsUrl: string, namespace: string): Promise<TestBus> {
  return createTestBus('e2e', namespace, natsUrl);
}

/**
 * Publishes an envelope on its subject with its own JetStream message id (so the stream's
 * duplicate window does not drop a deliberate re-delivery). Returns the stream sequence.
 */
export async function publish<T>(testBus: TestBus, event: Envelope<T>, msgID: string = randomUUID()): Promise<number> {
  const ack = await testBus.bus.js.publish(testBus.bus.naming.subject(event.type), JSON.stringify(event), { msgID });
  return ack.seq;
}

/** Waits until a service's durable consumer has acked every message up to `seq` on the stream. */
export async function waitForAck(testBus: TestBus, stream: 'IDENTITY' | 'NOTIFY', durable: string, seq: number, timeoutMs = 30_000): Promise<void> {
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
