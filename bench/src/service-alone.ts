import { join } from 'node:path';
import { createTestSchema } from '@pasar/db';
import { ManagedProcess, waitUntilReady } from '@pasar/stack';
import { testServiceEnv, uniqueNamespace } from '@pasar/testkit';

const ROOT = join(__dirname, '..', '..');

export interface ServiceAlone {
  pid: number;
  /** The service's own test schema (its database URL names it). */
  databaseUrl: string;
  schema: string;
  /** Stops the process as the stack does (SIGTERM to its group, SIGKILL after the grace), then drops the schema. */
  stop(): Promise<void>;
}

/**
 * One service started alone for a probe of its cost, as the stack starts it (its ManagedProcess:
 * node --import tsx apps/<app>/src/main.ts, logging at warn; its stderr lines are printed), on a
 * fresh test schema and NATS namespace named after `label`. `env` adds to the test environment
 * (PORT at least); `baseUrl` is where it answers, waited for as the stack waits (fails at once if
 * the process ends first). `nodeArgs` go before the script (e.g. --cpu-prof).
 */
export async function startServiceAlone(
  app: string,
  label: string,
  env: Record<string, string>,
  baseUrl: string,
  nodeArgs: string[] = [],
): Promise<ServiceAlone> {
  const db = createTestSchema(undefined, label);
  const service = new ManagedProcess({
    name: app,
    command: process.execPath,
    args: [...nodeArgs, '--import', 'tsx', join('apps', app, 'src', 'main.ts')],
    cwd: ROOT,
    env: { ...process.env, ...testServiceEnv(db.databaseUrl, uniqueNamespace(label)), LOG_LEVEL: 'warn', ...env },
    sink: ({ source, line, stream }) => {
      if (stream === 'stderr') process.stderr.write(`${source}: ${line}\n`);
    },
    keepLines: 40,
  });
  const stop = async () => {
    await service.stop();
    await db.drop();
  };
  service.start();
  const pid = service.pid as number;
  try {
    await waitUntilReady(service, baseUrl, Date.now() + 60_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { pid, databaseUrl: db.databaseUrl, schema: db.schema, stop };
}
