import { accessSync, constants } from 'node:fs';
import { connect, createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { baseDatabaseUrl } from './services';

export type ProbeResult = { ok: true } | { ok: false; error: string };

function message(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length) return err.errors.map(message).join('; ');
  if (err instanceof Error) return err.message || (err as NodeJS.ErrnoException).code || err.name;
  return String(err);
}

/** Connects and runs `SELECT 1`. */
export async function probePostgres(databaseUrl: string, timeoutMs = 3000): Promise<ProbeResult> {
  const client = new pg.Client({ connectionString: baseDatabaseUrl(databaseUrl), connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { ok: true };
  } catch (err) {
    return { ok: false, error: message(err) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The host and port of the first server of a NATS URL (`nats://[user:pass@]host[:port][,...]`). */
export function natsAddress(natsUrl: string): { host: string; port: number } {
  const first = natsUrl.split(',')[0].trim();
  const url = new URL(first.includes('://') ? first : `nats://${first}`);
  return { host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: url.port ? Number(url.port) : 4222 };
}

/** Opens a TCP connection and waits for the server's `INFO` greeting. */
export function probeNats(natsUrl: string, timeoutMs = 3000): Promise<ProbeResult> {
  const { host, port } = natsAddress(natsUrl);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let received = '';
    const finish = (result: ProbeResult) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, error: `no answer from ${host}:${port} within ${timeoutMs} ms` }), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (received.startsWith('INFO')) finish({ ok: true });
      else if (received.length >= 4) finish({ ok: false, error: `${host}:${port} does not speak NATS` });
    });
    socket.on('error', (err) => finish({ ok: false, error: message(err) }));
    socket.on('close', () => finish({ ok: false, error: `${host}:${port} closed the connection` }));
  });
}

/** True when nothing listens on the port of 127.0.0.1 (so a service can bind it). */
export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** The full path of an executable found on PATH, or undefined. */
export function findOnPath(binary: string, pathValue: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}
