#!/usr/bin/env node
// `npm run cluster:chaos`: the production topology of deploy/compose/cluster.yml (three NATS
// JetStream nodes, streams at three replicas, two instances of every service, one PostgreSQL; the
// NATS users of `npm run nats:config -- --out .data/nats-users --with-stack` and a random route
// password) under a steady load of orders placed and paid through the gateway, while it breaks
// things:
//   1. stops the NATS node that leads the CHECKOUT stream, waits 20 s, starts it again;
//   2. kills one checkout and one vendor container with SIGKILL (their main process, from the
//      host) and lets the restart policy bring them back;
//   3. pauses PostgreSQL for 10 s (`docker pause`).
// Then it checks: every order answered 201 exists once; every paid order is paid, has exactly one
// shipment per sub-order (paid) and exactly one confirmation e-mail (the mail catcher's HTTP API);
// no stock oversold; 5xx per fault window (allowed only while PostgreSQL is paused); the time to
// recover after each fault. Always ends with `compose down -v`. Exits 0 when every check passed.
// Not in .ci/run (minutes of a loaded machine); run by hand or by the bench (docs/deploy.md "Cluster").
//
// Flags: --duration <s> (default 90, at least 85: the faults are at fixed times), --rate <orders/s>
// (default 10: what a two-core machine carries with margin, docs/deploy.md "Cluster"), --customers
// <n> (default 40: the orders go to them in turn), --tag <image tag> (the service images
// pasar-<app>:<tag>, built when missing; default cluster), --keep (leave the stack up), --no-faults
// (the load alone: what the machine carries without a 5xx), --logs <dir> (each container's log
// kept there, written before `down`, and failures.json: every 5xx classified by window, status,
// code, route and instance). NODE_IMAGE / POSTGRES_IMAGE / NATS_IMAGE / MAIL_IMAGE pick the
// third-party images; the pasar-local stand-ins when no registry answers.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  api,
  buildServiceImages,
  composeCommand,
  composeProject,
  docker,
  engineVersion,
  freePort,
  inspectContainers,
  must,
  natsSeed,
  natsUsers,
  paidNotificationForm,
  root,
  run,
  seconds,
  secret,
  signIn,
  sleep,
  stackSecrets,
  thirdPartyImages,
  withBuildMachineCAs,
  writeEnvFile,
} from './docker-kit.mjs';

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '90' },
    rate: { type: 'string', default: '10' },
    customers: { type: 'string', default: '40' },
    tag: { type: 'string', default: 'cluster' },
    keep: { type: 'boolean', default: false },
    logs: { type: 'string' },
    'no-faults': { type: 'boolean', default: false },
  },
});
const DURATION_S = Math.max(85, Number(flags.duration));
const RATE = Number(flags.rate);
const CUSTOMERS = Math.max(1, Number(flags.customers));
const TAG = flags.tag;
const FAULTS = { natsStopAt: 10, natsDownS: 20, killAt: 45, pauseAt: 62, pauseS: 10 };
const DEMO_PASSWORD = 'pasar-demo-2026';
const project = process.env.CHAOS_PROJECT ?? 'pasar-cluster';
const failures = [];
const say = (line) => console.log(`cluster-chaos: ${line}`);
const check = (ok, what) => {
  say(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
  return ok;
};

// ------------------------------------------------------------------ images and the stack
let images;

async function ensureImages() {
  await withBuildMachineCAs('cluster-chaos', async () => {
    images = await thirdPartyImages({ standInsFirst: true, say });
    await buildServiceImages({ tag: TAG, nodeImage: images.NODE_IMAGE, onlyMissing: true, say });
  });
}

const workDir = mkdtempSync(join(tmpdir(), `${project}-`));
// the routes between the NATS nodes authenticate with this (deploy/compose/cluster.yml)
const env = { ...stackSecrets(), NATS_ROUTE_PASSWORD: secret() };
const envFile = join(workDir, 'cluster.env');
// smoke.yml publishes the first NATS node on 127.0.0.1 for the demo seed (rpc)
const composeFiles = [join(root, 'docker-compose.yml'), join(root, 'deploy/compose/smoke.yml'), join(root, 'deploy/compose/cluster.yml')];
let composeCmd; // [cmd, ...prefixArgs]
let compose; // the compose project (docker-kit composeProject)

/**
 * service name -> { id, status, health, restarts, pid } of the project's containers. Once the
 * stack is up their ids are known (a container keeps its id through a restart, stop and start):
 * polled with `docker inspect` alone, so the script's own polling takes little of the machine
 * the drill measures.
 */
let containerIds;
async function containers() {
  const all = containerIds ? await inspectContainers(containerIds) : await compose.containers();
  return Object.fromEntries(all.map((c) => [c.service, c]));
}

const healthy = (c) => c && c.status === 'running' && (c.health === 'healthy' || c.health === 'none');

async function up() {
  const gatewayPort = await freePort(18080);
  const mailPort = await freePort(18025);
  const natsPort = await freePort(14322);
  writeEnvFile(envFile, env);
  compose.setEnv({ ...images, PASAR_TAG: TAG, GATEWAY_PORT: String(gatewayPort), MAIL_UI_PORT: String(mailPort), SMOKE_NATS_PORT: String(natsPort), RATE_LIMIT_PAYMENT_NOTIFY: '1000000/1m', COMPOSE_HTTP_TIMEOUT: '600', DOCKER_CLIENT_TIMEOUT: '600', CLUSTER_HEALTH_TIMEOUT: process.env.CLUSTER_HEALTH_TIMEOUT ?? '30s' });
  const t0 = Date.now();
  // a busy engine can time compose out while it creates containers: `up` again picks up from there
  for (let attempt = 1; ; attempt++) {
    // --no-deps: every container at once, without compose's wait for healthy dependencies (which
    // gives up on a busy machine); a service that starts before PostgreSQL or NATS answer exits and
    // its restart policy starts it again, and the loop below waits for all of them
    const result = await compose.run(['up', '-d', '--no-build', '--no-deps'], { timeoutMs: 20 * 60_000 });
    if (result.code === 0) break;
    if (attempt === 3) throw new Error(`compose up failed:\n${result.out.trim().split('\n').slice(-20).join('\n')}`);
    say(`compose up failed (attempt ${attempt}), again: ${result.out.trim().split('\n').at(-1)}`);
  }
  // the mail catcher only has to run: its healthcheck is not what is tested here (the logs of
  // what is not healthy are printed by the failure's report below)
  await compose.waitHealthy({ what: 'compose up', timeoutMs: 15 * 60_000, count: 16, runningIsEnough: ['mailpit'], intervalMs: 3000, logs: false });
  containerIds = (await compose.containers()).map((c) => c.id);
  say(`16 containers healthy in ${seconds(Date.now() - t0)} (gateway 127.0.0.1:${gatewayPort}, mail API 127.0.0.1:${mailPort})`);
  return { gateway: `http://127.0.0.1:${gatewayPort}/api/v1`, mail: `http://127.0.0.1:${mailPort}`, nats: `nats://127.0.0.1:${natsPort}`, gatewayRoot: `http://127.0.0.1:${gatewayPort}` };
}

async function psql(sql) {
  const { postgres } = await containers();
  return (await must(docker, ['exec', '-i', postgres.id, 'psql', '-U', 'postgres', '-d', 'pasar', '-At', '-F', '\t', '-v', 'ON_ERROR_STOP=1'], { input: sql })).trim();
}
const rows = (text) => (text ? text.split('\n').map((line) => line.split('\t')) : []);

/**
 * The CHECKOUT stream as the monitoring endpoint (/jsz) of a running NATS node sees it (of `only`
 * that node when given). Only the stream's leader knows whether its replicas are current.
 */
async function checkoutStream(only) {
  const all = await containers();
  for (const service of only ? [only] : ['nats', 'nats-2', 'nats-3']) {
    const c = all[service];
    if (!c || c.status !== 'running') continue;
    const res = await run(docker, ['exec', c.id, 'wget', '-q', '-O', '-', 'http://127.0.0.1:8222/jsz?accounts=true&streams=true&config=true'], { timeoutMs: 10_000 });
    if (res.code !== 0) continue;
    try {
      const jsz = JSON.parse(res.out);
      for (const account of jsz.account_details ?? []) {
        const stream = (account.stream_detail ?? []).find((s) => s.name === 'CHECKOUT');
        if (stream) return stream;
      }
    } catch {
      // not JSON yet
    }
  }
  return undefined;
}
const nodeService = (serverName) => ({ 'nats-1': 'nats', 'nats-2': 'nats-2', 'nats-3': 'nats-3' })[serverName];

// ------------------------------------------------------------------ the load
const loadStart = { at: 0 };
// { at (when the request was sent), status (0: no answer within 30 s), route, code (the problem's
// code, or the fetch error's cause code when nothing answered), requestId (the x-request-id the
// gateway answered with: the container logs of --logs name the instance that logged it) }
const errors = [];
/** A 5xx or no answer as `errors` keeps it (failureOf(res, route, sentAt)). */
const failureOf = (res, route, at) => ({
  at,
  status: res.status,
  route,
  code: res.status === 0 ? `no answer (${res.error})` : (res.json?.code ?? res.json?.type ?? 'none'),
  requestId: res.headers.get('x-request-id') ?? res.json?.requestId ?? undefined,
});
const answered = new Map(); // orderId -> { shortId, total, productId, key, paid, placedAt }
const refused = {}; // status -> count (4xx answers: insufficient stock when a product sells out)
const outcomes = new Map(); // Idempotency-Key -> 'placed' | 'refused' | 'no answer' (the submit's last word)

/** One customer's order: submit (retried with the same Idempotency-Key), then its payment notification (retried as the payment gateway does). */
async function oneOrder(urls, session, productId) {
  // session: { email, cookie, addressId } of the customer placing it
  const key = randomUUID();
  const body = JSON.stringify({ addressId: session.addressId, items: [{ productId, quantity: 1 }] });
  outcomes.set(key, 'no answer');
  let placed;
  for (let attempt = 0; attempt < 20 && !placed; attempt++) {
    const sentAt = Date.now();
    const res = await api(`${urls.gateway}/checkout/submit`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: session.cookie, 'idempotency-key': key }, body });
    if (res.status === 201) placed = res.json;
    else if (res.status >= 500 || res.status === 0) {
      errors.push(failureOf(res, 'POST /checkout/submit', sentAt));
      await sleep(1000);
    } else {
      refused[`${res.status} ${res.json?.code ?? ''}`.trim()] = (refused[`${res.status} ${res.json?.code ?? ''}`.trim()] ?? 0) + 1;
      outcomes.set(key, 'refused');
      return;
    }
  }
  if (!placed) return;
  outcomes.set(key, 'placed');
  const order = { shortId: placed.shortId, total: placed.total, productId, key, email: session.email, paid: false, placedAt: Date.now() };
  if (answered.has(placed.orderId)) order.duplicateAnswer = true;
  answered.set(placed.orderId, order);
  for (let attempt = 0; attempt < 30 && !order.paid; attempt++) {
    const sentAt = Date.now();
    const res = await api(`${urls.gateway}/payments/notify`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: paidNotificationForm(env, order, `CHAOS${order.shortId}`) });
    if (res.status === 200) order.paid = true;
    else {
      if (res.status >= 500 || res.status === 0) errors.push(failureOf(res, 'POST /payments/notify', sentAt));
      else refused[`notify ${res.status} ${res.json?.code ?? ''}`.trim()] = (refused[`notify ${res.status} ${res.json?.code ?? ''}`.trim()] ?? 0) + 1;
      await sleep(1000);
    }
  }
}

/** Sends `RATE` orders a second for DURATION_S, the products taken in turn; resolves when every order has its answers. */
async function load(urls, sessions, productIds) {
  const inFlight = [];
  loadStart.at = Date.now();
  const total = Math.round(RATE * DURATION_S);
  for (let i = 0; i < total; i++) {
    const due = loadStart.at + (i * 1000) / RATE;
    if (due > Date.now()) await sleep(due - Date.now());
    inFlight.push(oneOrder(urls, sessions[i % sessions.length], productIds[i % productIds.length]));
  }
  await Promise.all(inFlight);
}

// ------------------------------------------------------------------ the faults
const windows = []; // { name, start, end, recoveredMs: {...} }

/** The first order placed (201) that was sent after `since`: when the API answers again. */
async function firstOrderAfter(since, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const placed = [...answered.values()].filter((o) => o.placedAt > since).map((o) => o.placedAt);
    if (placed.length) return Math.min(...placed);
    await sleep(200);
  }
  return undefined;
}

async function natsLeaderFault() {
  const before = await checkoutStream();
  const leader = before?.cluster?.leader;
  const service = nodeService(leader);
  if (!check(Boolean(service) && before.config?.num_replicas === 3, `CHECKOUT stream: R${before?.config?.num_replicas}, leader ${leader} (replicas ${(before?.cluster?.replicas ?? []).map((r) => r.name).join(', ')})`)) return;
  const { [service]: node } = await containers();
  const win = { name: `NATS node ${leader} (CHECKOUT leader) stopped ${FAULTS.natsDownS} s`, start: Date.now() };
  windows.push(win);
  say(`fault 1: docker stop ${service} (${leader}, the CHECKOUT leader)`);
  await must(docker, ['stop', '-t', '0', node.id]);
  const stoppedAt = Date.now();
  let newLeaderAt;
  let newLeader;
  while (Date.now() - stoppedAt < FAULTS.natsDownS * 1000) {
    if (!newLeaderAt) {
      const now = await checkoutStream();
      if (now?.cluster?.leader && now.cluster.leader !== leader) {
        newLeaderAt = Date.now();
        newLeader = now.cluster.leader;
      }
    }
    await sleep(1000);
  }
  say(`fault 1: docker start ${service}`);
  await must(docker, ['start', node.id]);
  const startedAt = Date.now();
  let caughtUpAt;
  while (Date.now() - startedAt < 120_000 && !caughtUpAt) {
    const c = (await containers())[service];
    const seen = await checkoutStream();
    const stream = seen?.cluster?.leader ? await checkoutStream(nodeService(seen.cluster.leader)) : undefined;
    const back = stream?.cluster?.replicas?.find((r) => r.name === leader);
    if (healthy(c) && (stream?.cluster?.leader === leader || (back && back.current))) caughtUpAt = Date.now();
    else await sleep(1000);
  }
  win.end = caughtUpAt ?? Date.now();
  const firstOrder = await firstOrderAfter(stoppedAt);
  win.recovery = [
    `new CHECKOUT leader ${newLeader ?? '?'} after ${seconds(newLeaderAt && newLeaderAt - stoppedAt)}`,
    `first order placed after the stop: ${seconds(firstOrder && firstOrder - stoppedAt)}`,
    `${leader} back and caught up ${seconds(caughtUpAt && caughtUpAt - startedAt)} after its start`,
  ];
}

async function killFault() {
  const all = await containers();
  const win = { name: 'SIGKILL checkout + vendor (one instance each)', start: Date.now() };
  windows.push(win);
  for (const service of ['checkout', 'vendor']) {
    say(`fault 2: kill -9 the main process of ${service} (host pid ${all[service].pid})`);
    await must('kill', ['-KILL', String(all[service].pid)]);
  }
  const killedAt = Date.now();
  const back = {};
  while (Date.now() - killedAt < 180_000 && Object.keys(back).length < 2) {
    const now = await containers();
    for (const service of ['checkout', 'vendor']) {
      if (!back[service] && healthy(now[service]) && now[service].restarts > all[service].restarts) back[service] = Date.now();
    }
    await sleep(1000);
  }
  win.end = Object.keys(back).length === 2 ? Math.max(...Object.values(back)) : Date.now();
  const firstOrder = await firstOrderAfter(killedAt);
  win.recovery = [
    ...['checkout', 'vendor'].map((s) => `${s} restarted by its policy, healthy after ${seconds(back[s] && back[s] - killedAt)}`),
    `first order placed after the kill: ${seconds(firstOrder && firstOrder - killedAt)}`,
  ];
}

async function pauseFault() {
  const { postgres } = await containers();
  const win = { name: `PostgreSQL paused ${FAULTS.pauseS} s`, start: Date.now(), allows5xx: true };
  windows.push(win);
  say('fault 3: docker pause postgres');
  await must(docker, ['pause', postgres.id]);
  await sleep(FAULTS.pauseS * 1000);
  await must(docker, ['unpause', postgres.id]);
  const unpausedAt = Date.now();
  say('fault 3: docker unpause postgres');
  const firstOrder = await firstOrderAfter(unpausedAt);
  win.end = Math.max(firstOrder ?? Date.now(), unpausedAt) + 5000;
  win.recovery = [`first order placed after the unpause: ${seconds(firstOrder && firstOrder - unpausedAt)}`];
}

async function faults() {
  const at = (s) => sleep(Math.max(0, loadStart.at + s * 1000 - Date.now()));
  await at(FAULTS.natsStopAt);
  await natsLeaderFault();
  await at(FAULTS.killAt);
  await killFault();
  await at(FAULTS.pauseAt);
  await pauseFault();
}

// ------------------------------------------------------------------ setup and checks
async function setup(urls) {
  const seed = await run('npx', ['tsx', 'tools/stack/src/compose-seed.ts'], {
    // the load comes from many customers, as a shop's does: one customer's payments take its
    // points account in turn (tools/stack/src/seed.ts seedLoadCustomers)
    env: { NATS_URL: urls.nats, NATS_NKEY_SEED: natsSeed('stack'), GATEWAY_URL: urls.gatewayRoot, ADMIN_EMAIL: env.ADMIN_EMAIL, ADMIN_PASSWORD: env.ADMIN_PASSWORD, DEMO_PASSWORD, LOAD_CUSTOMERS: String(CUSTOMERS) },
    timeoutMs: 300_000,
  });
  if (!check(seed.code === 0, `the demo data and ${CUSTOMERS} customers are seeded (tools/stack/src/compose-seed.ts)`)) throw new Error(seed.out);
  const { loadCustomers } = JSON.parse(seed.out.trim().split('\n').at(-1));
  const sessions = [];
  for (const email of loadCustomers) {
    const cookie = await signIn(urls.gateway, email, DEMO_PASSWORD);
    const addresses = await api(`${urls.gateway}/account/addresses`, { headers: { cookie } });
    sessions.push({ email, cookie, addressId: (addresses.json ?? []).find((a) => a.is_default)?.id ?? addresses.json?.[0]?.id });
  }
  // checkout knows each customer (its user replica, by event): the confirmation e-mails go out at once
  const emails = loadCustomers.map((e) => `'${e}'`).join(',');
  let customerIds = [];
  for (let i = 0; i < 60 && customerIds.length < loadCustomers.length; i++) {
    customerIds = rows(await psql(`SELECT user_id FROM checkout.user_replica WHERE email IN (${emails});`)).map(([id]) => id);
    if (customerIds.length < loadCustomers.length) await sleep(1000);
  }
  // the demo's products without variants: one keeps plenty of stock, one a little (it sells out
  // under the load: the oversell check has something to check)
  const products = rows(await psql(`SELECT p.id FROM checkout.product p WHERE p.status = 'live' AND NOT EXISTS (SELECT 1 FROM checkout.product_variant v WHERE v.product_id = p.id) ORDER BY p.created_at LIMIT 2;`)).map(([id]) => id);
  if (products.length < 2) throw new Error('the demo data has fewer than two products without variants');
  const scarce = Math.max(10, Math.round((RATE * DURATION_S) / 10));
  await psql(`UPDATE checkout.product SET stock = ${RATE * DURATION_S * 2} WHERE id = '${products[0]}'; UPDATE checkout.product SET stock = ${scarce} WHERE id = '${products[1]}';`);
  const initialStock = Object.fromEntries(rows(await psql(`SELECT id, stock FROM checkout.product WHERE id IN ('${products.join("','")}');`)).map(([id, stock]) => [id, Number(stock)]));
  say(`${sessions.length} customers (${customerIds.length} known to checkout), products ${products.join(', ')} (stock ${products.map((p) => initialStock[p]).join(' / ')})`);
  return { sessions, products, initialStock, customerIds };
}

/** Every message id and subject the mail catcher has held (it keeps the newest 1000: read often). */
const mails = new Map();
async function readMail(urls) {
  const list = await api(`${urls.mail}/api/v1/messages`);
  for (const m of list.json?.messages ?? []) mails.set(m.ID, m);
}
function mailCollector(urls) {
  let stop = false;
  const done = (async () => {
    while (!stop) {
      await readMail(urls);
      await sleep(5000); // 1000 messages kept: 50 s of confirmations at 20 orders/s
    }
  })();
  return async () => {
    stop = true;
    await done;
    await readMail(urls);
  };
}
const confirmationsOf = (order) => [...mails.values()].filter((m) => m.Subject === `Order ${order.shortId} confirmed` && m.To?.some((t) => t.Address === order.email)).length;

async function verify(urls, ctx) {
  const placed = [...answered.entries()];
  const paid = placed.filter(([, o]) => o.paid);
  const ids = placed.map(([id]) => `'${id}'`).join(',') || `'00000000-0000-0000-0000-000000000000'`;
  const orderRows = () => psql(`SELECT o.id, o.status, (SELECT count(*) FROM checkout.sub_order s WHERE s.order_id = o.id), (SELECT count(*) FROM vendor.shipment sh WHERE sh.order_id = o.id), (SELECT count(*) FROM vendor.shipment sh WHERE sh.order_id = o.id AND sh.status = 'paid') FROM checkout."order" o WHERE o.id IN (${ids});`);
  // wait for the events to settle: every paid order paid, its shipments paid, its e-mail sent
  const t0 = Date.now();
  let byId = new Map();
  while (Date.now() - t0 < 180_000) {
    await readMail(urls);
    byId = new Map(rows(await orderRows()).map(([id, status, subs, shipments, paidShipments]) => [id, { status, subs: Number(subs), shipments: Number(shipments), paidShipments: Number(paidShipments) }]));
    const settled = paid.every(([id, o]) => byId.get(id)?.status === 'paid' && byId.get(id).paidShipments === byId.get(id).subs && confirmationsOf(o) >= 1);
    if (settled) break;
    await sleep(3000);
  }
  say(`settled ${seconds(Date.now() - t0)} after the load`);
  await sleep(5000); // late duplicates would show now
  await readMail(urls);
  byId = new Map(rows(await orderRows()).map(([id, status, subs, shipments, paidShipments]) => [id, { status, subs: Number(subs), shipments: Number(shipments), paidShipments: Number(paidShipments) }]));

  const lost = placed.filter(([id]) => !byId.has(id)).length;
  const customers = `customer_id IN (${ctx.customerIds.map((id) => `'${id}'`).join(',')})`;
  // one order per Idempotency-Key (one customer's intent): a key with two orders, an order under a
  // key never sent, or a 201 naming another order than the one its key holds is a duplicate
  const ordersOfLoad = rows(await psql(`SELECT idempotency_key, id FROM checkout."order" WHERE ${customers} AND created_at >= to_timestamp(${loadStart.at / 1000});`));
  const ordersByKey = new Map();
  for (const [key, id] of ordersOfLoad) ordersByKey.set(key, [...(ordersByKey.get(key) ?? []), id]);
  const keyDuplicates = [...ordersByKey.values()].reduce((n, ids) => n + ids.length - 1, 0);
  const unknownKeys = [...ordersByKey.keys()].filter((key) => !outcomes.has(key)).length;
  const otherOrderAnswered = placed.filter(([id, o]) => ordersByKey.has(o.key) && !ordersByKey.get(o.key).includes(id)).length;
  const duplicatedOrders = keyDuplicates + unknownKeys + otherOrderAnswered;
  // submits that never had a final answer (20 attempts): how many of them the database holds anyway
  const noAnswer = [...outcomes.entries()].filter(([, outcome]) => outcome === 'no answer').map(([key]) => key);
  const noAnswerPlaced = noAnswer.filter((key) => ordersByKey.has(key)).length;
  const notifyGaveUp = placed.length - paid.length;
  const notPaid = paid.filter(([id]) => byId.get(id)?.status !== 'paid').length;
  const shipmentsWrong = paid.filter(([id]) => byId.get(id) && (byId.get(id).shipments !== byId.get(id).subs || byId.get(id).paidShipments !== byId.get(id).subs));
  const mailCounts = paid.map(([, o]) => confirmationsOf(o));
  const mailMissing = mailCounts.filter((n) => n === 0).length;
  const mailDuplicated = mailCounts.filter((n) => n > 1).length;
  const finalStock = Object.fromEntries(rows(await psql(`SELECT id, stock FROM checkout.product WHERE id IN ('${ctx.products.join("','")}');`)).map(([id, stock]) => [id, Number(stock)]));
  const heldByOrders = Object.fromEntries(rows(await psql(`SELECT i.product_id, sum(i.quantity) FROM checkout.order_item i JOIN checkout."order" o ON o.id = i.order_id WHERE o.${customers} AND o.created_at >= to_timestamp(${loadStart.at / 1000}) AND o.status NOT IN ('cancelled', 'expired', 'payment_failed') GROUP BY i.product_id;`)).map(([id, n]) => [id, Number(n)]));
  const oversold = ctx.products.filter((p) => finalStock[p] < 0 || ctx.initialStock[p] - finalStock[p] !== (heldByOrders[p] ?? 0));

  console.log('');
  say(`load: ${Math.round(RATE * DURATION_S)} orders sent at ${RATE}/s for ${DURATION_S} s; ${placed.length} answered 201, ${paid.length} paid; refused (4xx): ${JSON.stringify(refused)}`);
  check(lost === 0, `lost: ${lost} (orders answered 201 that are not in the database)`);
  check(duplicatedOrders === 0, `duplicated orders: ${duplicatedOrders} (${ordersOfLoad.length} orders of the customers in the database under ${ordersByKey.size} keys; ${keyDuplicates} second orders of a key, ${unknownKeys} under a key never sent, ${otherOrderAnswered} 201s naming another order than their key's)`);
  check(noAnswer.length === 0, `submits without a final answer after 20 attempts: ${noAnswer.length} (placed all the same: ${noAnswerPlaced}, each once)`);
  check(notifyGaveUp === 0, `placed orders whose payment notification never got its 200 (30 attempts): ${notifyGaveUp}`);
  check(notPaid === 0, `paid orders not paid in the database: ${notPaid}`);
  check(shipmentsWrong.length === 0, `paid orders without exactly one paid shipment per sub-order: ${shipmentsWrong.length}${shipmentsWrong.length ? ` (e.g. ${JSON.stringify(byId.get(shipmentsWrong[0][0]))})` : ''}`);
  check(mailMissing === 0 && mailDuplicated === 0, `confirmation e-mails: ${mailMissing} missing, ${mailDuplicated} duplicated (${mailCounts.filter((n) => n === 1).length} exactly once)`);
  for (const p of ctx.products) check(!oversold.includes(p), `stock of ${p}: ${ctx.initialStock[p]} -> ${finalStock[p]}, held by orders ${heldByOrders[p] ?? 0}: oversold ${oversold.includes(p) ? 'YES' : '0'}`);

  console.log('');
  const inWindow = (e, w) => e.at >= w.start && e.at <= (w.end ?? Date.now());
  for (const w of windows) {
    const n = errors.filter((e) => inWindow(e, w)).length;
    check(w.allows5xx || n === 0, `${w.name}: ${n} 5xx/unanswered (${seconds((w.end ?? Date.now()) - w.start)} window)${w.allows5xx ? ' (allowed)' : ''}`);
    for (const line of w.recovery ?? []) say(`     recovery: ${line}`);
  }
  const outside = errors.filter((e) => !windows.some((w) => inWindow(e, w))).length;
  report.verified = true;
  check(outside === 0, `outside the fault windows: ${outside} 5xx/unanswered`);
  say(`SUMMARY lost=${lost} duplicated=${duplicatedOrders + mailDuplicated} oversold=${oversold.length} 5xx=${errors.length} (${windows.map((w) => `${w.name.split(' (')[0]}: ${errors.filter((e) => inWindow(e, w)).length}`).join('; ')})`);
}

// ------------------------------------------------------------------ why the 5xx
const report = { verified: false };

/** Where a 5xx was answered: the containers whose log names its request id (the services log each 5xx with it), else the gateway itself. */
function instancesOf(requestId, logs) {
  if (!requestId) return 'unknown';
  const found = Object.entries(logs).filter(([service, text]) => service !== 'gateway' && text.includes(requestId)).map(([service]) => service);
  return found.length ? found.join('+') : logs.gateway?.includes(requestId) ? 'gateway' : 'unknown';
}

/**
 * Every 5xx and unanswered request classified: the fault window it was sent in (and when, from the
 * window's start) or "no fault", its status, the problem's code ("no answer (<socket error>)" when
 * nothing answered), route and the instance (from `logs`, service -> log text, when kept). Printed
 * as a table of counts; `file` (with --logs) gets every one of them.
 */
function reportFailures(logs, file) {
  const windowOf = (e) => windows.find((w) => e.at >= w.start && e.at <= (w.end ?? Number.POSITIVE_INFINITY));
  const classified = errors.map((e) => {
    const w = windowOf(e);
    return { window: w ? w.name.split(' (')[0] : 'no fault', sinceLoadStartS: +((e.at - loadStart.at) / 1000).toFixed(1), sinceFaultS: w ? +((e.at - w.start) / 1000).toFixed(1) : undefined, status: e.status, code: e.code, route: e.route, instance: instancesOf(e.requestId, logs), requestId: e.requestId };
  });
  const groups = new Map();
  for (const e of classified) {
    const key = [e.window, e.status, e.code, e.route, e.instance].join('\t');
    const at = e.sinceFaultS ?? e.sinceLoadStartS;
    const g = groups.get(key) ?? { ...e, count: 0, first: at, last: at };
    g.count += 1;
    g.first = Math.min(g.first, at);
    g.last = Math.max(g.last, at);
    groups.set(key, g);
  }
  if (groups.size) {
    console.log('');
    say(`the ${errors.length} 5xx/unanswered by window, status, code, route and instance (seconds after the fault's start; "no fault": after the load's start):`);
    for (const g of [...groups.values()].sort((a, b) => a.window.localeCompare(b.window) || b.count - a.count)) {
      say(`  ${String(g.count).padStart(5)}  ${g.window.padEnd(22)} ${String(g.status).padEnd(3)} ${g.code.padEnd(26)} ${g.route.padEnd(22)} ${g.instance.padEnd(12)} ${g.first}..${g.last} s`);
    }
  }
  if (file) writeFileSync(file, `${JSON.stringify({ rate: RATE, durationS: DURATION_S, faults: FAULTS, windows: windows.map((w) => ({ name: w.name, startS: (w.start - loadStart.at) / 1000, endS: w.end && (w.end - loadStart.at) / 1000, recovery: w.recovery })), failures: classified }, null, 2)}\n`);
}

// ------------------------------------------------------------------ main
const started = Date.now();
let upStarted = false;
try {
  if (!(await engineVersion())) throw new Error('no Docker engine answers (see README "With Docker")');
  composeCmd = await composeCommand();
  compose = composeProject({ compose: composeCmd, project, envFile, files: composeFiles, say });
  say(`project ${project}, ${RATE} orders/s for ${DURATION_S} s${flags['no-faults'] ? ', no faults' : ''}, images pasar-<app>:${TAG}`);
  await ensureImages();
  say(await natsUsers());
  upStarted = true;
  const urls = await up();
  const ctx = await setup(urls);
  const stopMail = mailCollector(urls);
  const loadDone = load(urls, ctx.sessions, ctx.products);
  if (!flags['no-faults']) await faults();
  await loadDone;
  await stopMail();
  await verify(urls, ctx);
} catch (err) {
  check(false, err instanceof Error ? err.message : String(err));
  if (upStarted) {
    const all = await containers().catch(() => ({}));
    for (const [service, c] of Object.entries(all)) {
      if (healthy(c) && c.restarts === 0) continue;
      const logs = await compose.run(['logs', '--no-color', '--tail', '30', service]);
      console.log(`\n${service} (${c.status}/${c.health}, restarts ${c.restarts}):\n${logs.out.trim().split('\n').map((l) => `  | ${l}`).join('\n')}`);
    }
  }
} finally {
  if (upStarted) {
    const logs = {};
    if (flags.logs) {
      mkdirSync(flags.logs, { recursive: true });
      for (const service of Object.keys(await containers().catch(() => ({})))) {
        logs[service] = (await compose.run(['logs', '--no-color', service])).out;
        writeFileSync(join(flags.logs, `${service}.log`), logs[service]);
      }
      say(`the containers' logs are in ${flags.logs}`);
    }
    if (report.verified) reportFailures(logs, flags.logs && join(flags.logs, 'failures.json'));
    if (flags.keep) say(`--keep: the stack stays up (${composeCmd.join(' ')} -p ${project} ... down -v)`);
    else {
      const down = await compose.run(['down', '-v', '--remove-orphans', '--timeout', '10'], { timeoutMs: 300_000 });
      say(`compose down -v: ${down.code === 0 ? 'done' : `failed: ${down.out.slice(-300)}`}`);
    }
  }
  if (!flags.keep) rmSync(workDir, { recursive: true, force: true });
}
console.log('');
say(failures.length ? `FAILED (${failures.length}) after ${seconds(Date.now() - started)}` : `passed in ${seconds(Date.now() - started)}`);
process.exit(failures.length ? 1 : 0);
