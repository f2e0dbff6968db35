#!/usr/bin/env node
// The container smoke test (`npm run compose:smoke`, run by .ci/run after `npm run smoke`): what a
// new user does with Docker on a fresh clone.
//
//   1. a Docker engine: the one that answers, else Debian's docker.io (+ docker-compose) installed
//      when missing and a dockerd started here (and stopped at the end);
//   2. the third-party images (Node base, PostgreSQL, NATS, Mailpit): pulled, or, when no
//      registry answers, the local stand-ins of deploy/compose/offline/build.sh;
//   3. builds the six service images from the one Dockerfile (the build machine's CA
//      certificates passed through deploy/compose/certs/);
//   4. the NATS users (`npm run nats:config -- --out .data/nats-users --with-stack`: the services'
//      seeds and the "stack" user the seeding signs in as), a throw-away env file with random
//      secrets, `compose up -d`, waits for every container to be healthy;
//   5. the demo data (tools/stack/src/compose-seed.ts), the README's curl walkthrough against the
//      gateway, the payment gateway's signed notification, the order paid and its confirmation
//      e-mail read from the mail catcher's HTTP API;
//   6. `compose restart checkout`: the order is still there and paid; PostgreSQL stopped 15 s and
//      started: every container healthy again without a manual step;
//   7. figures per service: image size, RSS idle and after a submit load (orders placed and paid
//      through the gateway), container start -> /readyz on an empty schema with a read-only root
//      filesystem, each printed against its target (reported, not asserted: speed and memory
//      targets belong in the bench) and written to bench/results.json ("containers"); a wrong
//      DATABASE_URL / NATS_URL exits non-zero naming the variable (asserted);
//   8. `compose down -v`: no container, network or volume of the project left.
// Every step prints its time; a failing step prints the logs of the containers. Cleans up on
// failure too. Exits 0 when every check passed.
//
// Environment: SMOKE_OFFLINE=1 skips the pulls (stand-ins at once); SMOKE_KEEP=1 leaves the stack
// up (no step 8); NODE_IMAGE / POSTGRES_IMAGE / NATS_IMAGE / MAIL_IMAGE pick the images.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  SERVICES,
  api,
  buildServiceImages,
  composeCommand,
  composeProject,
  docker,
  engineVersion,
  freePort,
  installDocker,
  must,
  natsSeed,
  natsUsers,
  paidNotificationForm,
  root,
  run,
  seconds,
  signIn,
  sleep,
  stackSecrets,
  startDockerd,
  thirdPartyImages,
  withBuildMachineCAs,
  writeEnvFile,
} from './docker-kit.mjs';

const SCHEMAS = { gateway: 'identity', checkout: 'checkout', b2b: 'b2b', vendor: 'vendor', admin: 'admin', notifier: 'notifier' };
const DEMO_PASSWORD = 'pasar-demo-2026';
const project = `pasar-smoke-${randomBytes(3).toString('hex')}`;
const tag = `smoke-${randomBytes(3).toString('hex')}`;
const started = Date.now();
const failures = [];
const timings = [];
const cleanups = [];
const say = (line) => console.log(`compose-smoke: ${line}`);
const check = (ok, what) => {
  say(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
  return ok;
};
async function step(name, fn) {
  const t0 = Date.now();
  say(`── ${name}`);
  try {
    return await fn();
  } finally {
    const ms = Date.now() - t0;
    timings.push({ step: name, ms });
    say(`   ${name}: ${seconds(ms)}`);
  }
}

// ------------------------------------------------------------------ docker and compose
let composeCmd; // [cmd, ...prefixArgs]
let compose; // the compose project (docker-kit composeProject)
let startedDaemon; // the dockerd started here: { pid, stop() }

async function ensureEngine() {
  const version = await engineVersion();
  if (version) {
    say(`the Docker engine answers (${version})`);
  } else {
    await installDocker(say);
    const logFile = join(tmpdir(), `${project}-dockerd.log`);
    say(`starting dockerd (log ${logFile})`);
    startedDaemon = await startDockerd(logFile);
  }
  composeCmd = await composeCommand();
  say(`compose: ${composeCmd.join(' ')}`);
  compose = composeProject({ compose: composeCmd, project, envFile, files: [join(root, 'docker-compose.yml'), join(root, 'deploy/compose/smoke.yml')], say });
}

async function stopStartedDaemon() {
  if (!startedDaemon) return;
  say(`stopping the dockerd started here (pid ${startedDaemon.pid})`);
  await startedDaemon.stop();
}

// ------------------------------------------------------------------ images
let images;

async function ensureThirdPartyImages() {
  images = await thirdPartyImages({ offline: /^(1|true|yes)$/i.test(process.env.SMOKE_OFFLINE ?? ''), say, echo: true });
}

// ------------------------------------------------------------------ the stack
const workDir = mkdtempSync(join(tmpdir(), `${project}-`));
cleanups.push(() => rmSync(workDir, { recursive: true, force: true }));
const env = stackSecrets();
const envFile = join(workDir, 'smoke.env');
let composeStarted = false; // the env file is written and compose has its variables

async function upAndWait() {
  const gatewayPort = await freePort(8080);
  const mailPort = await freePort(8025);
  const natsPort = await freePort(14222);
  writeEnvFile(envFile, env);
  compose.setEnv({ ...images, PASAR_TAG: tag, GATEWAY_PORT: String(gatewayPort), MAIL_UI_PORT: String(mailPort), SMOKE_NATS_PORT: String(natsPort) });
  composeStarted = true;
  cleanups.unshift(async () => {
    if (/^(1|true|yes)$/i.test(process.env.SMOKE_KEEP ?? '')) return say(`SMOKE_KEEP: the stack ${project} stays up (${composeCmd.join(' ')} -p ${project} down -v)`);
    await compose.run(['down', '-v', '--remove-orphans', '--timeout', '20']);
  });
  // docker-compose v1 gives up on `up` when a dependency is not healthy yet (a slow start on a busy
  // machine); the containers keep starting, so `up` again until it goes through
  const deadline = Date.now() + 8 * 60_000;
  for (;;) {
    const up = await compose.run(['up', '-d', '--no-build'], { timeoutMs: 10 * 60_000 });
    if (up.code === 0) break;
    if (Date.now() > deadline) throw new Error(`compose up failed:\n${up.out.trim().split('\n').slice(-20).join('\n')}`);
    say(`compose up: ${up.out.trim().split('\n').filter((line) => /ERROR|unhealthy/i.test(line)).join('; ')}; up again in 10 s`);
    await sleep(10_000);
  }
  await compose.waitHealthy({ what: 'compose up', timeoutMs: 5 * 60_000 });
  return { gateway: `http://127.0.0.1:${gatewayPort}`, mail: `http://127.0.0.1:${mailPort}`, nats: `nats://127.0.0.1:${natsPort}`, gatewayPort };
}

// ------------------------------------------------------------------ the walkthrough
function readmeWalkthrough() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('### Try it with curl')));
  if (!block) throw new Error('README.md has no ```sh block under "### Try it with curl"');
  return block[1];
}

/** The payment gateway's signed notification that `order` ({ shortId, total, tranID? }) is paid. */
function notifyPaid(urls, order) {
  const form = paidNotificationForm(env, order, order.tranID ?? `SMOKE${randomBytes(6).toString('hex')}`);
  return api(`${urls.gateway}/api/v1/payments/notify`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }, 15_000);
}

async function walkthrough(urls) {
  const seed = await run('npx', ['tsx', 'tools/stack/src/compose-seed.ts'], {
    env: { NATS_URL: urls.nats, NATS_NKEY_SEED: natsSeed('stack'), GATEWAY_URL: urls.gateway, ADMIN_EMAIL: env.ADMIN_EMAIL, ADMIN_PASSWORD: env.ADMIN_PASSWORD, DEMO_PASSWORD },
    timeoutMs: 180_000,
  });
  if (!check(seed.code === 0, 'the demo data is seeded through the stack (tools/stack/src/compose-seed.ts)')) throw new Error(seed.out);

  const script = `${readmeWalkthrough().replaceAll('localhost:8080', `127.0.0.1:${urls.gatewayPort}`)}\necho "SMOKE_ORDER=$ORDER"\n`;
  const dir = mkdtempSync(join(workDir, 'walk-'));
  const walk = await run('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: dir, timeoutMs: 120_000 });
  const orderId = /SMOKE_ORDER=([0-9a-f-]{36})/.exec(walk.out)?.[1];
  const lines = walk.out.trim().split('\n');
  let order;
  try {
    order = JSON.parse(lines.at(-2) ?? '');
  } catch {
    // reported below
  }
  if (!check(walk.code === 0 && Boolean(orderId) && order?.status === 'pending_payment', `the README walkthrough runs as written: order ${order?.shortId} placed, ${order?.status} (production: a real payment page)`)) {
    console.log(walk.out);
    throw new Error('the walkthrough failed');
  }

  const notify = await notifyPaid(urls, order);
  check(notify.status === 200, `the payment notification (signed with the .env's secret key) is accepted (${notify.status} ${notify.text.slice(0, 80)})`);

  const cookie = await signIn(`${urls.gateway}/api/v1`, 'customer@pasar.local', DEMO_PASSWORD);
  const paid = await api(`${urls.gateway}/api/v1/account/orders/${orderId}`, { headers: { cookie } });
  check(paid.json?.status === 'paid', `the order reads back as paid (${paid.json?.status})`);

  // the confirmation e-mail in the mail catcher (Mailpit's API, or the stand-in's)
  let mail;
  for (let i = 0; i < 60 && !mail; i++) {
    const list = await api(`${urls.mail}/api/v1/messages`);
    mail = list?.json?.messages?.find((m) => m.Subject?.includes(order.shortId) && m.To?.some((to) => to.Address === 'customer@pasar.local'));
    if (!mail) await sleep(1000);
  }
  check(Boolean(mail), `the confirmation e-mail reached the mail catcher: "${mail?.Subject}" to customer@pasar.local`);
  if (mail) {
    const body = await api(`${urls.mail}/api/v1/message/${mail.ID}`);
    check(String(body.json?.Text ?? '').includes(order.shortId), 'the e-mail body names the order');
  }
  return { orderId, shortId: order.shortId, cookie };
}

async function restartCheckout(urls, placed) {
  await compose.must(['restart', 'checkout'], { timeoutMs: 120_000 });
  await compose.waitHealthy({ what: 'after the restart', timeoutMs: 120_000, only: ['checkout', 'gateway'] });
  let after;
  for (let i = 0; i < 30; i++) {
    after = await api(`${urls.gateway}/api/v1/account/orders/${placed.orderId}`, { headers: { cookie: placed.cookie } });
    if (after?.status === 200) break;
    await sleep(1000);
  }
  check(after?.json?.status === 'paid' && after?.json?.shortId === placed.shortId, `after \`restart checkout\` the order ${placed.shortId} is still there and paid (${after?.status} ${after?.json?.status})`);
}

/**
 * PostgreSQL stopped for 15 s, then started: every service becomes healthy again by itself (those
 * that exited are started again by their restart policy) and the order reads back, no manual step.
 */
async function databaseAway(urls, placed) {
  await compose.must(['stop', 'postgres'], { timeoutMs: 120_000 });
  await sleep(15_000);
  await compose.must(['start', 'postgres'], { timeoutMs: 120_000 });
  const t0 = Date.now();
  await compose.waitHealthy({ what: 'after PostgreSQL came back', timeoutMs: 180_000, runningIsEnough: ['mailpit'] });
  let after;
  for (let i = 0; i < 30; i++) {
    after = await api(`${urls.gateway}/api/v1/account/orders/${placed.orderId}`, { headers: { cookie: placed.cookie } });
    if (after?.status === 200) break;
    await sleep(1000);
  }
  check(after?.json?.status === 'paid', `PostgreSQL away 15 s: every container healthy again ${seconds(Date.now() - t0)} after it came back, the order reads back (${after?.status} ${after?.json?.status})`);
}

// ------------------------------------------------------------------ figures
async function network() {
  const out = await must(docker, ['network', 'ls', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Name}}']);
  return out.split('\n').find((name) => name.endsWith('_backend'));
}

function serviceEnv(app, overrides = {}) {
  const base = {
    NODE_ENV: 'production',
    PORT: String(SERVICES[app]),
    NATS_URL: 'nats://nats:4222',
    NATS_NKEY_SEED: natsSeed(app),
    IDENTITY_SECRET: env.IDENTITY_SECRET,
    MIGRATE_ON_START: 'true',
    LOG_LEVEL: 'warn',
    // an empty schema: the probe applies every migration, as a first start does
    DATABASE_URL: `postgresql://postgres:${env.POSTGRES_PASSWORD}@postgres:5432/pasar?schema=probe_${SCHEMAS[app]}`,
  };
  const own = {
    gateway: { ADMIN_EMAIL: env.ADMIN_EMAIL, ADMIN_PASSWORD: env.ADMIN_PASSWORD, METRICS_PORT: '9464' },
    checkout: { PAYMENT_MOCK: 'false', PAYMENT_MERCHANT_ID: env.PAYMENT_MERCHANT_ID, PAYMENT_VERIFY_KEY: env.PAYMENT_VERIFY_KEY, PAYMENT_SECRET_KEY: env.PAYMENT_SECRET_KEY },
    admin: { LABEL_SIGNING_KEY: env.LABEL_SIGNING_KEY },
    notifier: { SMTP_URL: 'smtp://mailpit:1025' },
  }[app];
  return { ...base, ...own, ...overrides };
}

const envArgs = (vars) => Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
const readOnlyArgs = ['--read-only', '--tmpfs', '/tmp', '--tmpfs', '/app/.data:uid=1000,gid=1000'];

/** Container start -> /readyz 200 on an empty schema (migrations applied), read-only root filesystem. */
async function startTime(app, net) {
  const name = `${project}-probe-${app}`;
  const t0 = Date.now();
  await must(docker, ['run', '-d', '--init', '--name', name, '--network', net, ...readOnlyArgs, ...envArgs(serviceEnv(app)), `pasar-${app}:${tag}`]);
  try {
    while (Date.now() - t0 < 60_000) {
      if ((await run(docker, ['exec', name, 'bash', 'dist/healthcheck.sh'], { timeoutMs: 10_000 })).code === 0) return Date.now() - t0;
      const state = (await run(docker, ['inspect', '--format', '{{.State.Status}}', name])).out.trim();
      if (state !== 'running') break;
      await sleep(250);
    }
    const logs = await run(docker, ['logs', '--tail', '40', name]);
    throw new Error(`${app} (read-only) did not answer /readyz within 60 s:\n${logs.out}`);
  } finally {
    await run(docker, ['rm', '-f', name]);
  }
}

/** A wrong dependency URL: the service exits non-zero within 60 s with a line naming the variable. */
async function faultExit(app, net, variable, value) {
  const name = `${project}-fault-${app}-${variable.toLowerCase()}`;
  const t0 = Date.now();
  await must(docker, ['run', '-d', '--init', '--name', name, '--network', net, ...readOnlyArgs, ...envArgs(serviceEnv(app, { [variable]: value })), `pasar-${app}:${tag}`]);
  try {
    const waited = await run(docker, ['wait', name], { timeoutMs: 75_000 });
    const ms = Date.now() - t0;
    const code = Number(waited.out.trim());
    const logs = (await run(docker, ['logs', name])).out.trim();
    const named = logs.split('\n').filter((line) => line.includes(variable));
    check(waited.code === 0 && code !== 0 && ms < 60_000 && named.length > 0, `${app} with a wrong ${variable} exits ${code} after ${seconds(ms)}, saying: ${named[0]?.slice(0, 200) ?? logs.slice(-300)}`);
  } finally {
    await run(docker, ['rm', '-f', name]);
  }
}

/** Each service's node process's resident set size (MiB), read with `docker top`. */
async function rssByService(all) {
  const rss = {};
  for (const app of Object.keys(SERVICES)) {
    const container = all.find((c) => c.service === app);
    // docker top needs the pid column in its ps options
    const top = await must(docker, ['top', container.id, '-eo', 'pid,rss,args']);
    // the node process itself, not the init (docker-init -- node dist/main.js) in front of it
    const rssKb = top.split('\n').map((line) => line.trim().split(/\s+/)).filter(([, , cmd, ...args]) => /(^|\/)node$/.test(cmd ?? '') && args.includes('dist/main.js')).map(([, value]) => Number(value))[0];
    rss[app] = Math.round((rssKb / 1024) * 10) / 10;
  }
  return rss;
}

const LOAD_ORDERS = Number(process.env.SMOKE_LOAD_ORDERS ?? 300);
const SETTLE_MS = Number(process.env.SMOKE_SETTLE_S ?? 30) * 1000;

/**
 * LOAD_ORDERS orders placed and paid through the gateway, 8 at a time, by the demo customer: a
 * submit load that reaches every service (checkout, vendor's shipments, the notifier's e-mails).
 * Answers other than 201 and 200 are counted and fail the smoke.
 */
async function submitLoad(urls, placed) {
  const headers = { cookie: placed.cookie, 'content-type': 'application/json' };
  const addresses = await api(`${urls.gateway}/api/v1/account/addresses`, { headers });
  const addressId = addresses.json?.find?.((a) => a.is_default)?.id;
  // the demo products without variants, most stock first: one unit each, spread over them
  const listed = (await api(`${urls.gateway}/api/v1/catalog/products?limit=50`)).json?.products ?? [];
  const products = [];
  for (const product of listed) {
    const detail = await api(`${urls.gateway}/api/v1/catalog/products/${product.id}`);
    if (!detail.json?.variants?.length && product.stock > 0) products.push({ id: product.id, left: product.stock });
  }
  const capacity = products.reduce((sum, p) => sum + p.left, 0);
  if (!addressId || capacity < LOAD_ORDERS) throw new Error(`submit load: need an address and ${LOAD_ORDERS} units in stock (address ${addressId}, ${capacity} units)`);
  const answers = {};
  const count = (what) => (answers[what] = (answers[what] ?? 0) + 1);
  let next = 0;
  const t0 = Date.now();
  // as a client should: a 503 (Retry-After) or 504 is asked again, with the same Idempotency-Key
  // (submit) or the same transaction (the payment notification), up to five times
  const patiently = async (what, call) => {
    for (let attempt = 1; ; attempt++) {
      const res = await call();
      if (![0, 502, 503, 504].includes(res.status) || attempt === 5) {
        count(`${what} ${res.status}`);
        return res;
      }
      count(`${what} ${res.status} (asked again)`);
      await sleep(Math.min(Number(res.headers.get('retry-after') ?? 1), 5) * 1000);
    }
  };
  const worker = async () => {
    while (next < LOAD_ORDERS) {
      const n = next++;
      const product = products.find((p) => p.left > 0);
      product.left--;
      const body = JSON.stringify({ addressId, items: [{ productId: product.id, quantity: 1 }] });
      const submit = await patiently('submit', () => api(`${urls.gateway}/api/v1/checkout/submit`, { method: 'POST', headers: { ...headers, 'idempotency-key': `smoke-load-${tag}-${n}` }, body }));
      if (submit.status !== 201) continue;
      const order = await patiently('read', () => api(`${urls.gateway}/api/v1/account/orders/${submit.json.orderId}`, { headers }));
      if (order.status !== 200) continue;
      const fields = { shortId: order.json.shortId, total: order.json.total, tranID: `SMOKE${randomBytes(6).toString('hex')}` };
      await patiently('notify', () => notifyPaid(urls, fields));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const ms = Date.now() - t0;
  const bad = Object.entries(answers).filter(([what]) => !/ (200|201)$/.test(what) && !what.endsWith('(asked again)'));
  check(bad.length === 0, `submit load: ${LOAD_ORDERS} orders placed and paid through the gateway in ${seconds(ms)} (${Math.round(LOAD_ORDERS / (ms / 1000))} orders/s; answers ${JSON.stringify(answers)})`);
  return { orders: LOAD_ORDERS, seconds: Math.round(ms / 100) / 10 };
}

/** A target of the issue, printed as met or not; the figures are what the smoke reports, not what it asserts (timing and memory belong in `npm run bench`). */
function target(met, what) {
  say(`${met ? 'met    ' : 'NOT MET'} target: ${what}`);
  return met;
}

async function figures(urls, placed) {
  const net = await network();
  const rows = {};
  const all = await compose.containers();
  say(`idle for ${seconds(SETTLE_MS)}, then each service's resident memory`);
  await sleep(SETTLE_MS);
  const idle = await rssByService(all);
  const load = await submitLoad(urls, placed);
  say(`idle for ${seconds(SETTLE_MS)} after the load, then each service's resident memory`);
  await sleep(SETTLE_MS);
  const afterLoad = await rssByService(all);
  for (const app of Object.keys(SERVICES)) {
    const size = Number((await must(docker, ['image', 'inspect', '--format', '{{.Size}}', `pasar-${app}:${tag}`])).trim());
    rows[app] = { imageMB: Math.round(size / 1e5) / 10, idleRssMiB: idle[app], afterLoadRssMiB: afterLoad[app] };
  }
  // the container's memory as `docker stats` reports it (cgroup usage: RSS plus page cache)
  const stats = await must(docker, ['stats', '--no-stream', '--format', '{{.ID}} {{.MemUsage}}', ...Object.keys(SERVICES).map((app) => all.find((c) => c.service === app).id)]);
  for (const app of Object.keys(SERVICES)) {
    const line = stats.split('\n').find((l) => all.find((c) => c.service === app).id.startsWith(l.split(' ')[0]));
    const [amount, unit] = /([\d.]+)\s*([KMG]i?B)/.exec(line ?? '')?.slice(1) ?? [];
    rows[app].dockerStatsMiB = amount ? Math.round(Number(amount) * { KiB: 1 / 1024, MiB: 1, GiB: 1024 }[unit] * 10) / 10 : null;
  }
  for (const app of Object.keys(SERVICES)) {
    const id = all.find((c) => c.service === app).id;
    const readOnly = (await must(docker, ['inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', id])).trim();
    check(readOnly === 'true', `${app}: the compose container runs with a read-only root filesystem (ReadonlyRootfs ${readOnly})`);
  }
  // the probes share the stack's NATS users (the permissions are those of the stack's namespace), so
  // the stack's services stop first: a probe never takes a message meant for them
  await compose.must(['stop', ...Object.keys(SERVICES)], { timeoutMs: 180_000 });
  const baseSize = Number((await must(docker, ['image', 'inspect', '--format', '{{.Size}}', images.NODE_IMAGE])).trim());
  for (const app of Object.keys(SERVICES)) rows[app].startToReadyS = Math.round((await startTime(app, net)) / 100) / 10;
  console.log('');
  console.log(`  service    image MB   above base MB   idle RSS MiB   after load MiB   docker stats MiB   start -> /readyz (read-only fs)`);
  for (const [app, row] of Object.entries(rows)) {
    console.log(`  ${app.padEnd(10)} ${String(row.imageMB).padStart(8)}   ${String(Math.round((row.imageMB - baseSize / 1e6) * 10) / 10).padStart(13)}   ${String(row.idleRssMiB).padStart(12)}   ${String(row.afterLoadRssMiB).padStart(14)}   ${String(row.dockerStatsMiB).padStart(16)}   ${String(row.startToReadyS).padStart(6)} s`);
  }
  console.log(`  (base ${images.NODE_IMAGE}: ${(baseSize / 1e6).toFixed(1)} MB; after load: ${load.orders} orders placed and paid, then ${seconds(SETTLE_MS)} idle)\n`);
  const targets = {};
  for (const [app, row] of Object.entries(rows)) {
    const aboveBase = row.imageMB - baseSize / 1e6;
    targets[app] = {
      image: target(row.imageMB <= 300 && aboveBase <= 100, `${app}: image ${row.imageMB} MB <= 300 MB, ${Math.round(aboveBase * 10) / 10} MB <= 100 MB above the base`),
      idleRss: target(row.idleRssMiB <= 120, `${app}: idle RSS ${row.idleRssMiB} MiB <= 120 MiB`),
      afterLoadRss: target(row.afterLoadRssMiB <= 120, `${app}: RSS after the submit load ${row.afterLoadRssMiB} MiB <= 120 MiB`),
      startToReady: target(row.startToReadyS <= 10, `${app}: start -> /readyz ${row.startToReadyS} s <= 10 s (read-only root filesystem)`),
    };
  }
  await faultExit('checkout', net, 'DATABASE_URL', `postgresql://postgres:wrong-password@postgres:5432/pasar?schema=checkout`);
  await faultExit('vendor', net, 'NATS_URL', 'nats://no-such-nats:4222');
  return { base: { image: images.NODE_IMAGE, MB: Math.round(baseSize / 1e5) / 10 }, load, settleS: SETTLE_MS / 1000, services: rows, targetsMet: targets };
}

function writeResults(result) {
  const file = join(root, 'bench', 'results.json');
  let results = {};
  try {
    results = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // none yet
  }
  results.containers = { measuredAt: new Date().toISOString(), ...result };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  say(`figures written to bench/results.json ("containers")`);
}

async function downLeavesNothing() {
  const left = await compose.downAndLeftovers();
  cleanups.shift(); // the down above was the stack's cleanup
  check(!left.containers && !left.networks && !left.volumes, `\`compose down -v\` leaves no container, network or volume of ${project} (${JSON.stringify(left)})`);
}

// ------------------------------------------------------------------ main
let exitCode = 0;
try {
  await step('docker engine', ensureEngine);
  // the stand-ins' builds (apt, npm) need the build machine's CAs as much as the services' do
  await withBuildMachineCAs('compose-smoke', async () => {
    await step('third-party images', ensureThirdPartyImages);
    await step('build the six images', () => buildServiceImages({ tag, nodeImage: images.NODE_IMAGE, say }));
  });
  cleanups.push(async () => {
    await run(docker, ['image', 'rm', ...Object.keys(SERVICES).map((app) => `pasar-${app}:${tag}`)]);
  });
  await step('NATS users (npm run nats:config)', async () => say(await natsUsers()));
  const urls = await step('compose up, every container healthy', upAndWait);
  const placed = await step('README walkthrough to a paid order and its e-mail', () => walkthrough(urls));
  await step('restart checkout, the order is still there', () => restartCheckout(urls, placed));
  await step('PostgreSQL away and back, healthy without a manual step', () => databaseAway(urls, placed));
  const result = await step('figures: image size, RSS idle and after a submit load, start time, faults', () => figures(urls, placed));
  writeResults({ ...result, smokeSteps: timings.map((t) => ({ step: t.step, s: Math.round(t.ms / 100) / 10 })) });
  if (!/^(1|true|yes)$/i.test(process.env.SMOKE_KEEP ?? '')) await step('compose down -v leaves nothing', downLeavesNothing);
} catch (err) {
  check(false, err instanceof Error ? err.message : String(err));
  if (composeStarted) {
    const all = await compose.containers().catch(() => []);
    await compose.printLogs(all.filter((c) => c.health !== 'healthy' || c.restarts > 0).map((c) => c.service));
  }
} finally {
  for (const cleanup of cleanups) {
    try {
      await cleanup();
    } catch (err) {
      say(`cleanup: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  await stopStartedDaemon();
}
console.log('');
for (const t of timings) say(`${t.step.padEnd(55)} ${seconds(t.ms).padStart(8)}`);
if (failures.length) {
  say(`FAILED (${failures.length}) after ${seconds(Date.now() - started)}: ${failures.map((f) => f.split('\n')[0]).join('; ')}`);
  exitCode = 1;
} else {
  say(`passed in ${seconds(Date.now() - started)}`);
}
process.exit(exitCode);
