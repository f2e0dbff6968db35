/**
 * deploy/compose/cluster.yml on top of docker-compose.yml (docs/deploy.md "Cluster"): three NATS
 * nodes with the generated users and routes that authenticate, two instances of every service
 * each connecting as its service's NATS user. The nodes' flags, as the file writes them, are run
 * on a real nats-server (hosts and ports mapped to free local ones): the routes form with the
 * password and refuse a node without it, the services' users work across the cluster and an
 * anonymous client is refused. `npm run cluster:chaos` runs the file itself under load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Bus, ensureStreams } from '@pasar/bus';
import { BUS_SERVICES } from '@pasar/contracts';
import { freePorts, silentLog, waitFor } from '@pasar/testkit';
import { parse } from 'yaml';
import { writeNatsAuth } from './nats-auth';
import { SERVICES } from './services';

const ROOT = join(__dirname, '..', '..', '..');
const read = (relativePath: string) => readFileSync(join(ROOT, relativePath), 'utf8');

interface ComposeService {
  command?: string[];
  volumes?: string[];
  env_file?: string[];
  environment?: Record<string, string>;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
}

// Compose honours YAML merge keys (`<<: *anchor`); YAML 1.2 parsers need them switched on.
const base = parse(read('docker-compose.yml'), { merge: true }) as ComposeFile;
const clusterText = read('deploy/compose/cluster.yml');
const cluster = parse(clusterText, { merge: true }) as ComposeFile;

const NODES = ['nats', 'nats-2', 'nats-3'] as const;
/** The services that run two instances: all but the gateway. */
const INSTANCES = SERVICES.filter((s) => s.name !== 'gateway');
const CONFIG_MOUNT = '/etc/nats/nats-auth.conf';
const ROUTE_PASSWORD = /\$\{NATS_ROUTE_PASSWORD:\?[^}]*\.env[^}]*\}/;

function clusterService(name: string): ComposeService {
  const found = cluster.services[name];
  if (!found) throw new Error(`deploy/compose/cluster.yml has no service "${name}"`);
  return found;
}

/** The value after `flag` in a node's command. */
function flag(command: string[], name: string): string {
  const at = command.indexOf(name);
  if (at === -1 || at === command.length - 1) throw new Error(`the command has no ${name}: ${command.join(' ')}`);
  return command[at + 1];
}

/** A node's volumes as compose merges them: cluster.yml's over docker-compose.yml's, by target. */
function volumesOf(node: string): string[] {
  const byTarget = new Map<string, string>();
  for (const volume of [...(base.services[node]?.volumes ?? []), ...(clusterService(node).volumes ?? [])]) byTarget.set(volume.split(':')[1], volume);
  return [...byTarget.values()];
}

describe('cluster.yml NATS nodes', () => {
  test('three JetStream nodes with server names, routed to each other as the cluster "pasar"', () => {
    const names = NODES.map((node) => {
      const command = clusterService(node).command ?? [];
      expect(command).toEqual(expect.arrayContaining(['-js', '-sd', '/data', '-m', '8222']));
      expect(flag(command, '--cluster_name')).toBe('pasar');
      const routes = flag(command, '--routes').split(',').map((url) => new URL(url.replace(ROUTE_PASSWORD, 'pw')).host);
      expect(routes).toEqual(['nats:6222', 'nats-2:6222', 'nats-3:6222']);
      return flag(command, '-n');
    });
    expect(names).toEqual(['nats-1', 'nats-2', 'nats-3']);
  });

  test.each(NODES)('%s reads the users of `npm run nats:config` (.data/nats-users/nats-auth.conf, read-only)', (node) => {
    expect(flag(clusterService(node).command ?? [], '-c')).toBe(CONFIG_MOUNT);
    expect(volumesOf(node)).toContain(`./.data/nats-users/nats-auth.conf:${CONFIG_MOUNT}:ro`);
  });

  test.each(NODES)('%s asks routes for the user "route" and NATS_ROUTE_PASSWORD, and routes with them', (node) => {
    const command = clusterService(node).command ?? [];
    expect(flag(command, '--cluster')).toMatch(new RegExp(`^nats://route:${ROUTE_PASSWORD.source}@0\\.0\\.0\\.0:6222$`));
    for (const route of flag(command, '--routes').split(',')) expect(route).toMatch(new RegExp(`^nats://route:${ROUTE_PASSWORD.source}@nats(-2|-3)?:6222$`));
  });

  test('NATS_ROUTE_PASSWORD has no default: compose refuses to start naming .env, and .env.example lists it empty', () => {
    expect(clusterText).not.toMatch(/\$\{NATS_ROUTE_PASSWORD(:?-)/);
    expect([...clusterText.matchAll(/\$\{NATS_ROUTE_PASSWORD[^}]*\}/g)].every((m) => ROUTE_PASSWORD.test(m[0]))).toBe(true);
    expect(read('.env.example')).toMatch(/^NATS_ROUTE_PASSWORD=$/m);
  });
});

describe('cluster.yml service instances', () => {
  test.each(INSTANCES)('$name and $name-2 connect as the NATS user $name, to all three nodes, R3, schema $schema', ({ name, port, schema }) => {
    const seedFile = [`.data/nats-users/${name}.env`];
    expect(base.services[name].env_file).toEqual(seedFile);
    expect(clusterService(`${name}-2`).env_file).toEqual(seedFile);
    for (const instance of [name, `${name}-2`]) {
      const env = clusterService(instance).environment ?? {};
      expect(env.NATS_URL).toBe('nats://nats:4222,nats://nats-2:4222,nats://nats-3:4222');
      expect(env.NATS_STREAM_REPLICAS).toBe('3');
      expect(env.NATS_NKEY_SEED).toBeUndefined();
    }
    const second = clusterService(`${name}-2`).environment ?? {};
    expect(second.PORT).toBe(String(port));
    expect(new URL(second.DATABASE_URL.replace(/\$\{[^}]+\}/, 'secret')).searchParams.get('schema')).toBe(schema);
  });

  test('the gateway (one instance, its seed from docker-compose.yml) lists both instances of each upstream', () => {
    expect(base.services.gateway.env_file).toEqual(['.data/nats-users/gateway.env']);
    const env = clusterService('gateway').environment ?? {};
    for (const { name, port } of INSTANCES.filter((i) => i.name !== 'notifier')) {
      expect(env[`${name.toUpperCase()}_URL`]).toBe(`http://${name}:${port},http://${name}-2:${port}`);
    }
  });
});

describe("the nodes' flags on nats-server", () => {
  const password = 'route-test-password';
  let dir: string;
  let seeds: Record<string, string>;
  const nodes: { child: ChildProcess; client: number; monitor: number; log: () => string }[] = [];
  let routePorts: number[];

  /** Runs nats-server with `args`; its output is kept for the test to read. */
  function natsServer(args: string[]) {
    const child = spawn(process.env.NATS_SERVER_BIN ?? 'nats-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    return { child, log: () => output };
  }
  const stop = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const routez = async (monitor: number) => (await (await fetch(`http://127.0.0.1:${monitor}/routez`)).json()) as { num_routes: number };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pasar-cluster-auth-'));
    const auth = writeNatsAuth({ dir: join(dir, 'users'), users: BUS_SERVICES });
    seeds = auth.seeds;
    const ports = await freePorts(NODES.length * 3);
    routePorts = ports.slice(0, 3);
    const hostOf: Record<string, string> = { '0.0.0.0': '', nats: `127.0.0.1:${routePorts[0]}`, 'nats-2': `127.0.0.1:${routePorts[1]}`, 'nats-3': `127.0.0.1:${routePorts[2]}` };
    NODES.forEach((node, i) => {
      hostOf['0.0.0.0'] = `127.0.0.1:${routePorts[i]}`;
      // the file's command with the password from .env, the mounted config and the container's
      // addresses mapped to this machine
      const args = (clusterService(node).command ?? []).map((arg) =>
        arg
          .replace(new RegExp(ROUTE_PASSWORD.source, 'g'), password)
          .replace(CONFIG_MOUNT, auth.configFile)
          .replace(/@(0\.0\.0\.0|nats(?:-2|-3)?):6222/g, (_, host: string) => `@${hostOf[host]}`),
      );
      args[args.indexOf('-sd') + 1] = join(dir, node);
      args[args.indexOf('-m') + 1] = String(ports[6 + i]);
      nodes.push({ ...natsServer([...args, '-a', '127.0.0.1', '-p', String(ports[3 + i])]), client: ports[3 + i], monitor: ports[6 + i] });
    });
  }, 30000);

  afterAll(async () => {
    await Promise.all(nodes.map((node) => stop(node.child)));
    rmSync(dir, { recursive: true, force: true });
  });

  test('the three nodes route to each other with the password', async () => {
    for (const node of nodes) await waitFor(async () => (await routez(node.monitor).catch(() => ({ num_routes: 0 }))).num_routes === 2, 30000, 200);
  }, 40000);

  test('a service connects with its seed and creates an R3 stream across the cluster; an anonymous client is refused', async () => {
    const natsUrl = nodes.map((node) => `nats://127.0.0.1:${node.client}`).join(',');
    await expect(connect({ servers: `nats://127.0.0.1:${nodes[1].client}`, reconnect: false, timeout: 5000 })).rejects.toThrow(/Authorization Violation/i);
    const bus = await Bus.connect({ natsUrl, namespace: '', service: 'checkout', log: silentLog, auth: { nkeySeed: seeds.checkout } });
    try {
      // JetStream answers once the cluster has its meta leader
      await waitFor(async () => {
        try {
          await ensureStreams(bus, ['CHECKOUT'], { replicas: 3 });
          return true;
        } catch {
          return false;
        }
      }, 60000, 500);
      const info = await (await bus.jsm).streams.info('CHECKOUT');
      expect(info.config.num_replicas).toBe(3);
      expect([info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)].sort()).toEqual(['nats-1', 'nats-2', 'nats-3']);
    } finally {
      await bus.close();
    }
  }, 90000);

  test('a node that routes without the password is refused, and the cluster keeps its routes', async () => {
    const [client, route] = await freePorts(2);
    const rogue = natsServer(['-a', '127.0.0.1', '-p', String(client), '-n', 'rogue', '--cluster_name', 'pasar', '--cluster', `nats://127.0.0.1:${route}`, '--routes', `nats://127.0.0.1:${routePorts[0]}`]);
    try {
      await waitFor(() => rogue.log().includes('Authorization Violation'), 20000, 100);
      expect((await routez(nodes[0].monitor)).num_routes).toBe(2);
    } finally {
      await stop(rogue.child);
    }
  }, 30000);
});
