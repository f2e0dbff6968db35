import { randomBytes } from 'node:crypto';
import { Bus, createNatsUserKey, deleteNamespaceStreams, ensureStreams, type BusAuth, type BusOptions } from '@pasar/bus';
import pino from 'pino';
import { waitFor } from './wait';

export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** A namespace no other test file uses, so subjects and streams never collide. */
export function uniqueNamespace(prefix = 't'): string {
  return `${prefix}${randomBytes(5).toString('hex')}`;
}

/**
 * An NKey user seed for configs that must name one (NODE_ENV=production requires NATS_NKEY_SEED):
 * fresh per test process, known to no server; a NATS without auth (the shared test NATS) ignores it.
 */
export const TEST_NATS_NKEY_SEED = createNatsUserKey().seed;

export const silentLog = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export interface TestBus {
  bus: Bus;
  namespace: string;
  /** Deletes the namespace's streams and closes the connection. */
  close(): Promise<void>;
}

/** A bus on the real NATS under a fresh namespace, with the streams created; `auth` for a NATS with users (a test's own superuser). */
export async function createTestBus(service: string, namespace = uniqueNamespace(), natsUrl = TEST_NATS_URL, auth?: BusAuth): Promise<TestBus> {
  const bus = await Bus.connect({ natsUrl, namespace, service, log: silentLog, ...(auth ? { auth } : {}) });
  await ensureStreams(bus);
  return {
    bus,
    namespace,
    async close() {
      await deleteNamespaceStreams(bus).catch(() => undefined);
      await bus.close();
    },
  };
}

/**
 * A bus on a cluster just started, once `ready` passes on it (default: JetStream answers): a
 * cluster answers JetStream only after it elected its meta leader.
 */
export async function connectWhenJetStreamAnswers(
  options: BusOptions,
  ready: (bus: Bus) => Promise<unknown> = async (bus) => (await bus.jsm).getAccountInfo(),
  timeoutMs = 60000,
): Promise<Bus> {
  const bus = await Bus.connect(options);
  try {
    await waitFor(async () => {
      await ready(bus);
      return true;
    }, timeoutMs, 500);
    return bus;
  } catch (error) {
    await bus.close();
    throw error;
  }
}
