import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';
import { waitFor } from './wait';

export interface OwnNatsServer {
  url: string;
  port: number;
  /** Stops the server (SIGTERM) and waits for it to exit; the store stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store (with JetStream or not: default as before). */
  start(options?: { jetStream?: boolean }): Promise<void>;
  /** Stops it and removes its store. */
  destroy(): Promise<void>;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface OwnNatsServerOptions {
  /** Default env NATS_SERVER_BIN, else nats-server on PATH. */
  binary?: string;
  /** A nats-server config file (`-c`), e.g. the generated users and permissions; port and store stay the flags'. */
  configFile?: string;
  /** Run with JetStream (default true); false: a server that has none (yet). */
  jetStream?: boolean;
}

/** A private `nats-server -js` (or without JetStream) on a free port (for outage and permission tests); the binary must be on PATH. */
export async function startOwnNatsServer(options: OwnNatsServerOptions = {}): Promise<OwnNatsServer> {
  const binary = options.binary ?? process.env.NATS_SERVER_BIN ?? 'nats-server';
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'pasar-nats-'));
  let child: ChildProcess | undefined;
  let jetStream = options.jetStream ?? true;

  const start = async (again: { jetStream?: boolean } = {}) => {
    jetStream = again.jetStream ?? jetStream;
    const config = options.configFile ? ['-c', options.configFile] : [];
    child = spawn(binary, [...config, ...(jetStream ? ['-js', '-sd', storeDir] : []), '-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    await waitFor(() => portOpen(port), 10000);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
