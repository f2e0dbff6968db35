import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createTestBus, freePort } from '@pasar/testkit';
import { silentSink, type LogSink } from './logs';
import { BUS_SERVICES } from '@pasar/contracts';
import { startNatsServer, type LocalNats } from './nats';
import { writeNatsAuth } from './nats-auth';
import { startLocalPostgres, type LocalPostgres } from './postgres';
import { portIsFree, probeNats, probePostgres, sleep } from './probes';
import { describeExit, ManagedProcess } from './process';
import {
  baseDatabaseUrl,
  databaseUrlForSchema,
  DEFAULT_PORTS,
  redactUrl,
  schemasFor,
  SERVICE_NAMES,
  serviceUrl,
  UPSTREAM_URL_VARS,
  type ServiceName,
} from './services';
import {
  DEFAULT_ADMIN_EMAIL,
  DEFAULT_ADMIN_PASSWORD,
  DEFAULT_DATABASE_URL,
  DEFAULT_NATS_URL,
  DEFAULT_READY_TIMEOUT_MS,
  MAX_STACK_REPLICAS,
  repositoryRoot,
  type Env,
} from './settings';

export interface StackOptions {
  /** Fixed ports (defaults 8080, 4001-4005, each overridable) or `'free'` for free ports everywhere. */
  ports?: 'free' | Partial<Record<ServiceName, number>>;
  /**
   * Instances of each domain service (checkout, b2b, vendor, admin, notifier; default 1, at most
   * MAX_REPLICAS). The first keeps its port; the others take free ports; the gateway (one) gets
   * every instance's URL.
   */
  replicas?: number;
  /** The shared database (any `?schema=` is replaced per service). Default: env DATABASE_URL, else the local default. */
  databaseUrl?: string;
  /** Default: env NATS_URL, else nats://127.0.0.1:4222. */
  natsUrl?: string;
  /** NATS_NAMESPACE of every service ('' = DESIGN's plain subjects). */
  namespace?: string;
  /** Schemas become `<prefix>_identity`, `<prefix>_checkout`, ... ('' = plain names). */
  schemaPrefix?: string;
  /** Default: env IDENTITY_SECRET, else generated once into `<dataDir>/identity-secret`. */
  identitySecret?: string;
  /** Variables for every service (applied after the computed ones). */
  sharedEnv?: Record<string, string>;
  /** Variables per service (applied last), e.g. `{ notifier: { SMTP_URL } }`. */
  env?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Where output lines go; default: nowhere (the last `keepLines` per service are still kept). */
  log?: LogSink;
  keepLines?: number;
  /** How long every service may take to answer /readyz 200. */
  readyTimeoutMs?: number;
  /** Where a started PostgreSQL (`pg/`), NATS (`nats/`) and the identity secret live. Default `<root>/.data`. */
  dataDir?: string;
  /**
   * Start a nats-server of its own on a free port even when one answers (its store under
   * `<dataDir>/nats-<namespace>`, removed by stop with dropData). Like any nats-server the
   * launcher starts, it runs with the generated users and permissions (writeNatsAuth);
   * `superuser` adds a user with every permission (a test that publishes as any service).
   */
  ownNats?: { superuser?: string };
  /** Start PostgreSQL/NATS when the local defaults do not answer (default true). Configured URLs are never replaced. */
  startInfrastructure?: boolean;
  /** The local defaults tried when nothing is configured (default 127.0.0.1:5432 and :4222). */
  defaults?: { databaseUrl?: string; natsUrl?: string };
  /** Environment the services inherit and the defaults are read from (default process.env). */
  baseEnv?: Env;
  /** Whether the services inherit `baseEnv` (default true). */
  inheritEnv?: boolean;
  /** Services' LOG_LEVEL (default env LOG_LEVEL, else info). */
  logLevel?: string;
  /** The seeded administrator (default env ADMIN_EMAIL/ADMIN_PASSWORD, else admin@pasar.local / pasar-admin-2026). */
  admin?: { email: string; password: string };
  /** Repository root (default: found from this file). */
  rootDir?: string;
  /** When start-up fails, drop the prefixed schemas and the namespace's streams it may have made (tests). */
  dropDataOnFailure?: boolean;
  /** Called when a service ends without stop() having been called (a crash), after start-up. */
  onServiceExit?: (service: ServiceName, description: string) => void;
}

export interface StackService {
  name: ServiceName;
  /** 1 for the first instance of the service, 2 for the second, ... */
  instance: number;
  url: string;
  port: number;
  schema: string;
  databaseUrl: string;
  readonly running: boolean;
  /** The process id while it runs (its own process group: `process.kill(-pid, 'SIGKILL')` kills it abruptly). */
  readonly pid: number | undefined;
  /** SIGTERM, wait, SIGKILL. */
  stop(): Promise<void>;
  /**
   * Starts it again with the same port and env; resolves when /readyz answers 200. `envChanges`
   * set (a string) or remove (undefined) variables for this start and every later one.
   */
  start(envChanges?: Record<string, string | undefined>): Promise<void>;
  /** The last output lines (kept even when the log sink is silent). */
  recentLines(): string[];
  /** Its warnings and errors since the stack started (isNotableLine), however many lines came after them. */
  notableLines(): string[];
  /** One variable of the environment it starts with next (undefined when unset). */
  variable(name: string): string | undefined;
}

export type PostgresSource = 'configured' | 'local' | 'started-system' | 'started-embedded';
export type NatsSource = 'configured' | 'local' | 'started';

export interface StopOptions {
  /** Drop the prefixed schemas and delete the namespace's streams (refused for the plain names). */
  dropData?: boolean;
}

export interface Stack {
  gatewayUrl: string;
  /** The first instance of each service. */
  services: Record<ServiceName, StackService>;
  /** Every instance of each service (the gateway has one). */
  instances: Record<ServiceName, StackService[]>;
  replicas: number;
  /** The shared database, without `?schema=`. */
  databaseUrl: string;
  natsUrl: string;
  /**
   * NKey seeds per NATS user (each service, `stack`, a superuser) when the launcher started the
   * nats-server with users; empty on a NATS it found (development, no auth).
   */
  natsSeeds: Record<string, string>;
  namespace: string;
  schemaPrefix: string;
  schemas: Record<ServiceName, string>;
  identitySecret: string;
  admin: { email: string; password: string };
  infrastructure: { postgres: PostgresSource; nats: NatsSource };
  /** Stops the services (gateway first), then what the launcher itself started. */
  stop(options?: StopOptions): Promise<void>;
}

/** A start-up failure that names the service and carries its last output lines. */
export class StackStartError extends Error {
  override readonly name = 'StackStartError';
  constructor(
    message: string,
    readonly service?: string,
    readonly recentLines: string[] = [],
  ) {
    super(recentLines.length ? `${message}\n--- last lines of ${service} ---\n${recentLines.join('\n')}` : message);
  }
}

/** Which URL to use: the option, else the environment (both "configured"), else the local default. */
export function chooseUrl(option: string | undefined, fromEnv: string | undefined, fallback: string): { url: string; configured: boolean } {
  const configured = option ?? (fromEnv?.trim() ? fromEnv.trim() : undefined);
  return configured ? { url: configured, configured: true } : { url: fallback, configured: false };
}

/** Ports per service: `'free'` asks the OS for each; otherwise the defaults with overrides. */
export async function resolvePorts(ports: StackOptions['ports']): Promise<Record<ServiceName, number>> {
  if (ports === 'free') {
    const result = {} as Record<ServiceName, number>;
    const taken = new Set<number>();
    for (const name of SERVICE_NAMES) {
      let port = await freePort();
      while (taken.has(port)) port = await freePort();
      taken.add(port);
      result[name] = port;
    }
    return result;
  }
  return { ...DEFAULT_PORTS, ...(ports ?? {}) };
}

/** The most instances per service the launcher starts. */
export const MAX_REPLICAS = MAX_STACK_REPLICAS;

/**
 * node's flags for every service process, as the images' CMD has them: WebAssembly (Prisma's
 * query compiler) stays on V8's baseline compiler. Optimising it took 30-50 MiB of resident memory
 * per service for code that runs only when a query shape is first seen (Prisma keeps a plan cache).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--liftoff-only'];

/** The services that run `replicas` times; the gateway runs once in front of them. */
export const REPLICATED_SERVICES: readonly ServiceName[] = SERVICE_NAMES.filter((name) => name !== 'gateway');

/** The log and process name of an instance: `checkout` for the first, `checkout-2` for the second, ... */
export function instanceName(service: ServiceName, instance: number): string {
  return instance === 1 ? service : `${service}-${instance}`;
}

/** Every variable one service gets (DESIGN §8 contract), before the caller's overrides. */
export function serviceEnvironment(input: {
  service: ServiceName;
  ports: Record<ServiceName, number>;
  /** This instance's port when it is not the first (default `ports[service]`). */
  port?: number;
  /** Every instance's port per service (the gateway's upstream lists); default: `ports` alone. */
  instancePorts?: Partial<Record<ServiceName, readonly number[]>>;
  databaseUrl: string;
  schema: string;
  natsUrl: string;
  /** The service's NATS_NKEY_SEED on a nats-server with users. */
  natsSeed?: string;
  namespace: string;
  identitySecret: string;
  logLevel: string;
  nodeEnv: string;
  admin: { email: string; password: string };
}): Record<string, string> {
  const env: Record<string, string> = {
    NODE_ENV: input.nodeEnv,
    // the URLs the launcher hands out are on 127.0.0.1 (an inherited HOST must not move a service)
    HOST: '127.0.0.1',
    PORT: String(input.port ?? input.ports[input.service]),
    DATABASE_URL: databaseUrlForSchema(input.databaseUrl, input.schema),
    NATS_URL: input.natsUrl,
    NATS_NAMESPACE: input.namespace,
    ...(input.natsSeed ? { NATS_NKEY_SEED: input.natsSeed } : {}),
    IDENTITY_SECRET: input.identitySecret,
    LOG_LEVEL: input.logLevel,
    MIGRATE_ON_START: 'true',
    // glibc hands freed memory back past 128 KiB instead of keeping it in per-thread arenas (as the images do)
    MALLOC_TRIM_THRESHOLD_: '131072',
  };
  if (input.service === 'gateway') {
    for (const [upstream, variable] of Object.entries(UPSTREAM_URL_VARS)) {
      const ports = input.instancePorts?.[upstream as ServiceName] ?? [input.ports[upstream as ServiceName]];
      env[variable] = ports.map((port) => serviceUrl(port)).join(',');
    }
    env.ADMIN_EMAIL = input.admin.email;
    env.ADMIN_PASSWORD = input.admin.password;
  }
  if (input.service === 'checkout' && input.nodeEnv !== 'production') env.PAYMENT_MOCK = 'true';
  // no carrier runs locally: bookings get a made-up tracking number and label (admin honours it outside production only)
  if (input.service === 'admin' && input.nodeEnv !== 'production') env.CARRIER_MOCK = 'true';
  return env;
}

/** The secret from `<dataDir>/identity-secret`, generated the first time. */
export function loadOrCreateIdentitySecret(dataDir: string): string {
  const file = join(dataDir, 'identity-secret');
  if (existsSync(file)) {
    const secret = readFileSync(file, 'utf8').trim();
    if (secret.length >= 16) return secret;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * Polls `url`/readyz (the gateway: /healthz, its /readyz being on the internal port) until it
 * answers 200; fails at once when the process ends first, or at `deadline`, with its last lines.
 */
export async function waitUntilReady(process: ManagedProcess, url: string, deadline: number): Promise<void> {
  let exit: string | undefined;
  const unsubscribe = process.onExit((e) => (exit = describeExit(e)));
  try {
    let last = 'no answer yet';
    for (;;) {
      if (exit || !process.running) {
        throw new StackStartError(`${process.name} ${exit ?? 'is not running'} before it was ready`, process.name, process.lines.snapshot().slice(-40));
      }
      try {
        const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
        const body = await response.text();
        if (response.status === 200) return;
        // the gateway keeps /readyz off its public port (METRICS_PORT); it listens only once ready, so /healthz tells
        if (response.status === 404 && (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).status === 200) return;
        last = `/readyz answered ${response.status} ${body.slice(0, 300)}`;
      } catch (err) {
        last = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      }
      if (Date.now() > deadline) {
        throw new StackStartError(`${process.name} was not ready at ${url}/readyz in time (${last})`, process.name, process.lines.snapshot().slice(-40));
      }
      await sleep(250);
    }
  } finally {
    unsubscribe();
  }
}

/** Drops the given schemas (CASCADE). */
export async function dropSchemas(databaseUrl: string, schemas: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: baseDatabaseUrl(databaseUrl) });
  await client.connect();
  try {
    for (const schema of schemas) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`bad schema name ${schema}`);
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  } finally {
    await client.end();
  }
}

/** Deletes the JetStream streams of a namespace (never the plain names). */
export async function deleteStreams(natsUrl: string, namespace: string): Promise<void> {
  if (!namespace) throw new Error('refusing to delete the streams of the empty namespace');
  // the client would wait for a server forever; do not start when none answers
  const probe = await probeNats(natsUrl);
  if (!probe.ok) throw new Error(`NATS at ${redactUrl(natsUrl)} does not answer: ${probe.error}`);
  const testBus = await createTestBus('stack', namespace, natsUrl);
  await testBus.close();
}

/**
 * Starts the whole stack: PostgreSQL and NATS (found or started), then the six services as child
 * processes (tsx), and resolves once every /readyz answers 200. On failure everything it started
 * is stopped again and a StackStartError names the service.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const baseEnv = options.baseEnv ?? process.env;
  const sink = options.log ?? silentSink;
  const say = (source: string, line: string) => sink({ source, line, stream: 'stdout' });
  const rootDir = options.rootDir ?? repositoryRoot();
  const dataDir = options.dataDir ?? join(rootDir, '.data');
  const startInfrastructure = options.startInfrastructure ?? true;
  const namespace = options.namespace ?? '';
  const schemaPrefix = options.schemaPrefix ?? '';
  const schemas = schemasFor(schemaPrefix);
  const readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const replicas = options.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > MAX_REPLICAS) {
    throw new StackStartError(`replicas must be a whole number from 1 to ${MAX_REPLICAS}, got ${replicas}`);
  }

  for (const name of SERVICE_NAMES) {
    const entry = join(rootDir, 'apps', name, 'src', 'main.ts');
    if (!existsSync(entry)) throw new StackStartError(`apps/${name}/src/main.ts does not exist`, name);
  }

  let usedDatabaseUrl: string | undefined;
  let usedNatsUrl: string | undefined;
  let startedPostgres: LocalPostgres | undefined;
  let startedNats: LocalNats | undefined;
  /** Every instance's process, by instance name (`checkout`, `checkout-2`, ...). */
  const processes = new Map<string, ManagedProcess>();
  const stopInfrastructure = async () => {
    await startedNats?.stop().catch((err: unknown) => say('stack', `nats-server stop failed: ${String(err)}`));
    await startedPostgres?.stop().catch((err: unknown) => say('stack', `PostgreSQL stop failed: ${String(err)}`));
  };
  const stopServices = async () => {
    await processes.get('gateway')?.stop();
    await Promise.all([...processes.values()].map((p) => p.stop()));
  };

  try {
    // PostgreSQL
    const db = chooseUrl(options.databaseUrl, baseEnv.DATABASE_URL, options.defaults?.databaseUrl ?? DEFAULT_DATABASE_URL);
    let databaseUrl = baseDatabaseUrl(db.url);
    let postgresSource: PostgresSource = db.configured ? 'configured' : 'local';
    const dbProbe = await probePostgres(databaseUrl);
    if (!dbProbe.ok) {
      if (db.configured) throw new StackStartError(`PostgreSQL at ${redactUrl(databaseUrl)} does not answer: ${dbProbe.error}`);
      if (!startInfrastructure) throw new StackStartError(`no PostgreSQL answers at ${databaseUrl} (${dbProbe.error})`);
      say('stack', `no PostgreSQL at ${databaseUrl} (${dbProbe.error}); starting one with data in ${join(dataDir, 'pg')}`);
      startedPostgres = await startLocalPostgres({ dataDir: join(dataDir, 'pg'), log: (line) => say('postgres', line) });
      databaseUrl = startedPostgres.url;
      postgresSource = startedPostgres.kind === 'system' ? 'started-system' : 'started-embedded';
    }

    // NATS
    const bus = chooseUrl(options.natsUrl, baseEnv.NATS_URL, options.defaults?.natsUrl ?? DEFAULT_NATS_URL);
    let natsUrl = bus.url;
    let natsSource: NatsSource = bus.configured ? 'configured' : 'local';
    let natsSeeds: Record<string, string> = {};
    // a nats-server the launcher starts has one user per service with the contracts' permissions
    const startOwnNats = async (storeDir: string, port?: number) => {
      const auth = writeNatsAuth({
        dir: join(dataDir, 'nats-auth'),
        namespace,
        users: [...BUS_SERVICES, 'stack'],
        superusers: options.ownNats?.superuser ? [options.ownNats.superuser] : [],
      });
      natsSeeds = auth.seeds;
      return startNatsServer({ storeDir, port, configFile: auth.configFile, log: (line) => say('nats', line) });
    };
    if (options.ownNats) {
      const storeDir = join(dataDir, `nats-${namespace || 'plain'}`);
      startedNats = await startOwnNats(storeDir, await freePort());
      say('stack', `started nats-server with users on ${startedNats.url}, JetStream data in ${storeDir}`);
      natsUrl = startedNats.url;
      natsSource = 'started';
    } else {
      const natsProbe = await probeNats(natsUrl);
      if (!natsProbe.ok) {
        if (bus.configured) throw new StackStartError(`NATS at ${redactUrl(natsUrl)} does not answer: ${natsProbe.error}`);
        if (!startInfrastructure) throw new StackStartError(`no NATS answers at ${natsUrl} (${natsProbe.error})`);
        say('stack', `no NATS at ${natsUrl} (${natsProbe.error}); starting nats-server with users and JetStream data in ${join(dataDir, 'nats')}`);
        startedNats = await startOwnNats(join(dataDir, 'nats'));
        natsUrl = startedNats.url;
        natsSource = 'started';
      }
    }

    usedDatabaseUrl = databaseUrl;
    usedNatsUrl = natsUrl;
    const identitySecret = options.identitySecret ?? (baseEnv.IDENTITY_SECRET?.trim() || loadOrCreateIdentitySecret(dataDir));
    if (identitySecret.length < 16) throw new StackStartError('IDENTITY_SECRET must be at least 16 characters');
    const admin = options.admin ?? {
      email: baseEnv.ADMIN_EMAIL?.trim() || DEFAULT_ADMIN_EMAIL,
      password: baseEnv.ADMIN_PASSWORD?.trim() || DEFAULT_ADMIN_PASSWORD,
    };

    const ports = await resolvePorts(options.ports);
    if (options.ports !== 'free') {
      for (const name of SERVICE_NAMES) {
        if (!(await portIsFree(ports[name]))) {
          throw new StackStartError(`port ${ports[name]} for ${name} is already in use; stop what holds it, or start with --free-ports or --port-base <port>`, name);
        }
      }
    }

    // the first instance keeps the service's port; the others take free ports
    const instancePorts = Object.fromEntries(SERVICE_NAMES.map((name) => [name, [ports[name]]])) as Record<ServiceName, number[]>;
    const taken = new Set<number>(Object.values(ports));
    for (const name of REPLICATED_SERVICES) {
      for (let instance = 2; instance <= replicas; instance += 1) {
        let port = await freePort();
        while (taken.has(port)) port = await freePort();
        taken.add(port);
        instancePorts[name].push(port);
      }
    }
    const inherited: NodeJS.ProcessEnv = options.inheritEnv === false ? { PATH: baseEnv.PATH } : { ...baseEnv };
    const nodeEnv = baseEnv.NODE_ENV?.trim() || 'development';
    const logLevel = options.logLevel ?? (baseEnv.LOG_LEVEL?.trim() || 'info');
    const keepLines = options.keepLines ?? 200;
    const all = SERVICE_NAMES.flatMap((name) => instancePorts[name].map((port, index) => ({ name, instance: index + 1, port })));
    for (const { name, instance, port } of all) {
      const env = {
        ...inherited,
        ...serviceEnvironment({
          service: name,
          ports,
          port,
          instancePorts,
          databaseUrl,
          schema: schemas[name],
          natsUrl,
          natsSeed: natsSeeds[name],
          namespace,
          identitySecret,
          logLevel,
          nodeEnv,
          admin,
        }),
        ...(options.sharedEnv ?? {}),
        ...(options.env?.[name] ?? {}),
      };
      processes.set(
        instanceName(name, instance),
        new ManagedProcess({
          name: instanceName(name, instance),
          command: process.execPath,
          args: [...SERVICE_NODE_FLAGS, '--import', 'tsx', join('apps', name, 'src', 'main.ts')],
          cwd: rootDir,
          env,
          sink,
          keepLines,
        }),
      );
    }

    const processOf = (name: string): ManagedProcess => {
      const found = processes.get(name);
      if (!found) throw new Error(`no process for ${name}`);
      return found;
    };
    const startOne = async (name: ServiceName, instance: number, port: number, envChanges?: Record<string, string | undefined>) => {
      const managed = processOf(instanceName(name, instance));
      managed.start(envChanges);
      await waitUntilReady(managed, serviceUrl(port), Date.now() + readyTimeoutMs);
    };

    say('stack', `starting ${SERVICE_NAMES.join(', ')}${replicas > 1 ? ` (${replicas} instances of each but the gateway)` : ''}`);
    // fails fast: the first service that exits or times out stops the start-up
    await Promise.all(all.map(({ name, instance, port }) => startOne(name, instance, port)));
    for (const { name, instance } of all) {
      processOf(instanceName(name, instance)).onExit((exit) => {
        if (!exit.requested) options.onServiceExit?.(name, `${instance > 1 ? `(instance ${instance}) ` : ''}${describeExit(exit)}`);
      });
    }

    const stackService = (name: ServiceName, instance: number, port: number): StackService => {
      const managed = processOf(instanceName(name, instance));
      return {
        name,
        instance,
        url: serviceUrl(port),
        port,
        schema: schemas[name],
        databaseUrl: databaseUrlForSchema(databaseUrl, schemas[name]),
        get running() {
          return managed.running;
        },
        get pid() {
          return managed.pid;
        },
        stop: () => managed.stop(),
        start: (envChanges) => startOne(name, instance, port, envChanges),
        recentLines: () => managed.lines.snapshot(),
        notableLines: () => managed.notableLines.snapshot(),
        variable: (variableName) => managed.variable(variableName),
      };
    };
    const instances = Object.fromEntries(
      SERVICE_NAMES.map((name) => [name, instancePorts[name].map((port, index) => stackService(name, index + 1, port))]),
    ) as Record<ServiceName, StackService[]>;
    const services = Object.fromEntries(SERVICE_NAMES.map((name) => [name, instances[name][0]])) as Record<ServiceName, StackService>;

    let stopping: Promise<void> | undefined;
    return {
      gatewayUrl: services.gateway.url,
      services,
      instances,
      replicas,
      databaseUrl,
      natsUrl,
      natsSeeds,
      namespace,
      schemaPrefix,
      schemas,
      identitySecret,
      admin,
      infrastructure: { postgres: postgresSource, nats: natsSource },
      stop(stopOptions: StopOptions = {}) {
        stopping ??= (async () => {
          say('stack', 'stopping the services');
          await stopServices();
          if (stopOptions.dropData) {
            if (schemaPrefix) {
              await dropSchemas(databaseUrl, Object.values(schemas)).catch((err: unknown) => say('stack', `dropping schemas failed: ${String(err)}`));
            }
            // streams on a nats-server of the launcher's own go with its store (no service user may delete them)
            if (namespace && !startedNats) {
              await deleteStreams(natsUrl, namespace).catch((err: unknown) => say('stack', `deleting streams failed: ${String(err)}`));
            }
          }
          await stopInfrastructure();
          if (stopOptions.dropData && options.ownNats && startedNats) rmSync(startedNats.storeDir, { recursive: true, force: true });
          say('stack', 'stopped');
        })();
        return stopping;
      },
    };
  } catch (err) {
    await stopServices();
    if (options.dropDataOnFailure) {
      if (schemaPrefix && usedDatabaseUrl) await dropSchemas(usedDatabaseUrl, Object.values(schemas)).catch(() => undefined);
      if (namespace && usedNatsUrl && !startedNats) await deleteStreams(usedNatsUrl, namespace).catch(() => undefined);
    }
    await stopInfrastructure();
    if (options.dropDataOnFailure && options.ownNats && startedNats) rmSync(startedNats.storeDir, { recursive: true, force: true });
    throw err;
  }
}
