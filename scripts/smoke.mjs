#!/usr/bin/env node
// The start smoke test (`npm run smoke`, run by .ci/run after `npm test`): what a new user does on
// a fresh clone after `npm install`.
//
//   1. `npm start` (the launcher) on free ports, in a throw-away NATS namespace and schema prefix
//      (dropped again on stop), so it never meets a stack already running on this machine;
//   2. waits for the start banner;
//   3. GET /api/v1/catalog/products answers 200 with the demo products;
//   4. runs the README's "Try it with curl" walkthrough as written (the gateway's address put in):
//      pick a product and variant, sign in, submit, pay (mock), read the order back as paid; with
//      the `curl -N` line of "Follow the order live" started in the background before the pay line
//      (the README's second terminal), which must print the snapshot, the payment and the order's
//      status paid, and, once step 4b ships the order, the shipment's status shipped;
//   4b. runs the README's "Vendor webhooks with curl" section as written: its one-line receiver
//      (on a free port instead of 9999), then its curl block (create an endpoint as the demo
//      vendor, send a test ping, ship the walkthrough's paid shipment), and checks that the
//      receiver got the ping and the shipped event, each with a `webhook-signature`;
//   5. sends ONE Ctrl-C (SIGINT to the process group, as a terminal does) and checks that the
//      launcher and every service stopped cleanly: exit code 0, each service logged its stop,
//      no "SIGINT again", nothing left on the gateway's port.
//
// Exits 0 when every check passed, 1 otherwise (with the stack's output). Environment:
// SMOKE_START_TIMEOUT (seconds, default 300), SMOKE_WALKTHROUGH=false skips steps 4 and 4b.
/* global setTimeout, clearTimeout, fetch, AbortSignal, URL */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICES = ['gateway', 'checkout', 'b2b', 'vendor', 'admin', 'notifier'];
/** The demo products of tools/stack/src/seed.ts. */
const DEMO_PRODUCTS = [
  'Kopi Tenom 500 g',
  'BOH Cameron Highlands Tea, 100 bags',
  'Cast Iron Wok 32 cm',
  'Malaysian Cookbook',
  'Sejarah Melayu (paperback)',
  'Hand-drawn Batik Sarong',
];
const startTimeoutMs = Number(process.env.SMOKE_START_TIMEOUT ?? 300) * 1000;
const stopTimeoutMs = 90_000;
const runWalkthrough = !/^(0|false|no|off)$/i.test(process.env.SMOKE_WALKTHROUGH ?? '');

const run = `smoke_${randomBytes(4).toString('hex')}`;
const output = [];
const failures = [];
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const say = (line) => console.log(`smoke: ${line}`);
const check = (ok, what) => {
  say(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
  return ok;
};

// ------------------------------------------------------------------ 1. npm start
const args = ['start', '--', '--free-ports', '--namespace', run, '--schema-prefix', run, '--drop-data-on-stop', '--no-color', '--timeout', String(startTimeoutMs / 1000)];
say(`npm ${args.join(' ')}`);
const child = spawn('npm', args, {
  cwd: root,
  // its own process group: the SIGINT below reaches npm and the launcher as a terminal's Ctrl-C does
  detached: true,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
});
const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
let exitedEarly;
void exited.then((exit) => (exitedEarly = exit));

const lineWaiters = [];
function collect(stream) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      output.push(line);
      for (const waiter of [...lineWaiters]) waiter(line);
    }
  });
}
collect(child.stdout);
collect(child.stderr);

function waitForLine(pattern, timeoutMs) {
  const found = output.find((line) => pattern.test(line));
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no line matching ${pattern} within ${timeoutMs / 1000} s`)), timeoutMs);
    const onLine = (line) => pattern.test(line) && done(undefined, line);
    const onExit = (exit) => done(new Error(`npm start ended (code ${exit.code}, signal ${exit.signal}) before a line matching ${pattern}`));
    function done(err, line) {
      clearTimeout(timer);
      lineWaiters.splice(lineWaiters.indexOf(onLine), 1);
      if (err) reject(err);
      else resolve(line);
    }
    lineWaiters.push(onLine);
    void exited.then(onExit);
  });
}

function sendCtrlC() {
  try {
    process.kill(-child.pid, 'SIGINT');
  } catch {
    // already gone
  }
}

function portAnswers(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The README's walkthrough: the first ```sh block after the "Try it with curl" heading. */
function readmeWalkthrough() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Try it with curl'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README.md has no ```sh block under "### Try it with curl"');
  return block[1];
}

/** The `curl -N` line of the ```sh block under the "Follow the order live" heading (the order's event stream). */
function readmeLiveStream() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('### Follow the order live');
  if (start < 0) throw new Error('README.md has no "### Follow the order live" section');
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start));
  const line = block?.[1].split('\n').find((l) => l.startsWith('curl -N'));
  if (!line) throw new Error('the "Follow the order live" section has no `curl -N` line');
  return line;
}

/**
 * The walkthrough with the live stream started in the background just before its pay line, as the
 * README's second terminal: its events go to `live.sse`, its pid to `live.pid`; the payment waits
 * until the stream's snapshot arrived (at most 10 s).
 */
function withLiveStream(walkthrough, streamLine) {
  const at = walkthrough.indexOf('\n# pay');
  if (at < 0) throw new Error('the README walkthrough has no "# pay" line to open the live stream before');
  const open = [
    `${streamLine} > live.sse 2> live.err &`,
    'echo $! > live.pid',
    "for _ in $(seq 100); do grep -q '^event: snapshot' live.sse && break; sleep 0.1; done",
  ].join('\n');
  return `${walkthrough.slice(0, at)}\n${open}${walkthrough.slice(at)}`;
}

/** What the live stream printed so far (empty before it started). */
function liveEvents(dir) {
  try {
    return readFileSync(join(dir, 'live.sse'), 'utf8');
  } catch {
    return '';
  }
}

/** Whether the stream printed an `event` whose data holds `fragment` (any when none). */
function sawEvent(text, event, fragment = '') {
  return text.split('\n\n').some((frame) => frame.split('\n').includes(`event: ${event}`) && frame.includes(fragment));
}

function stopLiveStream(dir) {
  try {
    process.kill(Number(readFileSync(join(dir, 'live.pid'), 'utf8').trim()), 'SIGTERM');
  } catch {
    // never started, or gone
  }
}

/** The ```sh blocks under the "Vendor webhooks with curl" heading: the receiver, then the curl walkthrough. */
function readmeWebhookBlocks() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('### Vendor webhooks with curl');
  if (start < 0) throw new Error('README.md has no "### Vendor webhooks with curl" section');
  const section = readme.slice(start, readme.indexOf('\n## ', start));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  if (blocks.length < 2) throw new Error('the "Vendor webhooks with curl" section needs two ```sh blocks (receiver, curl)');
  return { receiver: blocks[0], walkthrough: blocks[1] };
}

/** A port free on loopback now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Polls `done()` every 200 ms until it is true or `timeoutMs` passed; answers whether it became true. */
async function poll(done, timeoutMs) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (done()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return done();
}

/** Step 4b: the README's webhook section with its receiver; the checks of what the receiver printed. */
async function webhookWalkthrough(gatewayHost) {
  const blocks = readmeWebhookBlocks();
  const port = await freePort();
  const receiver = spawn('bash', ['-c', blocks.receiver.replaceAll('9999', String(port))], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const received = [];
  let receiverOut = '';
  receiver.stdout.setEncoding('utf8');
  receiver.stdout.on('data', (chunk) => {
    receiverOut += chunk;
    const lines = receiverOut.split('\n');
    receiverOut = lines.pop() ?? '';
    for (const line of lines) {
      try {
        received.push(JSON.parse(line));
      } catch {
        received.push({ unreadable: line });
      }
    }
  });
  receiver.stderr.on('data', (chunk) => output.push(`[receiver] ${chunk}`));
  const dir = mkdtempSync(join(tmpdir(), 'pasar-smoke-hooks-'));
  try {
    let listening = false;
    for (const until = Date.now() + 15_000; !listening && Date.now() < until; ) {
      listening = await portAnswers(port);
      if (!listening) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (!check(listening, `the README's one-line receiver listens (port ${port})`)) return;
    const script = blocks.walkthrough.replaceAll('localhost:8080', gatewayHost).replaceAll('127.0.0.1:9999', `127.0.0.1:${port}`);
    const walk = await runShell(script, dir);
    if (!check(walk.code === 0, `the README webhook walkthrough runs as written (exit ${walk.code})`)) console.log(walk.out);
    const eventOf = (message) => {
      try {
        return JSON.parse(message.body ?? '');
      } catch {
        return {};
      }
    };
    const signed = (message) => /^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$/.test(message.headers?.['webhook-signature'] ?? '') && /^msg_/.test(message.headers?.['webhook-id'] ?? '');
    const got = (type, status) => received.some((m) => signed(m) && eventOf(m).type === type && (!status || eventOf(m).data?.status === status));
    check(await poll(() => got('ping'), 20_000), 'the receiver got the test ping, with webhook-id and webhook-signature');
    check(await poll(() => got('shipment.status_changed', 'shipped'), 20_000), 'the receiver got the shipped event (shipment.status_changed, status shipped), with webhook-id and webhook-signature');
    if (failures.length) console.log(`smoke: the receiver printed:\n${received.map((m) => `  | ${JSON.stringify(m)}`).join('\n')}\n${walk.out}`);
  } finally {
    try {
      process.kill(-receiver.pid, 'SIGTERM');
    } catch {
      // gone
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function runShell(script, cwd) {
  return new Promise((resolve) => {
    const shell = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    shell.stdout.on('data', (c) => (out += c));
    shell.stderr.on('data', (c) => (out += c));
    shell.once('exit', (code) => resolve({ code, out }));
  });
}

let gatewayUrl;
try {
  // ---------------------------------------------------------------- 2. ready
  await waitForLine(/^Pasar is running/, startTimeoutMs + 60_000);
  const gatewayLine = await waitForLine(/^\s+gateway\s+http:\/\/\S+/, 5_000);
  gatewayUrl = /http:\/\/\S+/.exec(gatewayLine)[0];
  await waitForLine(/^Press Ctrl-C to stop\./, 10_000);
  check(true, `the stack is up at ${gatewayUrl} after ${elapsed()}`);
  check(output.some((line) => /^\s+product\s+[0-9a-f-]{36}\s/.test(line)) && output.some((line) => /^\s+variant\s+[0-9a-f-]{36}\s/.test(line)) && output.some((line) => /^\s+address\s+[0-9a-f-]{36}\s/.test(line)), 'the banner prints a demo product, its variant and the customer\'s address id');

  // ---------------------------------------------------------------- 3. the catalog
  const response = await fetch(`${gatewayUrl}/api/v1/catalog/products`, { signal: AbortSignal.timeout(10_000) });
  const body = await response.json().catch(() => undefined);
  check(response.status === 200, `GET /api/v1/catalog/products answers 200 (got ${response.status})`);
  const names = (body?.products ?? []).map((p) => p.name);
  const missing = DEMO_PRODUCTS.filter((name) => !names.includes(name));
  check(missing.length === 0, `the catalog lists the ${DEMO_PRODUCTS.length} demo products${missing.length ? ` (missing: ${missing.join(', ')})` : ''}`);

  // ---------------------------------------------------------------- 4. the README walkthrough
  if (runWalkthrough) {
    const script = withLiveStream(readmeWalkthrough(), readmeLiveStream()).replaceAll('localhost:8080', new URL(gatewayUrl).host);
    const dir = mkdtempSync(join(tmpdir(), 'pasar-smoke-'));
    try {
      const walk = await runShell(script, dir);
      const last = walk.out.trim().split('\n').at(-1) ?? '';
      let order;
      try {
        order = JSON.parse(last);
      } catch {
        // not JSON: reported below
      }
      if (!check(walk.code === 0 && order?.status === 'paid', `the README walkthrough runs as written and ends with the order paid (last line: ${last.slice(0, 160)})`)) {
        console.log(walk.out);
      }
      const paidLive = await poll(() => {
        const text = liveEvents(dir);
        return sawEvent(text, 'snapshot') && sawEvent(text, 'payment') && sawEvent(text, 'order.status', '"status":"paid"');
      }, 20_000);
      check(paidLive, "the README's curl -N stream, opened before the pay line, printed the snapshot, the payment and order.status paid");
      // ---------------------------------------------------------------- 4b. the README webhook section
      await webhookWalkthrough(new URL(gatewayUrl).host);
      const shippedLive = await poll(() => sawEvent(liveEvents(dir), 'shipment.status', '"status":"shipped"'), 20_000);
      check(shippedLive, "the README's curl -N stream printed shipment.status shipped when the vendor section shipped the order");
      if (!paidLive || !shippedLive) console.log(`smoke: the live stream printed:\n${liveEvents(dir)}`);
    } finally {
      stopLiveStream(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  } else {
    say('SMOKE_WALKTHROUGH=false: the README walkthroughs were not run');
  }
} catch (err) {
  check(false, err instanceof Error ? err.message : String(err));
}

// ------------------------------------------------------------------ 5. one Ctrl-C
if (!exitedEarly) {
  say('one Ctrl-C (SIGINT to the process group)');
  sendCtrlC();
}
const timer = setTimeout(() => {
  check(false, `npm start did not end within ${stopTimeoutMs / 1000} s of the Ctrl-C; killing it`);
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // gone
  }
}, stopTimeoutMs);
const exit = await exited;
clearTimeout(timer);
check(exit.code === 0, `npm start exited with code 0 (got ${exit.code ?? exit.signal})`);
check(!output.some((line) => /again: exiting now/.test(line)), 'one Ctrl-C was read as one (no "SIGINT again: exiting now")');
for (const name of SERVICES) {
  check(output.some((line) => new RegExp(`^\\[${name}\\]\\s+INFO\\s+${name} stopped$`).test(line)), `${name} logged its graceful stop ("${name} stopped")`);
}
check(!output.some((line) => /did not stop within|was killed by/.test(line)), 'no service had to be killed');
check(output.some((line) => /^\[stack\]\s+stopped$/.test(line)), 'the launcher logged "stopped"');
if (gatewayUrl) check(!(await portAnswers(Number(new URL(gatewayUrl).port))), 'nothing answers on the gateway port any more');

if (failures.length) {
  console.log('\nsmoke: the stack\'s output:\n' + output.map((line) => `  | ${line}`).join('\n'));
  console.log(`\nsmoke: FAILED (${failures.length}): ${failures.join('; ')}`);
  process.exit(1);
}
say(`passed in ${elapsed()}`);
