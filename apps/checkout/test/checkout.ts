import { createTestSchema } from '@pasar/db';
import { loadConfig } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, createTestBus, silentLog, type TestBus } from '@pasar/testkit';
import { startCheckout, type CheckoutService } from '../src/app';
import { checkoutConfigSchema } from '../src/config';

export interface TestCheckout {
  checkout: CheckoutService;
  /** Another connection on the checkout's namespace: publishes as another service would. */
  peer: TestBus;
  stop(): Promise<void>;
}

/**
 * The real checkout on port 0, with a fresh schema (migrated on start) and a fresh NATS namespace;
 * `env` adds or replaces variables (e.g. NODE_ENV=production with keys of its own).
 */
export async function startTestCheckout(env: Record<string, string> = {}): Promise<TestCheckout> {
  const db = createTestSchema(undefined, 'checkout');
  const peer = await createTestBus('peer');
  const testEnv = { NODE_ENV: 'test', PORT: '0', DATABASE_URL: db.databaseUrl, NATS_NAMESPACE: peer.namespace, IDENTITY_SECRET: TEST_IDENTITY_SECRET };
  let checkout: CheckoutService;
  try {
    checkout = await startCheckout(loadConfig(checkoutConfigSchema, { ...testEnv, ...env }), { log: silentLog });
    // consumers pull before the test publishes, so no test waits on a durable being created
    await Promise.all(checkout.consumers.map((consumer) => consumer.ready));
  } catch (err) {
    await peer.close();
    await db.drop();
    throw err;
  }
  return {
    checkout,
    peer,
    async stop() {
      await checkout.close();
      await peer.close();
      await db.drop();
    },
  };
}

/**
 * The test file's checkout: started before its tests (fresh schema and namespace), stopped after.
 * Read its fields inside tests only.
 */
export function useTestCheckout(env: Record<string, string> = {}): TestCheckout {
  let started: TestCheckout | undefined;
  beforeAll(async () => {
    started = await startTestCheckout(env);
  });
  afterAll(async () => {
    await started?.stop();
  });
  const current = () => {
    if (!started) throw new Error('the test checkout is not started yet: use it inside a test');
    return started;
  };
  return {
    get checkout() {
      return current().checkout;
    },
    get peer() {
      return current().peer;
    },
    stop: () => current().stop(),
  };
}
