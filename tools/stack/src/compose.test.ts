/**
 * Docker cannot run on the build machine, so this test is the check of docker-compose.yml and the
 * services' Dockerfiles: every app, its port, schema, env, healthcheck and start order.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..', '..', '..');

const APPS = [
  { name: 'gateway', port: 8080, schema: 'identity' },
  { name: 'checkout', port: 4001, schema: 'checkout' },
  { name: 'b2b', port: 4002, schema: 'b2b' },
  { name: 'vendor', port: 4003, schema: 'vendor' },
  { name: 'admin', port: 4004, schema: 'admin' },
  { name: 'notifier', port: 4005, schema: 'notifier' },
] as const;

/** The part of the Compose file format this test reads. */
interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string };
  command?: string | string[];
  ports?: string[];
  environment?: Record<string, string> | string[];
  healthcheck?: { test?: string | string[] };
  depends_on?: Record<string, { condition?: string }> | string[];
}

interface ComposeFile {
  services: Record<string, ComposeService>;
}

function readText(relativePath: string): string {
  return readFileSync(join(ROOT, relativePath), 'utf8');
}

// Compose honours YAML merge keys (`<<: *anchor`); YAML 1.2 parsers need them switched on.
const compose = parse(readText('docker-compose.yml'), { merge: true }) as ComposeFile;

function service(name: string): ComposeService {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service "${name}"`);
  return found;
}

/** Environment in either Compose form (map or `KEY=value` list), as a map of strings. */
function envOf(name: string): Record<string, string> {
  const environment = service(name).environment ?? {};
  if (!Array.isArray(environment)) {
    return Object.fromEntries(Object.entries(environment).map(([key, value]) => [key, String(value)]));
  }
  return Object.fromEntries(
    environment.map((entry) => {
      const separator = entry.indexOf('=');
      return separator === -1 ? [entry, ''] : [entry.slice(0, separator), entry.slice(separator + 1)];
    }),
  );
}

function healthyDependencies(name: string): string[] {
  const dependsOn = service(name).depends_on ?? {};
  if (Array.isArray(dependsOn)) return [];
  return Object.entries(dependsOn)
    .filter(([, dependency]) => dependency.condition === 'service_healthy')
    .map(([dependency]) => dependency);
}

function commandText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(' ') : (value ?? '');
}

/** Workspace folders from the root package.json (`dir` or `dir/*` entries) that hold a package.json. */
function workspaceDirs(): string[] {
  const { workspaces } = JSON.parse(readText('package.json')) as { workspaces: string[] };
  return workspaces
    .flatMap((pattern) => {
      if (!pattern.endsWith('/*')) return [pattern];
      const parent = pattern.slice(0, -2);
      return readdirSync(join(ROOT, parent), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${parent}/${entry.name}`);
    })
    .filter((dir) => existsSync(join(ROOT, dir, 'package.json')));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('docker-compose.yml infrastructure', () => {
  test('postgres 16 with a password, the pasar database and pg_isready', () => {
    const postgres = service('postgres');
    expect(postgres.image).toMatch(/^postgres:16/);
    expect(envOf('postgres')).toMatchObject({ POSTGRES_PASSWORD: 'postgres', POSTGRES_DB: 'pasar' });
    expect(commandText(postgres.healthcheck?.test)).toContain('pg_isready');
  });

  test('nats 2.10 with JetStream, a store dir and a monitoring healthcheck', () => {
    const nats = service('nats');
    expect(nats.image).toMatch(/^nats:2\.10/);
    const command = commandText(nats.command).split(/\s+/);
    expect(command).toEqual(expect.arrayContaining(['-js', '-sd', '-m', '8222']));
    expect(commandText(nats.healthcheck?.test)).toContain('8222/healthz');
  });

  test('mailpit with SMTP on 1025 and the UI on 8025', () => {
    const mailpit = service('mailpit');
    expect(mailpit.image).toMatch(/^axllent\/mailpit/);
    expect(mailpit.ports).toEqual(expect.arrayContaining(['1025:1025', '8025:8025']));
    expect(mailpit.healthcheck?.test).toBeDefined();
  });
});

describe.each(APPS)('docker-compose.yml service $name', ({ name, port, schema }) => {
  test('is built from its Dockerfile with the repository root as context', () => {
    const build = service(name).build;
    expect(build?.context).toBe('.');
    expect(build?.dockerfile).toBe(`apps/${name}/Dockerfile`);
    expect(existsSync(join(ROOT, `apps/${name}/Dockerfile`))).toBe(true);
  });

  test(`publishes port ${port} and checks /healthz`, () => {
    expect(service(name).ports).toEqual([`${port}:${port}`]);
    expect(commandText(service(name).healthcheck?.test)).toContain('/healthz');
  });

  test('waits for healthy postgres and nats', () => {
    expect(healthyDependencies(name)).toEqual(expect.arrayContaining(['postgres', 'nats']));
  });

  test(`uses schema "${schema}", NATS, the identity secret and migrations on start`, () => {
    const env = envOf(name);
    expect(env).toMatchObject({
      PORT: String(port),
      NODE_ENV: 'production',
      NATS_URL: 'nats://nats:4222',
      IDENTITY_SECRET: '${IDENTITY_SECRET:-change-me-in-production-please-32b}',
      MIGRATE_ON_START: 'true',
    });
    const databaseUrl = new URL(env.DATABASE_URL);
    expect(databaseUrl.protocol).toBe('postgresql:');
    expect(databaseUrl.hostname).toBe('postgres');
    expect(databaseUrl.pathname).toBe('/pasar');
    expect(databaseUrl.searchParams.get('schema')).toBe(schema);
  });
});

describe('docker-compose.yml service specifics', () => {
  const domainServices = APPS.filter((app) => app.name !== 'gateway');

  test('the gateway starts after the five services are healthy and knows their URLs', () => {
    expect(healthyDependencies('gateway')).toEqual(
      expect.arrayContaining(domainServices.map((app) => app.name)),
    );
    const env = envOf('gateway');
    for (const app of domainServices) {
      expect(env[`${app.name.toUpperCase()}_URL`]).toBe(`http://${app.name}:${app.port}`);
    }
    expect(env.ADMIN_EMAIL).toMatch(/^\$\{ADMIN_EMAIL:-.+\}$/);
    expect(env.ADMIN_PASSWORD).toMatch(/^\$\{ADMIN_PASSWORD:-.+\}$/);
    expect(env.CORS_ORIGINS).toBeDefined();
  });

  test('the notifier sends through mailpit', () => {
    expect(envOf('notifier').SMTP_URL).toBe('smtp://mailpit:1025');
  });

  test('checkout talks to the real payment gateway', () => {
    expect(envOf('checkout').PAYMENT_MOCK).toBe('false');
  });
});

describe.each(APPS)('apps/$name/Dockerfile', ({ name, port }) => {
  const dockerfile = readText(`apps/${name}/Dockerfile`);

  test('is a multi-stage build on node:20-bookworm-slim', () => {
    const stages = dockerfile.match(/^FROM\s+\S+/gm) ?? [];
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^FROM node:20-bookworm-slim\b/m);
  });

  test('installs from the lockfile and every workspace manifest', () => {
    expect(dockerfile).toMatch(/^COPY package\.json package-lock\.json \.\/$/m);
    for (const dir of workspaceDirs()) {
      expect(dockerfile).toMatch(new RegExp(`^COPY ${escapeRegExp(dir)}/package\\.json `, 'm'));
    }
    expect(dockerfile).toMatch(/^RUN npm install --no-audit --no-fund$/m);
  });

  test('builds its own workspace', () => {
    const manifest = JSON.parse(readText(`apps/${name}/package.json`)) as { name: string };
    expect(manifest.name).toBe(`@pasar/${name}`);
    expect(dockerfile).toMatch(new RegExp(`^RUN (?:\\w+=\\S+ )*npm run build -w @pasar/${name}$`, 'm'));
  });

  test(`runs as node, exposes ${port} and checks its health`, () => {
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${port}$`, 'm'));
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
    expect(dockerfile).toContain(`http://127.0.0.1:${port}/healthz`);
  });

  test('starts the service with tsx', () => {
    expect(dockerfile).toContain(`CMD ["npx", "tsx", "apps/${name}/src/main.ts"]`);
  });
});

describe('.dockerignore', () => {
  test('keeps host installs, generated clients, data and git history out of the context', () => {
    const ignored = readText('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).toEqual(
      expect.arrayContaining(['**/node_modules', '**/generated', '**/.data', '**/coverage', '.git']),
    );
  });
});
