import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { freePort } from '@pasar/testkit';
import { hasExited, signalGroup, trackChild } from './children';
import { findOnPath, portIsFree, probeNats, sleep } from './probes';

export const NATS_INSTALL_HINT = [
  'No NATS server answers and no nats-server is on PATH. Get one of:',
  '  - Debian/Ubuntu: apt-get install nats-server',
  '  - the release binary from the nats-io/nats-server releases page (put nats-server on PATH)',
  '  - docker compose up nats',
  'or point NATS_URL at a running server (JetStream enabled).',
].join('\n');

export interface LocalNats {
  url: string;
  port: number;
  storeDir: string;
  pid: number | undefined;
  /** Stops the server: SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartNatsOptions {
  /** JetStream store directory (`-sd`). */
  storeDir: string;
  /** Default: 4222 when free, else a free port. */
  port?: number;
  /** A path, or a name looked up on PATH (default nats-server). */
  binary?: string;
  log?: (line: string) => void;
  readyTimeoutMs?: number;
  /** A nats-server config file (`-c`): the generated users and permissions (writeNatsAuth). */
  configFile?: string;
}

export class NatsServerMissingError extends Error {
  override readonly name = 'NatsServerMissingError';
  constructor() {
    super(NATS_INSTALL_HINT);
  }
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Runs `nats-server [-c <configFile>] -js -sd <storeDir> -a 127.0.0.1 -p <port>` until stopped. */
export async function startNatsServer(options: StartNatsOptions): Promise<LocalNats> {
  const wanted = options.binary ?? 'nats-server';
  const binary = wanted.includes('/') ? wanted : findOnPath(wanted);
  if (!binary) throw new NatsServerMissingError();
  const log = options.log ?? (() => undefined);
  const port = options.port ?? ((await portIsFree(4222)) ? 4222 : await freePort());
  mkdirSync(options.storeDir, { recursive: true });
  const config = options.configFile ? ['-c', options.configFile] : [];
  const child = spawn(binary, [...config, '-js', '-sd', options.storeDir, '-a', '127.0.0.1', '-p', String(port)], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      output.push(line);
      if (output.length > 50) output.shift();
      log(line);
    });
  }
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const url = `nats://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 15_000);
  for (;;) {
    if (spawnError) throw new Error(`nats-server could not be started: ${spawnError.message}`);
    if (child.exitCode !== null) {
      throw new Error(`nats-server exited with code ${child.exitCode}:\n${output.join('\n')}`);
    }
    if ((await probeNats(url, 1000)).ok) break;
    if (Date.now() > deadline) {
      signalGroup(child, 'SIGKILL');
      throw new Error(`nats-server did not answer on ${url}:\n${output.join('\n')}`);
    }
    await sleep(100);
  }
  const exited = waitForExit(child);
  return {
    url,
    port,
    storeDir: options.storeDir,
    pid: child.pid,
    async stop(graceMs = 10_000) {
      if (hasExited(child)) return;
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
