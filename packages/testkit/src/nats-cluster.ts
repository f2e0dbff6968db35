/**
 * A three-server NATS JetStream cluster on free ports (what the production overlay runs from the
 * NATS Helm chart, and deploy/compose/cluster.yml in containers), for the replica and failover tests.
 * The nats-server binary must be on PATH (or NATS_SERVER_BIN).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from './ports';
import { waitFor } from './wait';

export interface NatsCluster {
  urls: string[];
  /** Stops one server (SIGTERM) and waits for it to exit: a node lost. */
  stopNode(index: number): Promise<void>;
  /**
   * Freezes one server (SIGSTOP): its connections stay open but nothing answers on them, as when a
   * node's container or host vanishes without closing them. `resumeNode` (SIGCONT) undoes it.
   */
  pauseNode(index: number): void;
  resumeNode(index: number): void;
  /** Stops every server and removes the stores. */
  stop(): Promise<void>;
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
export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const allPorts = await freePorts(size * 2);
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
  const stopOne = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const stopAll = () => Promise.all(children.map(stopOne));
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
    stopNode: (index) => stopOne(children[index]),
    pauseNode: (index) => void children[index].kill('SIGSTOP'),
    resumeNode: (index) => void children[index].kill('SIGCONT'),
    async stop() {
      // a paused server would not act on SIGTERM
      for (const child of children) child.kill('SIGCONT');
      await stopAll();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
