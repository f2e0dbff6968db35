/**
 * The static check of docker-compose.yml and the one Dockerfile: every app built from it with its
 * APP argument, its port, schema, env, healthcheck and start order; secrets only from .env with no
 * default; only the gateway and Mailpit's UI publish a port; everything else on the internal
 * network; third-party images from variables defaulting to upstream. `npm run compose:smoke`
 * (scripts/compose-smoke.mjs) builds the images and runs the stack.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { SERVICES } from './services';
import { SERVICE_NODE_FLAGS } from './stack';

const ROOT = join(__dirname, '..', '..', '..');

/** The six apps (DESIGN §1): name, default port and schema, as the launcher knows them. */
const APPS = SERVICES;

/** The part of the Compose file format this test reads. */
interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  networks?: string[] | Record<string, unknown>;
  command?: string | string[];
  ports?: string[];
  volumes?: string[];
  env_file?: string | string[];
  environment?: Record<string, string> | string[];
  healthcheck?: { test?: string | string[] };
  depends_on?: Record<string, { condition?: string }> | string[];
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  networks?: Record<string, { internal?: boolean } | null>;
}

function readText(relativePath: string): string {
  return readFileSync(join(ROOT, relativePath), 'utf8');
}

// Compose honours YAML merge keys (`<<: *anchor`); YAML 1.2 parsers need them switched on.
const composeText = readText('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as ComposeFile;

/** Variable names that hold a secret: each must come from .env with `${VAR:?message}`. */
const SECRET_NAME = /SECRET|PASSWORD|_KEY$|TOKEN|MERCHANT_ID/;
/** The secrets the services read today (a new one is caught by SECRET_NAME as well). */
const REQUIRED_SECRETS: Record<string, string[]> = {
  postgres: ['POSTGRES_PASSWORD'],
  gateway: ['IDENTITY_SECRET', 'ADMIN_PASSWORD'],
  checkout: ['IDENTITY_SECRET', 'PAYMENT_MERCHANT_ID', 'PAYMENT_VERIFY_KEY', 'PAYMENT_SECRET_KEY'],
  b2b: ['IDENTITY_SECRET'],
  vendor: ['IDENTITY_SECRET'],
  admin: ['IDENTITY_SECRET'],
  notifier: ['IDENTITY_SECRET'],
};

/** `${NAME:?message}` with a message, nothing else. */
function requiredFromEnv(name: string): RegExp {
  return new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`);
}

function networksOf(name: string): string[] {
  const networks = service(name).networks ?? [];
  return Array.isArray(networks) ? networks : Object.keys(networks);
}

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
  test('postgres 16 with the password from .env, the pasar database and pg_isready', () => {
    const postgres = service('postgres');
    expect(postgres.image).toBe('${POSTGRES_IMAGE:-postgres:16}');
    expect(envOf('postgres').POSTGRES_DB).toBe('pasar');
    expect(envOf('postgres').POSTGRES_PASSWORD).toMatch(requiredFromEnv('POSTGRES_PASSWORD'));
    expect(commandText(postgres.healthcheck?.test)).toContain('pg_isready');
  });

  test('nats 2.10 with JetStream, a store dir and a monitoring healthcheck', () => {
    const nats = service('nats');
    expect(nats.image).toBe('${NATS_IMAGE:-nats:2.10-alpine}');
    const command = commandText(nats.command).split(/\s+/);
    expect(command).toEqual(expect.arrayContaining(['-js', '-sd', '-m', '8222']));
    expect(commandText(nats.healthcheck?.test)).toContain('8222/healthz');
  });

  test('nats runs with the users of `npm run nats:config` (.data/nats-users/nats-auth.conf, read-only)', () => {
    const nats = service('nats');
    const command = commandText(nats.command).split(/\s+/);
    expect(command.slice(command.indexOf('-c'), command.indexOf('-c') + 2)).toEqual(['-c', '/etc/nats/nats-auth.conf']);
    expect(nats.volumes).toContain('./.data/nats-users/nats-auth.conf:/etc/nats/nats-auth.conf:ro');
  });

  test("mailpit publishes only its UI on 8025 (SMTP stays on the internal network)", () => {
    const mailpit = service('mailpit');
    expect(mailpit.image).toBe('${MAIL_IMAGE:-axllent/mailpit}');
    expect(mailpit.ports).toEqual(['${MAIL_UI_PORT:-8025}:8025']);
    expect(networksOf('mailpit')).toContain('backend');
    expect(mailpit.healthcheck?.test).toBeDefined();
  });
});

describe('docker-compose.yml production defaults', () => {
  test('only the gateway and Mailpit publish ports', () => {
    const publishing = Object.entries(compose.services)
      .filter(([, definition]) => (definition.ports ?? []).length > 0)
      .map(([name]) => name)
      .sort();
    expect(publishing).toEqual(['gateway', 'mailpit']);
    expect(service('gateway').ports).toEqual(['${GATEWAY_PORT:-8080}:8080']);
  });

  test('every service sits on the internal backend network; PostgreSQL and NATS only there', () => {
    expect(compose.networks?.backend?.internal).toBe(true);
    for (const name of Object.keys(compose.services)) expect(networksOf(name)).toContain('backend');
    expect(networksOf('postgres')).toEqual(['backend']);
    expect(networksOf('nats')).toEqual(['backend']);
    // what publishes a port also needs a network with a way in
    for (const name of ['gateway', 'mailpit']) expect(networksOf(name)).toContain('edge');
    expect(compose.networks?.edge?.internal).not.toBe(true);
  });

  test.each(Object.entries(REQUIRED_SECRETS))('%s takes its secrets from .env with no default', (name, secrets) => {
    const env = envOf(name);
    for (const secret of secrets) expect({ [secret]: env[secret] }).toEqual({ [secret]: expect.stringMatching(requiredFromEnv(secret)) });
  });

  test('no secret anywhere has a default or a literal value', () => {
    // no `${SECRET:-default}` / `${SECRET-default}` interpolation anywhere in the file
    const defaulted = [...composeText.matchAll(/\$\{([A-Z0-9_]+)(:?-)[^}]*\}/g)].map((m) => m[1]).filter((name) => SECRET_NAME.test(name));
    expect(defaulted).toEqual([]);
    // every secret-named variable of every service is exactly `${VAR:?message}`
    for (const name of Object.keys(compose.services)) {
      for (const [key, value] of Object.entries(envOf(name))) {
        if (SECRET_NAME.test(key)) expect({ service: name, [key]: value }).toEqual({ service: name, [key]: expect.stringMatching(requiredFromEnv(key)) });
      }
    }
    // the database password in each DATABASE_URL comes from .env too
    for (const app of APPS) expect(envOf(app.name).DATABASE_URL).toMatch(/^postgresql:\/\/postgres:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/pasar\?/);
  });

  test('the file says what a missing secret means (the message names .env)', () => {
    for (const match of composeText.matchAll(/\$\{([A-Z0-9_]+):\?([^}]*)\}/g)) expect(match[2]).toContain('.env');
  });

  test('.env.example lists every secret compose requires, with no value', () => {
    const example = readText('.env.example');
    const required = new Set([...composeText.matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]));
    for (const name of required) {
      expect(example).toMatch(new RegExp(`^${name}=`, 'm'));
      if (SECRET_NAME.test(name)) expect(example).toMatch(new RegExp(`^${name}=$`, 'm'));
    }
  });
});

describe.each(APPS)('docker-compose.yml service $name', ({ name, port, schema }) => {
  test('is built from the one Dockerfile with its APP and PORT, the repository root as context', () => {
    const build = service(name).build;
    expect(build?.context).toBe('.');
    expect(build?.dockerfile).toBe('Dockerfile');
    expect(build?.args).toEqual({ APP: name, PORT: String(port), NODE_IMAGE: '${NODE_IMAGE:-node:20-bookworm-slim}' });
    expect(service(name).image).toBe(`pasar-${name}:\${PASAR_TAG:-local}`);
    expect(existsSync(join(ROOT, 'apps', name, 'src', 'main.ts'))).toBe(true);
  });

  test("checks the image's /readyz, runs under an init process on a read-only root filesystem", () => {
    expect(commandText(service(name).healthcheck?.test)).toBe('CMD bash dist/healthcheck.sh');
    const definition = service(name) as { init?: boolean; read_only?: boolean; tmpfs?: string[] };
    expect(definition.init).toBe(true);
    expect(definition.read_only).toBe(true);
    expect(definition.tmpfs).toEqual(['/tmp', '/app/.data:uid=1000,gid=1000']);
  });

  test(`connects to NATS as its own user: the seed of .data/nats-users/${name}.env`, () => {
    expect(service(name).env_file).toEqual([`.data/nats-users/${name}.env`]);
    // the seed comes from that file only, never from this one
    expect(envOf(name).NATS_NKEY_SEED).toBeUndefined();
  });

  test('waits for healthy postgres and nats', () => {
    expect(healthyDependencies(name)).toEqual(expect.arrayContaining(['postgres', 'nats']));
  });

  test(`uses schema "${schema}", NATS, production mode and migrations on start`, () => {
    const env = envOf(name);
    expect(env).toMatchObject({
      PORT: String(port),
      NODE_ENV: 'production',
      NATS_URL: 'nats://nats:4222',
      MIGRATE_ON_START: 'true',
    });
    const databaseUrl = new URL(env.DATABASE_URL.replace(/\$\{[^}]+\}/, 'secret'));
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
    expect(env.ADMIN_EMAIL).toMatch(requiredFromEnv('ADMIN_EMAIL'));
    expect(env.CORS_ORIGINS).toBeDefined();
  });

  test('the notifier sends through mailpit', () => {
    expect(envOf('notifier').SMTP_URL).toBe('smtp://mailpit:1025');
  });

  test('checkout talks to the real payment gateway', () => {
    expect(envOf('checkout').PAYMENT_MOCK).toBe('false');
  });
});

describe('Dockerfile (one for the six services)', () => {
  const dockerfile = readText('Dockerfile');

  test('replaces the per-app Dockerfiles', () => {
    for (const app of APPS) expect(existsSync(join(ROOT, 'apps', app.name, 'Dockerfile'))).toBe(false);
  });

  test('is a multi-stage build on NODE_IMAGE (default node:20-bookworm-slim), parameterised by APP', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    expect(dockerfile.match(/^FROM \$\{NODE_IMAGE\} AS \w+$/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^ARG APP$/m);
    // no service is named in the recipe itself, beyond the manifests every install needs
    const instructions = dockerfile.split('\n').filter((line) => !line.startsWith('#') && !/^COPY apps\/[a-z0-9]+\/package\.json apps\/[a-z0-9]+\/$/.test(line));
    for (const app of APPS) expect(instructions.filter((line) => line.includes(`apps/${app.name}`))).toEqual([]);
  });

  test('installs from the lockfile and every workspace manifest, with the Prisma generator bin', () => {
    expect(dockerfile).toMatch(/^COPY package\.json package-lock\.json \.\/$/m);
    for (const dir of workspaceDirs()) {
      expect(dockerfile).toMatch(new RegExp(`^COPY ${escapeRegExp(dir)}/package\\.json `, 'm'));
    }
    // npm links packages/db's bin (the schemas' datamodel generator) during the install
    expect(dockerfile).toMatch(/^COPY packages\/db\/bin packages\/db\/bin$/m);
    // the root postinstall runs during the install: its script must be in the layer
    const { scripts } = JSON.parse(readText('package.json')) as { scripts: Record<string, string> };
    const postinstall = /scripts\/\S+\.mjs/.exec(scripts.postinstall ?? '')?.[0];
    if (postinstall) expect(dockerfile).toMatch(new RegExp(`^COPY ${escapeRegExp(postinstall)} `, 'm'));
    expect(dockerfile).toMatch(/^RUN \. \/tmp\/ca-env\.sh && npm install --no-audit --no-fund$/m);
  });

  test('generates the Prisma client of APP and bundles it (scripts/bundle-service.mjs)', () => {
    for (const app of APPS) {
      const manifest = JSON.parse(readText(`apps/${app.name}/package.json`)) as { name: string };
      expect(manifest.name).toBe(`@pasar/${app.name}`);
    }
    expect(dockerfile).toMatch(/^COPY apps\/\$\{APP\} apps\/\$\{APP\}$/m);
    expect(dockerfile).toMatch(/^RUN \. \/tmp\/ca-env\.sh && npm run build -w @pasar\/\$\{APP\} && node scripts\/bundle-service\.mjs \$\{APP\} \/out /m);
    expect(existsSync(join(ROOT, 'scripts', 'bundle-service.mjs'))).toBe(true);
  });

  test('the runtime stage holds the bundle only, runs it as node in production and checks /readyz', () => {
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    expect(runtime).toMatch(/^COPY --from=build \/out \/app$/m);
    // no CA certificate, source tree or build-time node_modules reaches the runtime stage
    expect(runtime).not.toMatch(/extra-ca|^COPY (?!--from=build \/out)/m);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^EXPOSE \$\{PORT\}$/m);
    expect(runtime).toMatch(/NODE_ENV=production/);
    expect(runtime).toMatch(/PASAR_APP=\$\{APP\}/);
    expect(runtime).toMatch(/^HEALTHCHECK [\s\S]*CMD \["bash", "dist\/healthcheck\.sh"\]$/m);
    expect(runtime).toMatch(/^CMD \["node", (".*", )?"dist\/main.js"\]$/m);
  });

  test("the gateway's image carries the console's build and serves it from CONSOLE_DIR", () => {
    expect(dockerfile).toMatch(/^COPY apps\/console apps\/console$/m);
    expect(dockerfile).toMatch(/if \[ "\$APP" = gateway \]; then npm run build -w @pasar\/console && cp -r apps\/console\/dist \/out\/console; fi$/m);
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    expect(runtime).toMatch(/CONSOLE_DIR=\/app\/console/);
  });

  test('gives the healthcheck 15 s and hands freed memory back to the system', () => {
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    expect(runtime).toMatch(/^HEALTHCHECK --interval=10s --timeout=15s /m);
    expect(runtime).toMatch(/MALLOC_TRIM_THRESHOLD_=131072/);
    expect(runtime).toMatch(/NODE_OPTIONS=--max-semi-space-size=2$/m);
  });

  test("runs node with the flags npm start gives the services (WebAssembly on V8's baseline compiler)", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile.slice(dockerfile.indexOf('AS runtime')))?.[1];
    expect(cmd).toBeDefined();
    const [node, ...args] = JSON.parse(cmd ?? '[]') as string[];
    expect(node).toBe('node');
    expect(args).toEqual([...SERVICE_NODE_FLAGS, 'dist/main.js']);
    expect(SERVICE_NODE_FLAGS).toContain('--liftoff-only');
  });

  test('takes extra CA certificates from deploy/compose/certs in the build stage', () => {
    expect(dockerfile).toMatch(/^COPY deploy\/compose\/certs\/ \/tmp\/extra-ca\/$/m);
    expect(existsSync(join(ROOT, 'deploy', 'compose', 'certs', 'README.md'))).toBe(true);
    expect(readText('.gitignore')).toMatch(/^deploy\/compose\/certs\/\*\.pem$/m);
  });
});

describe('.dockerignore', () => {
  test('keeps host installs, generated clients, data, secrets and git history out of the context', () => {
    const ignored = readText('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).toEqual(
      expect.arrayContaining(['**/node_modules', '**/generated', '**/.data', '**/coverage', '.git', '.env']),
    );
  });
});
