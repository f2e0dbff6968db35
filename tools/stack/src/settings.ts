import { isAbsolute, join, resolve } from 'node:path';

export type Env = Record<string, string | undefined>;

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
export const DEFAULT_ADMIN_EMAIL = 'admin@pasar.local';
export const DEFAULT_ADMIN_PASSWORD = 'pasar-admin-2026';
export const DEFAULT_DEMO_PASSWORD = 'pasar-demo-2026';
export const DEMO_LOGINS = ['vendor@pasar.local', 'customer@pasar.local', 'b2b-admin@pasar.local', 'b2b-staff@pasar.local'] as const;
export const DEFAULT_READY_TIMEOUT_MS = 120_000;
/** The most instances per service `--replicas` accepts (stack.ts MAX_REPLICAS). */
export const MAX_STACK_REPLICAS = 8;

/** What the launcher was asked to do, from its arguments and environment (arguments win). */
export interface LauncherSettings {
  help: boolean;
  /** DATABASE_URL when configured; undefined means "try the local default, start one if absent". */
  databaseUrl?: string;
  natsUrl?: string;
  identitySecret?: string;
  freePorts: boolean;
  /** Ports from `portBase` up: gateway on it, then checkout, b2b, vendor, admin, notifier (+1 .. +5). */
  portBase?: number;
  /** Instances of each domain service (the gateway runs once in front of them). */
  replicas: number;
  namespace: string;
  schemaPrefix: string;
  dataDir: string;
  readyTimeoutMs: number;
  /** On stop, drop the prefixed schemas and the namespace's streams (a throw-away stack: the smoke test). */
  dropDataOnStop: boolean;
  color: boolean;
  admin: { email: string; password: string };
  demo: { enabled: boolean; password: string };
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `Usage: npm start [-- options]

Starts PostgreSQL and NATS when none answers, then the six Pasar services with prefixed logs.

Options:
  --free-ports           use free ports instead of 8080 and 4001-4005     (STACK_FREE_PORTS=true)
  --port-base <port>     gateway on <port>, the other five on the next five (STACK_PORT_BASE)
  --replicas <n>         n instances of checkout, b2b, vendor, admin and notifier
                         (the first on its usual port, the others on free ports;
                         the gateway spreads requests over them)       (STACK_REPLICAS, default 1)
  --namespace <ns>       NATS subject/stream prefix for every service      (NATS_NAMESPACE)
  --schema-prefix <p>    put each service's schema under <p>_<schema>      (STACK_SCHEMA_PREFIX)
  --data-dir <dir>       where a started PostgreSQL/NATS keep their data   (STACK_DATA_DIR, default .data)
  --timeout <seconds>    how long to wait for every /readyz                (STACK_READY_TIMEOUT, default 120)
  --drop-data-on-stop    on Ctrl-C also drop the prefixed schemas and the namespace's streams
                         (needs --namespace and --schema-prefix)           (STACK_DROP_DATA_ON_STOP=true)
  --no-color             plain log prefixes                                (NO_COLOR)
  -h, --help             this text

Environment: DATABASE_URL and NATS_URL (default: the local ones, started when absent),
IDENTITY_SECRET (default: generated once into <data-dir>/identity-secret), ADMIN_EMAIL,
ADMIN_PASSWORD, SEED_DEMO, DEMO_PASSWORD, LOG_LEVEL, and every service variable (.env.example).`;

function flag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new UsageError(`expected true or false, got "${value}"`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** Parses `--key value`, `--key=value` and bare `--flag` arguments. */
export function parseArgs(argv: readonly string[]): Map<string, string | true> {
  const result = new Map<string, string | true>();
  const takesValue = new Set(['namespace', 'schema-prefix', 'data-dir', 'timeout', 'port-base', 'replicas']);
  const bare = new Set(['free-ports', 'no-color', 'help', 'drop-data-on-stop']);
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '-h') {
      result.set('help', true);
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const key = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (bare.has(key)) {
      if (eq !== -1) throw new UsageError(`--${key} takes no value`);
      result.set(key, true);
    } else if (takesValue.has(key)) {
      const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${key} needs a value`);
      result.set(key, value);
    } else {
      throw new UsageError(`unknown option --${key}`);
    }
  }
  return result;
}

function optionalString(args: Map<string, string | true>, key: string): string | undefined {
  const value = args.get(key);
  return typeof value === 'string' ? value : undefined;
}

/** Resolves the launcher's settings; relative directories are taken from `rootDir`. */
export function resolveSettings(argv: readonly string[], env: Env, rootDir: string): LauncherSettings {
  const args = parseArgs(argv);
  const timeoutText = optionalString(args, 'timeout') ?? nonEmpty(env.STACK_READY_TIMEOUT);
  let readyTimeoutMs = DEFAULT_READY_TIMEOUT_MS;
  if (timeoutText !== undefined) {
    const seconds = Number(timeoutText);
    if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`the ready timeout must be a positive number of seconds, got "${timeoutText}"`);
    readyTimeoutMs = Math.round(seconds * 1000);
  }
  const dataDirText = optionalString(args, 'data-dir') ?? nonEmpty(env.STACK_DATA_DIR) ?? '.data';
  const namespace = optionalString(args, 'namespace') ?? nonEmpty(env.NATS_NAMESPACE) ?? '';
  if (namespace && !/^[a-z][a-z0-9_]{0,40}$/.test(namespace)) {
    throw new UsageError(`bad namespace "${namespace}": lower-case letters, digits and _, starting with a letter`);
  }
  const schemaPrefix = optionalString(args, 'schema-prefix') ?? nonEmpty(env.STACK_SCHEMA_PREFIX) ?? '';
  if (schemaPrefix && !/^[a-z_][a-z0-9_]{0,40}$/.test(schemaPrefix)) {
    throw new UsageError(`bad schema prefix "${schemaPrefix}": lower-case letters, digits and _`);
  }
  const freePorts = args.get('free-ports') === true || (flag(env.STACK_FREE_PORTS) ?? false);
  const portBaseText = optionalString(args, 'port-base') ?? nonEmpty(env.STACK_PORT_BASE);
  let portBase: number | undefined;
  if (portBaseText !== undefined) {
    portBase = Number(portBaseText);
    if (!Number.isInteger(portBase) || portBase < 1024 || portBase > 65535 - 5) {
      throw new UsageError(`the port base must be a whole number from 1024 to 65530, got "${portBaseText}"`);
    }
    if (freePorts) throw new UsageError('choose either free ports or a port base, not both');
  }
  const replicasText = optionalString(args, 'replicas') ?? nonEmpty(env.STACK_REPLICAS) ?? '1';
  const replicas = Number(replicasText);
  if (!/^\d+$/.test(replicasText) || replicas < 1 || replicas > MAX_STACK_REPLICAS) {
    throw new UsageError(`the replicas must be a whole number from 1 to ${MAX_STACK_REPLICAS}, got "${replicasText}"`);
  }
  const dropDataOnStop = args.get('drop-data-on-stop') === true || (flag(env.STACK_DROP_DATA_ON_STOP) ?? false);
  if (dropDataOnStop && (!namespace || !schemaPrefix)) {
    throw new UsageError('dropping the data on stop needs a namespace and a schema prefix (the plain schemas and streams are never dropped)');
  }
  const identitySecret = nonEmpty(env.IDENTITY_SECRET);
  if (identitySecret !== undefined && identitySecret.length < 16) {
    throw new UsageError('IDENTITY_SECRET must be at least 16 characters');
  }
  refusePublicPasswordsOutsideDevelopment(env);
  return {
    help: args.get('help') === true,
    databaseUrl: nonEmpty(env.DATABASE_URL),
    natsUrl: nonEmpty(env.NATS_URL),
    identitySecret,
    freePorts,
    portBase,
    replicas,
    namespace,
    schemaPrefix,
    dataDir: isAbsolute(dataDirText) ? dataDirText : resolve(rootDir, dataDirText),
    readyTimeoutMs,
    dropDataOnStop,
    color: args.get('no-color') !== true && nonEmpty(env.NO_COLOR) === undefined,
    admin: {
      email: nonEmpty(env.ADMIN_EMAIL) ?? DEFAULT_ADMIN_EMAIL,
      password: nonEmpty(env.ADMIN_PASSWORD) ?? DEFAULT_ADMIN_PASSWORD,
    },
    demo: {
      enabled: flag(env.SEED_DEMO) ?? true,
      password: nonEmpty(env.DEMO_PASSWORD) ?? DEFAULT_DEMO_PASSWORD,
    },
  };
}

/**
 * The launcher's administrator and demo passwords are public (printed in .env.example and the
 * banner): with NODE_ENV set to anything but development or test (the launcher's own default is
 * development), ADMIN_PASSWORD and, when demo data is seeded, DEMO_PASSWORD must be set.
 */
function refusePublicPasswordsOutsideDevelopment(env: Env): void {
  const nodeEnv = nonEmpty(env.NODE_ENV) ?? 'development';
  if (nodeEnv === 'development' || nodeEnv === 'test') return;
  const missing = [
    nonEmpty(env.ADMIN_PASSWORD) ? undefined : 'ADMIN_PASSWORD',
    (flag(env.SEED_DEMO) ?? true) && !nonEmpty(env.DEMO_PASSWORD) ? 'DEMO_PASSWORD' : undefined,
  ].filter((name): name is string => name !== undefined);
  if (missing.length) throw new UsageError(`${missing.join(' and ')} must be set when NODE_ENV is ${nodeEnv}: the public defaults are for development only`);
}

/** The repository root: three levels above this file (tools/stack/src). */
export function repositoryRoot(): string {
  return join(__dirname, '..', '..', '..');
}
