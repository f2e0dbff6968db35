/**
 * A second gateway beside the stack's one: the same database schema, NATS namespace, identity
 * secret and service instances, on a port of its own (what a second replica behind a load balancer is).
 */
import { join } from 'node:path';
import { ManagedProcess, silentSink } from '@pasar/stack';
import { freePort, waitFor } from '@pasar/testkit';
import type { E2eStack } from './stack';

export interface SecondGateway {
  url: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

const UPSTREAMS = { CHECKOUT_URL: 'checkout', B2B_URL: 'b2b', VENDOR_URL: 'vendor', ADMIN_URL: 'admin' } as const;

export async function startSecondGateway(e2e: E2eStack, env: Record<string, string> = {}): Promise<SecondGateway> {
  const { stack } = e2e;
  const port = await freePort();
  const upstreams = Object.fromEntries(
    Object.entries(UPSTREAMS).map(([variable, service]) => [variable, stack.instances[service].map((instance) => instance.url).join(',')]),
  );
  const child = new ManagedProcess({
    name: 'gateway-2',
    command: process.execPath,
    args: ['--import', 'tsx', join('apps', 'gateway', 'src', 'main.ts')],
    cwd: join(__dirname, '..', '..', '..'),
    env: {
      ...process.env,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: stack.services.gateway.databaseUrl,
      NATS_URL: stack.natsUrl,
      NATS_NAMESPACE: stack.namespace,
      // on a stack with NATS users, the gateway's user
      ...(stack.natsSeeds.gateway ? { NATS_NKEY_SEED: stack.natsSeeds.gateway } : {}),
      IDENTITY_SECRET: stack.identitySecret,
      LOG_LEVEL: 'warn',
      MIGRATE_ON_START: 'false',
      ...upstreams,
      ...env,
    },
    sink: process.env.E2E_LOG === '1' ? ({ source, line }) => process.stdout.write(`[${source}] ${line}\n`) : silentSink,
    keepLines: 200,
  });
  child.start();
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => {
      if (!child.running) throw new Error(`the second gateway stopped:\n${child.lines.snapshot().slice(-30).join('\n')}`);
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      return response?.ok;
    }, 120_000, 200);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return { url, process: child, stop: () => child.stop() };
}
