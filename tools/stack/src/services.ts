/** The six apps of DESIGN §1: their names, default ports and the schema each owns. */
export const SERVICES = [
  { name: 'gateway', port: 8080, schema: 'identity' },
  { name: 'checkout', port: 4001, schema: 'checkout' },
  { name: 'b2b', port: 4002, schema: 'b2b' },
  { name: 'vendor', port: 4003, schema: 'vendor' },
  { name: 'admin', port: 4004, schema: 'admin' },
  { name: 'notifier', port: 4005, schema: 'notifier' },
] as const;

export type ServiceName = (typeof SERVICES)[number]['name'];
export const SERVICE_NAMES: readonly ServiceName[] = SERVICES.map((s) => s.name);

export const DEFAULT_PORTS: Readonly<Record<ServiceName, number>> = Object.fromEntries(
  SERVICES.map((s) => [s.name, s.port]),
) as Record<ServiceName, number>;

/** Six consecutive ports from `base`, in the order of SERVICES (gateway first). */
export function portsFromBase(base: number): Record<ServiceName, number> {
  return Object.fromEntries(SERVICES.map((s, index) => [s.name, base + index])) as Record<ServiceName, number>;
}

/** The gateway reaches each domain service through one of these variables. */
export const UPSTREAM_URL_VARS: Readonly<Record<Exclude<ServiceName, 'gateway'>, string>> = {
  checkout: 'CHECKOUT_URL',
  b2b: 'B2B_URL',
  vendor: 'VENDOR_URL',
  admin: 'ADMIN_URL',
  notifier: 'NOTIFIER_URL',
};

export function isServiceName(value: string): value is ServiceName {
  return (SERVICE_NAMES as readonly string[]).includes(value);
}

const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;
const PREFIX_PATTERN = /^([a-z_][a-z0-9_]{0,40})?$/;

/** The schema a service uses: its own name, behind `<prefix>_` when a prefix is given. */
export function schemaFor(service: ServiceName, prefix = ''): string {
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new Error(`bad schema prefix "${prefix}": lower-case letters, digits and _ only, starting with a letter or _`);
  }
  const own = SERVICES.find((s) => s.name === service)?.schema ?? service;
  return prefix ? `${prefix}_${own}` : own;
}

/** Every service's schema under a prefix. */
export function schemasFor(prefix = ''): Record<ServiceName, string> {
  return Object.fromEntries(SERVICE_NAMES.map((name) => [name, schemaFor(name, prefix)])) as Record<ServiceName, string>;
}

/** The connection string without any `schema` parameter (what `pg` and the probes use). */
export function baseDatabaseUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.delete('schema');
  return url.toString();
}

/** The service's DATABASE_URL: the shared database with `?schema=<schema>`, other parameters kept. */
export function databaseUrlForSchema(databaseUrl: string, schema: string): string {
  if (!SCHEMA_PATTERN.test(schema)) throw new Error(`bad schema name "${schema}"`);
  const url = new URL(databaseUrl);
  if (!/^postgres(ql)?:$/.test(url.protocol)) {
    throw new Error(`DATABASE_URL must be a postgres:// or postgresql:// URL, got "${url.protocol}"`);
  }
  url.searchParams.set('schema', schema);
  return url.toString();
}

/** The connection string with its password masked, for printing. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return value;
  }
}

export function serviceUrl(port: number, host = '127.0.0.1'): string {
  return `http://${host}:${port}`;
}
