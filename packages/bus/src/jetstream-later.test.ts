/**
 * A bus connected while JetStream cannot answer (a cluster still electing its meta leader; here a
 * nats-server started without JetStream, then again with it on the same port) uses JetStream once
 * it answers: the failed ask for the account's info is not kept for the life of the process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, silentLog, uniqueNamespace, waitFor } from '@pasar/testkit';
import { Bus } from './bus';

const storeDir = mkdtempSync(join(tmpdir(), 'pasar-nats-later-'));
let port: number;
let server: ChildProcess | undefined;
let bus: Bus | undefined;

const accepts = () =>
  new Promise<boolean>((resolve) => {
    const socket = netConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

async function startServer(jetStream: boolean): Promise<void> {
  server = spawn(process.env.NATS_SERVER_BIN ?? 'nats-server', [...(jetStream ? ['-js', '-sd', storeDir] : []), '-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  await waitFor(accepts, 10000);
}

async function stopServer(): Promise<void> {
  const running = server;
  server = undefined;
  if (!running || running.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    running.once('exit', () => resolve());
    running.kill('SIGTERM');
  });
}

beforeAll(async () => {
  port = await freePort();
  await startServer(false);
});

afterAll(async () => {
  await bus?.close();
  await stopServer();
  rmSync(storeDir, { recursive: true, force: true });
});

test('a bus whose first JetStream ask failed asks again, and works once JetStream answers', async () => {
  bus = await Bus.connect({ natsUrl: `nats://127.0.0.1:${port}`, namespace: uniqueNamespace(), service: 'jetstream-later', log: silentLog });
  await expect(bus.jsm).rejects.toThrow();
  await expect(bus.jsm).rejects.toThrow(); // asked again, and refused again

  await stopServer();
  await startServer(true);
  const connected = bus;
  const info = await waitFor(async () => (await connected.jsm).getAccountInfo(), 20000, 200);
  expect(info.streams).toBe(0);
}, 40000);
