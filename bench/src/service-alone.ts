import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createTestSchema } from '@pasar/db';
import { testServiceEnv, uniqueNamespace, waitFor } from '@pasar/testkit';

const ROOT = join(__dirname, '..', '..');

export interface ServiceAlone {
  pid: number;
  /** The service's own test schema (its database URL names it). */
  databaseUrl: string;
  schema: string;
  /** SIGTERM, waits for the process to end, then drops the schema. */
  stop(): Promise<void>;
}

/**
 * One service started alone for a probe of its cost, as the stack starts it (node --import tsx
 * apps/<app>/src/main.ts, its log lines dropped at warn), on a fresh test schema and NATS
 * namespace named after `label`. `env` adds to the test environment (PORT at least); `readyUrl`
 * is its /readyz, polled until it answers 200. `nodeArgs` go before the script (e.g. --cpu-prof).
 */
export async function startServiceAlone(
  app: string,
  label: string,
  env: Record<string, string>,
  readyUrl: string,
  nodeArgs: string[] = [],
): Promise<ServiceAlone> {
  const db = createTestSchema(undefined, label);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join('apps', app, 'src', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...testServiceEnv(db.databaseUrl, uniqueNamespace(label)), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    await db.drop();
  };
  try {
    await waitFor(async () => (await fetch(readyUrl).catch(() => undefined))?.ok, 60_000, 200);
  } catch (err) {
    await stop();
    throw err;
  }
  return { pid: child.pid as number, databaseUrl: db.databaseUrl, schema: db.schema, stop };
}
