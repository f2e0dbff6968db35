/**
 * `npm start`: the local launcher (DESIGN §8). Finds or starts PostgreSQL and NATS, starts the six
 * services with prefixed logs, prints the URLs and logins, and stops everything on Ctrl-C.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { Bus } from '@pasar/bus';
import pino from 'pino';
import { ensurePrismaClients } from './generate';
import { colorize, consoleSink, prefixFor } from './logs';
import { DEMO_CUSTOMER_EMAIL, findDemoWalkthroughIds, seedDemoData, type DemoWalkthroughIds } from './seed';
import { startSmtpCatcher } from '@pasar/testkit';
import { NatsServerMissingError } from './nats';
import { portsFromBase, redactUrl, SERVICE_NAMES } from './services';
import { onStopSignals } from './signals';
import { DEMO_LOGINS, repositoryRoot, resolveSettings, USAGE, UsageError, type LauncherSettings } from './settings';
import { StackStartError, startStack, type Stack } from './stack';

/** Reads `<root>/.env` when present; variables already set win, empty values count as unset. */
function loadDotEnv(rootDir: string): void {
  const file = join(rootDir, '.env');
  if (!existsSync(file)) return;
  for (const [key, value] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) {
    if (process.env[key] === undefined && value !== undefined && value !== '') process.env[key] = value;
  }
}

/** Signs in (and out again) with each demo login; returns those that work. */
async function verifiedDemoLogins(gatewayUrl: string, password: string): Promise<string[]> {
  const working: string[] = [];
  for (const email of DEMO_LOGINS) {
    try {
      const response = await fetch(`${gatewayUrl}/api/v1/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
        signal: AbortSignal.timeout(5000),
      });
      await response.arrayBuffer();
      if (response.status !== 200) continue;
      working.push(email);
      const cookie = response.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      await fetch(`${gatewayUrl}/api/v1/auth/sign-out`, { method: 'POST', headers: { cookie }, signal: AbortSignal.timeout(5000) })
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
    } catch {
      // not there (yet)
    }
  }
  return working;
}

function banner(stack: Stack, settings: LauncherSettings, demoLogins: string[], demo: DemoWalkthroughIds | undefined, color: boolean): string {
  const c = color;
  const bold = (t: string) => colorize(t, 1, c);
  const lines = [
    '',
    bold('Pasar is running'),
    `  ${'gateway'.padEnd(10)} ${stack.gatewayUrl}   (API under /api/v1)`,
    `  ${'API docs'.padEnd(10)} ${stack.gatewayUrl}/api/v1/docs   (OpenAPI: /api/v1/openapi.json)`,
    `  ${'console'.padEnd(10)} ${stack.gatewayUrl}/console/   (operator console: sign in as the administrator)`,
    ...SERVICE_NAMES.filter((n) => n !== 'gateway').map(
      (name) => `  ${name.padEnd(10)} ${stack.instances[name].map((i) => i.url).join(', ')}   schema ${stack.services[name].schema}`,
    ),
    `  ${'PostgreSQL'.padEnd(10)} ${redactUrl(stack.databaseUrl)}   (${stack.infrastructure.postgres})`,
    `  ${'NATS'.padEnd(10)} ${redactUrl(stack.natsUrl)}   (${stack.infrastructure.nats}${stack.namespace ? `, namespace ${stack.namespace}` : ''}${Object.keys(stack.natsSeeds).length ? ', a user per service' : ', no auth'})`,
    '',
    `  ${bold('Admin login')}  ${stack.admin.email} / ${stack.admin.password}`,
  ];
  if (demoLogins.length) lines.push(`  ${bold('Demo logins')}  ${demoLogins.join(', ')} / ${settings.demo.password}`);
  if (demo) {
    lines.push(
      '',
      `  ${bold('Demo ids')} (README "Try it with curl")`,
      `  ${'product'.padEnd(16)} ${demo.product.id}   ${demo.product.name}`,
      `  ${'  variant'.padEnd(16)} ${demo.product.variant.id}   ${demo.product.variant.name} (the product has variants: name one)`,
    );
    if (demo.simpleProduct) lines.push(`  ${'product'.padEnd(16)} ${demo.simpleProduct.id}   ${demo.simpleProduct.name} (no variants)`);
    lines.push(`  ${'address'.padEnd(16)} ${demo.addressId}   (${DEMO_CUSTOMER_EMAIL}'s default)`);
  }
  lines.push('', 'Press Ctrl-C to stop.', '');
  return lines.join('\n');
}

/** Seeds the demo data through the services (rpc and the gateway), on its own NATS connection. */
async function seedDemo(stack: Stack, password: string) {
  const seed = stack.natsSeeds.stack;
  const bus = await Bus.connect({ natsUrl: stack.natsUrl, namespace: stack.namespace, service: 'stack', log: pino({ level: 'silent' }), ...(seed ? { auth: { nkeySeed: seed } } : {}) });
  try {
    return await seedDemoData({ bus, gatewayUrl: stack.gatewayUrl, admin: stack.admin, password });
  } finally {
    await bus.close();
  }
}

async function main(): Promise<number> {
  const rootDir = repositoryRoot();
  loadDotEnv(rootDir);
  const settings = resolveSettings(process.argv.slice(2), process.env, rootDir);
  if (settings.help) {
    console.log(USAGE);
    return 0;
  }
  const color = settings.color && process.stdout.isTTY === true;
  const sink = consoleSink({ color });
  const say = (line: string) => sink({ source: 'stack', line, stream: 'stdout' });

  const running: { stack?: Stack } = {};
  const stopOptions = { dropData: settings.dropDataOnStop };
  // one Ctrl-C may arrive twice (the terminal's and npm's copy): onStopSignals ignores the repeat
  let shutdown: Promise<void> | undefined;
  let stopped: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (stopped = resolve));
  const signals = onStopSignals({
    say,
    onStop: (signal) => {
      say(`${signal}: stopping (press Ctrl-C again to force)`);
      if (running.stack) shutdown = running.stack.stop(stopOptions).then(stopped);
    },
  });

  // `npm install` generates them (postinstall); an install with --ignore-scripts did not
  ensurePrismaClients(rootDir, say);

  // no SMTP server configured: a local one that prints what the notifier sends
  const mailCatcher = process.env.SMTP_URL
    ? undefined
    : await startSmtpCatcher({ onMessage: (mail) => sink({ source: 'mail', line: `to ${mail.to.join(', ')}: ${mail.subject}`, stream: 'stdout' }) });
  say(`PostgreSQL: ${settings.databaseUrl ? redactUrl(settings.databaseUrl) : 'local default, started when absent'}; NATS: ${settings.natsUrl ?? 'local default, started when absent'}`);
  const stack = await startStack({
    replicas: settings.replicas,
    ports: settings.freePorts ? 'free' : settings.portBase !== undefined ? portsFromBase(settings.portBase) : undefined,
    databaseUrl: settings.databaseUrl,
    natsUrl: settings.natsUrl,
    namespace: settings.namespace,
    schemaPrefix: settings.schemaPrefix,
    identitySecret: settings.identitySecret,
    dataDir: settings.dataDir,
    readyTimeoutMs: settings.readyTimeoutMs,
    admin: settings.admin,
    env: mailCatcher ? { notifier: { SMTP_URL: mailCatcher.url } } : undefined,
    log: sink,
    onServiceExit: (service, description) => {
      if (!signals.first) say(`${prefixFor(service, false).trim()} ${description}; the others keep running (restart with npm start)`);
    },
  });
  running.stack = stack;
  if (signals.first) {
    await stack.stop(stopOptions);
    return 0;
  }
  if (settings.demo.enabled) {
    try {
      const seeded = await seedDemo(stack, settings.demo.password);
      say(seeded.productsCreated ? `demo data seeded (${seeded.productsCreated} products in store ${seeded.storeId})` : 'demo data already there');
    } catch (err) {
      say(`demo data not seeded: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (signals.first) {
    // Ctrl-C while the demo data was seeded: the stack is already stopping
    await shutdown;
    return 0;
  }
  const demoLogins = settings.demo.enabled ? await verifiedDemoLogins(stack.gatewayUrl, settings.demo.password) : [];
  const demoIds = demoLogins.includes(DEMO_CUSTOMER_EMAIL)
    ? await findDemoWalkthroughIds(stack.gatewayUrl, { email: DEMO_CUSTOMER_EMAIL, password: settings.demo.password }).catch(() => undefined)
    : undefined;
  process.stdout.write(banner(stack, settings, demoLogins, demoIds, color));
  if (mailCatcher) say(`no SMTP_URL: e-mails go to a local SMTP server on ${mailCatcher.url} and are listed here as [mail]`);
  await finished;
  await shutdown;
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (err instanceof NatsServerMissingError || err instanceof StackStartError) {
      console.error(`\nnpm start failed: ${err.message}`);
      process.exit(1);
    }
    console.error('\nnpm start failed:', err);
    process.exit(1);
  },
);
