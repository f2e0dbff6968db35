/**
 * startStack against stand-in apps: a temp repository root whose apps/<name>/src/main.ts are tiny
 * HTTP servers (readyz, env echo), on the real local PostgreSQL and NATS.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createTestBus, freePort, uniqueNamespace } from '@pasar/testkit';
import type { LogEntry } from './logs';
import { portIsFree, probeNats, probePostgres } from './probes';
import { SERVICE_NAMES } from './services';
import { chooseUrl, instanceName, loadOrCreateIdentitySecret, resolvePorts, serviceEnvironment, StackStartError, startStack } from './stack';

const REPO = join(__dirname, '..', '..', '..');
const DATABASE_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.TEST_NATS_URL ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const SECRET = 'stack-test-secret-0123456789';

const FAKE_APP = `
import { createServer } from 'node:http';
if (process.env.FAIL_AT_START === '1') {
  console.error('cannot start: FAIL_AT_START');
  process.exit(3);
}
const server = createServer((req, res) => {
  if (req.url === '/readyz') {
    const ready = process.env.READY !== 'never';
    res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: ready ? 'ready' : 'not_ready' }));
  } else if (req.url === '/crash') {
    process.exit(7);
  } else if (req.url === '/env') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(process.env));
  } else {
    res.writeHead(404);
    res.end();
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log(JSON.stringify({ level: 30, msg: 'listening', port: Number(process.env.PORT) })));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'pasar-stack-'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  for (const name of SERVICE_NAMES) {
    mkdirSync(join(root, 'apps', name, 'src'), { recursive: true });
    writeFileSync(join(root, 'apps', name, 'src', 'main.ts'), FAKE_APP);
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const base = () => ({
  rootDir: root,
  dataDir: join(root, '.data'),
  databaseUrl: DATABASE_URL,
  natsUrl: NATS_URL,
  identitySecret: SECRET,
  startInfrastructure: false,
  ports: 'free' as const,
});

async function envOf(url: string): Promise<Record<string, string>> {
  const response = await fetch(`${url}/env`);
  return (await response.json()) as Record<string, string>;
}

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('pure parts', () => {
  it('prefers the option, then the environment, then the default', () => {
    expect(chooseUrl('a', 'b', 'c')).toEqual({ url: 'a', configured: true });
    expect(chooseUrl(undefined, 'b', 'c')).toEqual({ url: 'b', configured: true });
    expect(chooseUrl(undefined, '  ', 'c')).toEqual({ url: 'c', configured: false });
  });

  it('resolves fixed ports with overrides, or distinct free ones', async () => {
    expect(await resolvePorts(undefined)).toEqual({ gateway: 8080, checkout: 4001, b2b: 4002, vendor: 4003, admin: 4004, notifier: 4005 });
    expect((await resolvePorts({ checkout: 5001 })).checkout).toBe(5001);
    const free = await resolvePorts('free');
    expect(new Set(Object.values(free)).size).toBe(6);
  });

  it('gives the gateway the upstream URLs and the admin; checkout the payment mock outside production', () => {
    const input = {
      ports: { gateway: 1, checkout: 2, b2b: 3, vendor: 4, admin: 5, notifier: 6 },
      databaseUrl: 'postgresql://postgres@127.0.0.1:5432/postgres',
      natsUrl: 'nats://127.0.0.1:4222',
      namespace: 'ns1',
      identitySecret: SECRET,
      logLevel: 'warn',
      nodeEnv: 'development',
      admin: { email: 'a@b.test', password: 'pw-pw-pw-pw' },
    };
    expect(serviceEnvironment({ ...input, service: 'gateway', schema: 'x_identity' })).toEqual({
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: '1',
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/postgres?schema=x_identity',
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_NAMESPACE: 'ns1',
      IDENTITY_SECRET: SECRET,
      LOG_LEVEL: 'warn',
      MIGRATE_ON_START: 'true',
      MALLOC_TRIM_THRESHOLD_: '131072',
      CHECKOUT_URL: 'http://127.0.0.1:2',
      B2B_URL: 'http://127.0.0.1:3',
      VENDOR_URL: 'http://127.0.0.1:4',
      ADMIN_URL: 'http://127.0.0.1:5',
      NOTIFIER_URL: 'http://127.0.0.1:6',
      ADMIN_EMAIL: 'a@b.test',
      ADMIN_PASSWORD: 'pw-pw-pw-pw',
    });
    expect(serviceEnvironment({ ...input, service: 'checkout', schema: 'checkout' }).PAYMENT_MOCK).toBe('true');
    expect(serviceEnvironment({ ...input, service: 'checkout', schema: 'checkout', nodeEnv: 'production' }).PAYMENT_MOCK).toBeUndefined();
    expect(serviceEnvironment({ ...input, service: 'admin', schema: 'admin' }).CARRIER_MOCK).toBe('true');
    expect(serviceEnvironment({ ...input, service: 'admin', schema: 'admin', nodeEnv: 'production' }).CARRIER_MOCK).toBeUndefined();
    expect(serviceEnvironment({ ...input, service: 'b2b', schema: 'b2b' }).CHECKOUT_URL).toBeUndefined();
  });

  it('gives the gateway every instance of a service as a comma-separated list, and each instance its own port', () => {
    const input = {
      ports: { gateway: 1, checkout: 2, b2b: 3, vendor: 4, admin: 5, notifier: 6 },
      instancePorts: { checkout: [2, 102], b2b: [3, 103] },
      databaseUrl: 'postgresql://postgres@127.0.0.1:5432/postgres',
      natsUrl: 'nats://127.0.0.1:4222',
      namespace: '',
      identitySecret: SECRET,
      logLevel: 'warn',
      nodeEnv: 'development',
      admin: { email: 'a@b.test', password: 'pw-pw-pw-pw' },
    };
    expect(serviceEnvironment({ ...input, service: 'gateway', schema: 'identity' })).toMatchObject({
      CHECKOUT_URL: 'http://127.0.0.1:2,http://127.0.0.1:102',
      B2B_URL: 'http://127.0.0.1:3,http://127.0.0.1:103',
      VENDOR_URL: 'http://127.0.0.1:4',
    });
    expect(serviceEnvironment({ ...input, service: 'checkout', schema: 'checkout', port: 102 }).PORT).toBe('102');
    expect(instanceName('checkout', 1)).toBe('checkout');
    expect(instanceName('checkout', 2)).toBe('checkout-2');
  });

  it('generates the identity secret once and keeps it', () => {
    const dir = join(root, 'secret-test');
    const first = loadOrCreateIdentitySecret(dir);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(loadOrCreateIdentitySecret(dir)).toBe(first);
    expect(readFileSync(join(dir, 'identity-secret'), 'utf8').trim()).toBe(first);
    expect(statSync(join(dir, 'identity-secret')).mode & 0o777).toBe(0o600);
  });
});

describe('startStack', () => {
  it('starts the six with their env, restarts one, stops all, and drops the test data', async () => {
    const lines: LogEntry[] = [];
    const namespace = uniqueNamespace('st');
    const exits: string[] = [];
    const stack = await startStack({
      ...base(),
      namespace,
      schemaPrefix: namespace,
      sharedEnv: { SHARED_FLAG: 'yes' },
      env: { notifier: { SMTP_URL: 'smtp://127.0.0.1:2525' } },
      log: (entry) => lines.push(entry),
      onServiceExit: (service, description) => exits.push(`${service} ${description}`),
    });
    try {
      expect(stack.gatewayUrl).toBe(stack.services.gateway.url);
      expect(stack.schemas.gateway).toBe(`${namespace}_identity`);
      expect(stack.databaseUrl).toBe(DATABASE_URL);

      const gatewayEnv = await envOf(stack.gatewayUrl);
      expect(gatewayEnv).toMatchObject({
        PORT: String(stack.services.gateway.port),
        DATABASE_URL: `${DATABASE_URL}?schema=${namespace}_identity`,
        NATS_URL: NATS_URL,
        NATS_NAMESPACE: namespace,
        IDENTITY_SECRET: SECRET,
        CHECKOUT_URL: stack.services.checkout.url,
        NOTIFIER_URL: stack.services.notifier.url,
        ADMIN_EMAIL: 'admin@pasar.local',
        SHARED_FLAG: 'yes',
      });
      const notifierEnv = await envOf(stack.services.notifier.url);
      expect(notifierEnv).toMatchObject({ SMTP_URL: 'smtp://127.0.0.1:2525', DATABASE_URL: `${DATABASE_URL}?schema=${namespace}_notifier` });
      expect((await envOf(stack.services.checkout.url)).SMTP_URL).toBeUndefined();

      expect(new Set(lines.filter((l) => l.line.includes('listening')).map((l) => l.source))).toEqual(new Set(SERVICE_NAMES));
      expect(stack.services.vendor.recentLines().some((l) => l.includes('listening'))).toBe(true);

      // stop one, start it again
      await stack.services.checkout.stop();
      expect(stack.services.checkout.running).toBe(false);
      await expect(fetch(`${stack.services.checkout.url}/readyz`)).rejects.toThrow();
      await stack.services.checkout.start();
      expect((await fetch(`${stack.services.checkout.url}/readyz`)).status).toBe(200);
      expect(exits).toEqual([]);

      // a crash (not a stop) is reported
      await fetch(`${stack.services.admin.url}/crash`).catch(() => undefined);
      await waitUntil(() => exits.length > 0);
      expect(exits).toEqual(['admin exited with code 7']);
      expect(stack.services.admin.running).toBe(false);
    } finally {
      // data to drop: the prefixed schemas and the namespace's streams
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${namespace}_checkout"`);
      const testBus = await createTestBus('probe', namespace, NATS_URL);
      await stack.stop({ dropData: true });
      const { rows } = await client.query('SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE $1', [`${namespace}_%`]);
      await client.end();
      expect(rows).toEqual([]);
      const jsm = await testBus.bus.jsm;
      await expect(jsm.streams.info(testBus.bus.naming.stream('IDENTITY'))).rejects.toThrow(/not found/i);
      await testBus.bus.close();
    }
    for (const name of SERVICE_NAMES) expect(await portIsFree(stack.services[name].port)).toBe(true);
  }, 60_000);
});

describe('startStack with replicas', () => {
  it('starts two instances of every service but the gateway, each on its own port, all listed to the gateway', async () => {
    const namespace = uniqueNamespace('sr');
    const sources = new Set<string>();
    const stack = await startStack({ ...base(), namespace, schemaPrefix: namespace, replicas: 2, log: (entry) => sources.add(entry.source) });
    try {
      expect(stack.replicas).toBe(2);
      expect(stack.instances.gateway).toHaveLength(1);
      const ports = new Set<number>();
      for (const name of SERVICE_NAMES.filter((n) => n !== 'gateway')) {
        const [first, second] = stack.instances[name];
        expect(stack.instances[name]).toHaveLength(2);
        expect(stack.services[name]).toBe(first);
        expect([first.instance, second.instance]).toEqual([1, 2]);
        expect((await envOf(second.url)).PORT).toBe(String(second.port));
        expect((await envOf(second.url)).DATABASE_URL).toBe(first.databaseUrl);
        ports.add(first.port).add(second.port);
        expect(sources).toContain(`${name}-2`);
      }
      expect(ports.size).toBe(10);
      const gatewayEnv = await envOf(stack.gatewayUrl);
      expect(gatewayEnv.CHECKOUT_URL).toBe(`${stack.instances.checkout[0].url},${stack.instances.checkout[1].url}`);
      expect(gatewayEnv.ADMIN_URL.split(',')).toHaveLength(2);

      // one instance stops and starts again on its own port; the other keeps running
      await stack.instances.vendor[1].stop();
      expect(stack.instances.vendor[0].running).toBe(true);
      await stack.instances.vendor[1].start();
      expect((await fetch(`${stack.instances.vendor[1].url}/readyz`)).status).toBe(200);
    } finally {
      await stack.stop({ dropData: true });
    }
    for (const name of SERVICE_NAMES) for (const instance of stack.instances[name]) expect(await portIsFree(instance.port)).toBe(true);
  }, 60_000);

  it('refuses a replica count outside 1..8', async () => {
    await expect(startStack({ ...base(), replicas: 0 })).rejects.toThrow(/replicas must be a whole number from 1 to 8/);
    await expect(startStack({ ...base(), replicas: 9 })).rejects.toThrow(StackStartError);
  });
});

describe('startStack when the local defaults do not answer', () => {
  it('starts PostgreSQL (system initdb/pg_ctl) and nats-server itself, and stops them with the stack', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pasar-stack-data-'));
    chmodSync(dataDir, 0o755); // the postgres OS user must reach dataDir/pg when we are root
    const closedPg = await freePort();
    const closedNats = await freePort();
    const lines: LogEntry[] = [];
    try {
      const stack = await startStack({
        ...base(),
        databaseUrl: undefined,
        natsUrl: undefined,
        baseEnv: { PATH: process.env.PATH },
        defaults: { databaseUrl: `postgresql://postgres@127.0.0.1:${closedPg}/postgres`, natsUrl: `nats://127.0.0.1:${closedNats}` },
        startInfrastructure: true,
        dataDir,
        log: (entry) => lines.push(entry),
      });
      try {
        expect(stack.infrastructure).toEqual({ postgres: 'started-system', nats: 'started' });
        expect(stack.databaseUrl).not.toContain(`:${closedPg}/`);
        expect(await probePostgres(stack.databaseUrl)).toEqual({ ok: true });
        expect(await probeNats(stack.natsUrl)).toEqual({ ok: true });
        expect((await envOf(stack.services.checkout.url)).DATABASE_URL).toBe(`${stack.databaseUrl}?schema=checkout`);
        expect(lines.some((l) => l.source === 'stack' && l.line.startsWith(`no PostgreSQL at postgresql://postgres@127.0.0.1:${closedPg}/postgres`))).toBe(true);
        expect(lines.some((l) => l.source === 'postgres')).toBe(true);
      } finally {
        await stack.stop();
      }
      expect((await probePostgres(stack.databaseUrl, 1000)).ok).toBe(false);
      expect((await probeNats(stack.natsUrl, 500)).ok).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('startStack failures', () => {
  it('names the service that exits during start-up, shows its last lines, stops the others and drops their data', async () => {
    const ports = await resolvePorts('free');
    // what a service may have migrated before the failure is dropped on request
    const prefix = uniqueNamespace('sf');
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`CREATE SCHEMA "${prefix}_checkout"`);
    const error = await startStack({ ...base(), ports, schemaPrefix: prefix, dropDataOnFailure: true, env: { b2b: { FAIL_AT_START: '1' } } }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(StackStartError);
    const failure = error as StackStartError;
    expect(failure.service).toBe('b2b');
    expect(failure.message).toMatch(/^b2b exited with code 3 before it was ready/);
    expect(failure.recentLines).toContain('cannot start: FAIL_AT_START');
    for (const name of SERVICE_NAMES) expect(await portIsFree(ports[name])).toBe(true);
    const { rows } = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [`${prefix}_checkout`]);
    await client.end();
    expect(rows).toEqual([]);
  }, 60_000);

  it('times out naming the service whose /readyz never answers 200', async () => {
    // long enough for the other (healthy) stand-ins to start under a loaded machine's tsx (one
    // started after 3 s in a full npm test run, and the stack named it instead of vendor)
    const error = await startStack({ ...base(), readyTimeoutMs: 15_000, env: { vendor: { READY: 'never' } } }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(StackStartError);
    expect((error as StackStartError).service).toBe('vendor');
    expect((error as StackStartError).message).toMatch(/vendor was not ready at http:\/\/127\.0\.0\.1:\d+\/readyz in time \(\/readyz answered 503/);
  }, 60_000);

  it('refuses a configured database or NATS that does not answer, a missing app, a taken port', async () => {
    const closed = await freePort();
    await expect(startStack({ ...base(), databaseUrl: `postgresql://postgres@127.0.0.1:${closed}/postgres` })).rejects.toThrow(
      `PostgreSQL at postgresql://postgres@127.0.0.1:${closed}/postgres does not answer`,
    );
    await expect(startStack({ ...base(), natsUrl: `nats://127.0.0.1:${closed}` })).rejects.toThrow(`NATS at nats://127.0.0.1:${closed} does not answer`);
    await expect(startStack({ ...base(), rootDir: join(root, 'apps') })).rejects.toThrow('apps/gateway/src/main.ts does not exist');

    const holder = (await import('node:net')).createServer();
    const taken = await freePort();
    await new Promise<void>((resolve) => holder.listen(taken, '127.0.0.1', () => resolve()));
    try {
      // the other ports are free ones: a stack running on 8080/4001-4005 must not change the answer
      const ports = { ...(await resolvePorts('free')), checkout: taken };
      await expect(startStack({ ...base(), ports })).rejects.toThrow(`port ${taken} for checkout is already in use`);
    } finally {
      holder.close();
    }
  }, 60_000);
});
