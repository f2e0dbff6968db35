/**
 * Stream replicas on a real three-server NATS cluster with JetStream (what the production overlay
 * runs from the NATS Helm chart): the streams are R3 when asked, and a later start asking the
 * same keeps them R3 (each start updates every stream to its config).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect as netConnect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLog, uniqueNamespace, waitFor } from '@pasar/testkit';
import { Bus } from './bus';
import { ensureStreams } from './streams';

interface Cluster {
  urls: string[];
  stop(): Promise<void>;
}

/** `count` different ports that were free a moment ago (all held open together, then released). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      servers.push(server);
    }
    return servers.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Three `nats-server -js` routed into one cluster on free ports (the binary must be on PATH). */
async function startNatsCluster(size = 3): Promise<Cluster> {
  const allPorts = await distinctFreePorts(size * 2);
  const ports = allPorts.slice(0, size);
  const clusterPorts = allPorts.slice(size);
  const routes = clusterPorts.map((port) => `nats://127.0.0.1:${port}`).join(',');
  const storeDir = mkdtempSync(join(tmpdir(), 'pasar-nats-cluster-'));
  const children: ChildProcess[] = ports.map((port, i) =>
    spawn(
      process.env.NATS_SERVER_BIN ?? 'nats-server',
      ['-a', '127.0.0.1', '-p', String(port), '-n', `r3-${i}`, '-js', '-sd', join(storeDir, String(i)), '--cluster_name', 'pasar_r3', '--cluster', `nats://127.0.0.1:${clusterPorts[i]}`, '--routes', routes],
      { stdio: 'ignore' },
    ),
  );
  const stopAll = () =>
    Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  try {
    await waitFor(async () => {
      const exited = children.findIndex((child) => child.exitCode !== null);
      // e.g. its port was taken meanwhile: waitFor ends with this message
      if (exited !== -1) throw new Error(`nats-server r3-${exited} exited (code ${children[exited].exitCode})`);
      return (await Promise.all(ports.map(accepts))).every(Boolean);
    }, 30000, 100);
  } catch (error) {
    await stopAll();
    rmSync(storeDir, { recursive: true, force: true });
    throw error;
  }
  return {
    urls: ports.map((port) => `nats://127.0.0.1:${port}`),
    async stop() {
      await stopAll();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

describe('ensureStreams replicas (R3 JetStream streams, docs/deploy.md)', () => {
  let cluster: Cluster;
  let bus: Bus;

  beforeAll(async () => {
    cluster = await startNatsCluster();
    const namespace = uniqueNamespace();
    // the cluster answers JetStream once it has elected its meta leader; a bus connected before
    // keeps its failed JetStream manager, so connect until one answers
    bus = await waitFor(async () => {
      const candidate = await Bus.connect({ natsUrl: cluster.urls.join(','), namespace, service: 'streams-test', log: silentLog });
      try {
        await (await candidate.jsm).getAccountInfo();
        return candidate;
      } catch (error) {
        await candidate.close();
        throw error;
      }
    }, 60000, 500);
  }, 120000);

  afterAll(async () => {
    await bus?.close();
    await cluster?.stop();
  });

  test('creates the streams with three replicas and keeps them at three when every start asks again', async () => {
    await waitFor(() => ensureStreams(bus, ['CHECKOUT', 'VENDOR'], { replicas: 3 }).then(() => true), 60000, 500);
    const jsm = await bus.jsm;
    for (const name of ['CHECKOUT', 'VENDOR'] as const) {
      const info = await jsm.streams.info(bus.naming.stream(name));
      expect({ name, replicas: info.config.num_replicas, peers: info.cluster?.replicas?.length }).toEqual({ name, replicas: 3, peers: 2 });
    }
    await ensureStreams(bus, ['CHECKOUT'], { replicas: 3 });
    expect((await jsm.streams.info(bus.naming.stream('CHECKOUT'))).config.num_replicas).toBe(3);
  }, 90000);

  test('without the setting a stream has one replica, so NATS_STREAM_REPLICAS must be set on a cluster', async () => {
    await waitFor(() => ensureStreams(bus, ['ADMIN']).then(() => true), 60000, 500);
    const jsm = await bus.jsm;
    expect((await jsm.streams.info(bus.naming.stream('ADMIN'))).config.num_replicas).toBe(1);
  }, 90000);
});
