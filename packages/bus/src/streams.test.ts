/**
 * Stream replicas on a real three-server NATS cluster with JetStream (what the production overlay
 * runs from the NATS Helm chart): the streams are R3 when asked, and a later start asking the
 * same keeps them R3 (each start updates every stream to its config).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, silentLog, uniqueNamespace, waitFor } from '@pasar/testkit';
import { Bus } from './bus';
import { ensureStreams } from './streams';

interface Cluster {
  urls: string[];
  stop(): Promise<void>;
}

/** Three `nats-server -js` routed into one cluster on free ports (the binary must be on PATH). */
async function startNatsCluster(size = 3): Promise<Cluster> {
  const ports = await Promise.all(Array.from({ length: size }, () => freePort()));
  const clusterPorts = await Promise.all(Array.from({ length: size }, () => freePort()));
  const routes = clusterPorts.map((port) => `nats://127.0.0.1:${port}`).join(',');
  const storeDir = mkdtempSync(join(tmpdir(), 'pasar-nats-cluster-'));
  const children: ChildProcess[] = ports.map((port, i) =>
    spawn(
      process.env.NATS_SERVER_BIN ?? 'nats-server',
      ['-a', '127.0.0.1', '-p', String(port), '-n', `r3-${i}`, '-js', '-sd', join(storeDir, String(i)), '--cluster_name', 'pasar_r3', '--cluster', `nats://127.0.0.1:${clusterPorts[i]}`, '--routes', routes],
      { stdio: 'ignore' },
    ),
  );
  return {
    urls: ports.map((port) => `nats://127.0.0.1:${port}`),
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

describe('ensureStreams replicas (R3 JetStream streams, docs/deploy.md)', () => {
  let cluster: Cluster;
  let bus: Bus;

  beforeAll(async () => {
    cluster = await startNatsCluster();
    bus = await waitFor(() => Bus.connect({ natsUrl: cluster.urls.join(','), namespace: uniqueNamespace(), service: 'streams-test', log: silentLog }), 20000, 200);
    // the cluster elects its JetStream meta leader after the routes are up
    await waitFor(async () => (await (await bus.jsm).getAccountInfo()).api !== undefined, 30000, 200);
  }, 60000);

  afterAll(async () => {
    await bus?.close();
    await cluster?.stop();
  });

  test('creates the streams with three replicas and keeps them at three when every start asks again', async () => {
    await waitFor(() => ensureStreams(bus, ['CHECKOUT', 'VENDOR'], { replicas: 3 }).then(() => true), 30000, 500);
    const jsm = await bus.jsm;
    for (const name of ['CHECKOUT', 'VENDOR'] as const) {
      const info = await jsm.streams.info(bus.naming.stream(name));
      expect({ name, replicas: info.config.num_replicas, peers: info.cluster?.replicas?.length }).toEqual({ name, replicas: 3, peers: 2 });
    }
    await ensureStreams(bus, ['CHECKOUT'], { replicas: 3 });
    expect((await jsm.streams.info(bus.naming.stream('CHECKOUT'))).config.num_replicas).toBe(3);
  });

  test('without the setting a stream has one replica, so NATS_STREAM_REPLICAS must be set on a cluster', async () => {
    await waitFor(() => ensureStreams(bus, ['ADMIN']).then(() => true), 30000, 500);
    const jsm = await bus.jsm;
    expect((await jsm.streams.info(bus.naming.stream('ADMIN'))).config.num_replicas).toBe(1);
  });
});
