import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { baseDatabaseUrl, findOnPath, type Stack } from '@pasar/stack';
import { addAddress, liveProductBody, openStore, signUp, type OpenedStore, type Session } from '@pasar/stack';
import { createTestBus } from '@pasar/testkit';
import { Client } from 'pg';
import { cpuBetween, infrastructureBetween, profiledRound, readInfrastructure, readStack } from '../processes';
import { percentile, round } from '../stats';
import type { BenchContext, Scenario, ScenarioResult } from '../types';
import { LeanClient } from '../client';

const run = promisify(execFile);

// ---------------------------------------------------------------- shared with the event-lag scenario

/** A customer signed up through the gateway, with one address; `client` sends the measured requests. */
export interface Buyer {
  session: Session;
  addressId: string;
  client: LeanClient;
}

/** One lean keep-alive client per gateway for the measured requests (see LeanClient). */
const clients = new Map<string, LeanClient>();
export function gatewayClient(gatewayUrl: string): LeanClient {
  let client = clients.get(gatewayUrl);
  if (!client) clients.set(gatewayUrl, (client = new LeanClient(gatewayUrl)));
  return client;
}

/** Runs `worker(0..count-1)` with at most `concurrency` running at once; the results in index order. */
export async function inParallel<T>(count: number, concurrency: number, worker: (index: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await worker(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return results;
}

/** A store of its own on the bench stack (vendor through rpc, the rest through the gateway). */
export async function benchStore(stack: Stack, label: string, products: { name: string; basePrice: string; stock: number }[]): Promise<OpenedStore> {
  // a connection on the stack's namespace for the rpc calls; closing it leaves the streams alone
  const testBus = await createTestBus('bench', stack.namespace, stack.natsUrl);
  try {
    const suffix = randomUUID().slice(0, 8);
    return await openStore(testBus.bus, stack.gatewayUrl, {
      email: `${label}-vendor-${suffix}@bench.pasar.test`,
      password: `bench-${suffix}-password`,
      name: `Bench ${label} ${suffix}`,
      products: products.map((p) => liveProductBody(p)),
      flatRate: 8,
    });
  } finally {
    await testBus.bus.close();
  }
}

/** `count` customers signed up through the gateway (a few at a time: sign-up hashes a password), each with an address. */
export function signUpBuyers(stack: Stack, label: string, count: number): Promise<Buyer[]> {
  return inParallel(count, 8, async (i) => {
    const suffix = `${i}-${randomUUID().slice(0, 8)}`;
    const { session } = await signUp(stack.gatewayUrl, { email: `${label}-${suffix}@bench.pasar.test`, password: `bench-${suffix}-password`, fullName: `Bench buyer ${i}` });
    const addressId = await addAddress(session, {
      label: 'Home',
      full_name: `Bench buyer ${i}`,
      phone: '+60123456789',
      address_line_1: `${i}, Jalan Bench`,
      city: 'Kuala Lumpur',
      postcode: '50450',
      state: 'Wilayah Persekutuan',
    });
    return { session, addressId, client: gatewayClient(stack.gatewayUrl) };
  });
}

export interface TimedSubmit {
  status: number;
  /** The problem code of a refusal. */
  code?: string;
  orderId?: string;
  ms: number;
  /** performance.now() when the answer was read. */
  answeredAt: number;
}

/** One single-item submit through the gateway with a fresh Idempotency-Key, timed. */
export async function timedSubmit(buyer: Buyer, store: OpenedStore, productId: string): Promise<TimedSubmit> {
  const body = { addressId: buyer.addressId, items: [{ productId, quantity: 1 }], shippingMethodId: store.shippingMethodId };
  const started = performance.now();
  const answer = await buyer.client.call('POST', '/api/v1/checkout/submit', { cookie: buyer.session.cookie, body, headers: { 'idempotency-key': randomUUID() } });
  const answeredAt = performance.now();
  const json = (answer.json ?? {}) as { orderId?: string; code?: string };
  return { status: answer.status, code: json.code, orderId: json.orderId, ms: answeredAt - started, answeredAt };
}

/**
 * The first order of a store: the shipping method reaches checkout by event, and until it has, a
 * submit naming it answers 400 `shipping_method_unavailable` (writing nothing), so it is retried.
 */
export async function firstOrder(buyer: Buyer, store: OpenedStore, productId: string, timeoutMs = 30_000): Promise<TimedSubmit> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await timedSubmit(buyer, store, productId);
    if (answer.status === 201) return answer;
    if (answer.code !== 'shipping_method_unavailable' || Date.now() > deadline) throw new Error(`first submit answered ${answer.status} ${answer.code ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

/**
 * ANALYZE of every table of the stack's schemas, after a warm-up: a database in service has its
 * planner statistics (autovacuum analyzes a table within a minute of enough changes), while the
 * bench's schemas were empty a minute ago. Without it, a plan cached while a table was empty could
 * stay: e.g. the Idempotency-Key look-up on "order" by the (customer_id, created_at) index,
 * filtering every earlier order of the customer, instead of the unique (customer_id,
 * idempotency_key) one: about 0.3 ms per order more by the end of a round.
 */
export async function analyzeStack(stack: Stack): Promise<void> {
  const client = new Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(`SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = ANY($1)`, [
      Object.values(stack.schemas),
    ]);
    if (rows.length > 0) await client.query(`ANALYZE ${rows.map((r) => r.name).join(', ')}`);
  } finally {
    await client.end();
  }
}

export function latencySummary(samples: readonly number[]): LatencySummary {
  return {
    p50Ms: round(percentile(samples, 50)),
    p99Ms: round(percentile(samples, 99)),
    maxMs: round(samples.length ? samples.reduce((max, x) => (x > max ? x : max)) : Number.NaN), // no spread: a long run has more samples than the call stack
    meanMs: round(samples.reduce((a, b) => a + b, 0) / samples.length),
  };
}

/** The product's units as the catalog answers them. */
export async function stockOf(session: Session, productId: string): Promise<number> {
  const product = await session.call('GET', `/catalog/products/${productId}`);
  if (product.status !== 200) throw new Error(`GET /catalog/products/${productId} answered ${product.status}`);
  return (product.json as { stock: number }).stock;
}

// ---------------------------------------------------------------- checkout submit under contention

/** How the answers of a round split: 201s, refusals by code. */
export function tally(answers: readonly TimedSubmit[]): { created: number; refusals: Record<string, number> } {
  const refusals: Record<string, number> = {};
  let created = 0;
  for (const a of answers) {
    if (a.status === 201) {
      created += 1;
      continue;
    }
    const key = `${a.status} ${a.code ?? ''}`.trim();
    refusals[key] = (refusals[key] ?? 0) + 1;
  }
  return { created, refusals };
}

/** Every buyer submits one unit of its product, back to back, until `seconds` have passed. */
export async function timedRound(
  buyers: readonly Buyer[],
  store: OpenedStore,
  productFor: (buyerIndex: number) => string,
  seconds: number,
): Promise<{ answers: (TimedSubmit & { productId: string })[]; elapsedS: number }> {
  const answers: (TimedSubmit & { productId: string })[] = [];
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    buyers.map(async (buyer, index) => {
      const productId = productFor(index);
      while (performance.now() < end) answers.push({ ...(await timedSubmit(buyer, store, productId)), productId });
    }),
  );
  return { answers, elapsedS: (performance.now() - started) / 1000 };
}

/**
 * Submits at a steady rate instead of back to back: one every 1/`perSecond` s for `seconds`, the
 * buyers in turn, whatever the answers' pace (an open load: the same orders per second whatever
 * each costs). An arrival that finds `maxInFlight` submits unanswered is not sent but counted as
 * `shed`: the rate was more than the stack could serve. `elapsedS` runs until the last answer.
 * A submit that fails (no answer: the connection refused or cut) ends the round: nothing more is
 * sent, and once the submits in flight have settled the round rejects with that failure.
 */
export async function pacedRound(
  buyers: readonly Buyer[],
  store: OpenedStore,
  productFor: (buyerIndex: number) => string,
  perSecond: number,
  seconds: number,
  maxInFlight = buyers.length * 4,
): Promise<{ answers: (TimedSubmit & { productId: string })[]; elapsedS: number; shed: number }> {
  const answers: (TimedSubmit & { productId: string })[] = [];
  const waiting = new Set<Promise<void>>();
  const arrivals = Math.round(perSecond * seconds);
  let arrived = 0;
  let shed = 0;
  // held here, not left to reject a promise nobody awaits yet (that ends the process)
  let failure: { error: unknown } | undefined;
  const started = performance.now();
  while (arrived < arrivals && !failure) {
    const due = Math.min(arrivals, Math.floor(((performance.now() - started) / 1000) * perSecond) + 1);
    for (; arrived < due && !failure; arrived += 1) {
      if (waiting.size >= maxInFlight) {
        shed += 1;
        continue;
      }
      const index = arrived % buyers.length;
      const productId = productFor(index);
      const submit: Promise<void> = timedSubmit(buyers[index], store, productId)
        .then(
          (answer) => void answers.push({ ...answer, productId }),
          (error: unknown) => void (failure ??= { error }),
        )
        .finally(() => waiting.delete(submit));
      waiting.add(submit);
    }
    const nextAt = started + (arrived / perSecond) * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, nextAt - performance.now())));
  }
  await Promise.all(waiting);
  if (failure) throw failure.error;
  return { answers, elapsedS: (performance.now() - started) / 1000, shed };
}

/** Every buyer makes `attempts` submits of one unit, back to back. */
async function countedRound(buyers: readonly Buyer[], store: OpenedStore, productId: string, attempts: number): Promise<TimedSubmit[]> {
  const answers: TimedSubmit[] = [];
  await Promise.all(
    buyers.map(async (buyer) => {
      for (let i = 0; i < attempts; i += 1) answers.push(await timedSubmit(buyer, store, productId));
    }),
  );
  return answers;
}

/** pgbench in PATH, else the newest /usr/lib/postgresql/<version>/bin/pgbench. */
function findPgbench(): string | undefined {
  const onPath = findOnPath('pgbench');
  if (onPath) return onPath;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, 'bin', 'pgbench')).find((p) => existsSync(p));
}

export type PgbenchFigures =
  | { tps: number; script: 'simple-update'; scale: 1; clients: number; threads: 2; durationS: number; database: string }
  | { tps: null; reason: string };

/**
 * pgbench's builtin simple-update on a throwaway database of the same server: `pgbench -i -s 1`,
 * then `-b simple-update -c <clients> -j 2 -T <seconds>`; the database is dropped afterwards.
 */
async function pgbenchSimpleUpdate(stack: Stack, clients: number, seconds: number, log: (line: string) => void): Promise<PgbenchFigures> {
  const pgbench = findPgbench();
  if (!pgbench) return { tps: null, reason: 'pgbench not found on PATH nor under /usr/lib/postgresql/*/bin' };
  const psql = [join(dirname(pgbench), 'psql'), findOnPath('psql')].find((p) => p && existsSync(p));
  if (!psql) return { tps: null, reason: 'psql not found (needed to create the throwaway database)' };
  const server = baseDatabaseUrl(stack.databaseUrl);
  const database = `pgbench_${stack.namespace}`;
  const target = new URL(server);
  target.pathname = `/${database}`;
  const sql = (statement: string) => run(psql, [server, '-v', 'ON_ERROR_STOP=1', '-qAtc', statement]);
  try {
    await sql(`CREATE DATABASE "${database}"`);
    log(`pgbench -i -s 1 into ${database}`);
    await run(pgbench, ['-i', '-s', '1', '-q', target.toString()], { maxBuffer: 16 * 2 ** 20 });
    log(`pgbench -b simple-update -c ${clients} -j 2 -T ${seconds}`);
    const { stdout } = await run(pgbench, ['-b', 'simple-update', '-c', String(clients), '-j', '2', '-T', String(seconds), target.toString()], { maxBuffer: 16 * 2 ** 20 });
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout) ?? /tps = ([\d.]+)/.exec(stdout);
    if (!tps) return { tps: null, reason: `no tps in pgbench's output: ${stdout.slice(-300)}` };
    return { tps: round(Number(tps[1]), 1), script: 'simple-update', scale: 1, clients, threads: 2, durationS: seconds, database };
  } catch (err) {
    const detail = err instanceof Error ? `${err.message} ${(err as { stderr?: string }).stderr ?? ''}` : String(err);
    return { tps: null, reason: `pgbench failed: ${detail.trim().slice(0, 500)}` };
  } finally {
    await sql(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch((err: unknown) => log(`dropping ${database} failed: ${String(err)}`));
  }
}

const SELL_OUT_STOCK = 300;
const SELL_OUT_ATTEMPTS_PER_BUYER = 10;
const SPREAD_PRODUCTS = 50;
/** How long the event path may take to show every order's shipment after a round. */
const SHIPMENTS_WITHIN_MS = 180_000;
/**
 * Seconds of load on each of the two stores before anything is measured. The services take 4-6 s
 * of this load to reach their steady state on two busy cores (V8 compiles its optimised code on a
 * background thread, which gets little CPU while the load runs). The first 8 s on the hot product,
 * by 2 s: 424 orders/s at p99 305 ms, 537/s at 144 ms, then 721/s and 759/s at 104-107 ms. With a
 * 2 s warm-up the measured round still climbed from 454/s to 698/s. A round measures the steady
 * state, as gateway vs direct does after its 5 s.
 */
export const WARM_UP_S = 8;

/** Counts in the services' own schemas (read-only): what checkout wrote for a store and what vendor made of it. */
async function countsOf(stack: Stack, storeId: string): Promise<{ subOrders: number; shipments: number }> {
  const client = new Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const one = async (sql: string) => Number((await client.query<{ n: string }>(sql, [storeId])).rows[0].n);
    return {
      subOrders: await one(`SELECT count(*) AS n FROM "${stack.schemas.checkout}".sub_order WHERE store_id = $1`),
      shipments: await one(`SELECT count(*) AS n FROM "${stack.schemas.vendor}".shipment WHERE store_id = $1`),
    };
  } finally {
    await client.end();
  }
}

/**
 * Waits until vendor holds a shipment for every order the bench placed at the store, and checks
 * checkout's sub-orders are exactly those orders: a missing, duplicated or extra order fails the bench.
 */
export async function everyShipment(stack: Stack, storeId: string, placed: number): Promise<void> {
  const deadline = Date.now() + SHIPMENTS_WITHIN_MS;
  for (;;) {
    const counts = await countsOf(stack, storeId);
    if (counts.subOrders !== placed) throw new Error(`checkout holds ${counts.subOrders} sub-orders for the store, the bench placed ${placed}`);
    if (counts.shipments > placed) throw new Error(`vendor holds ${counts.shipments} shipments for ${placed} orders`);
    if (counts.shipments === placed) return;
    if (Date.now() > deadline) throw new Error(`only ${counts.shipments} of ${placed} shipments after ${SHIPMENTS_WITHIN_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A round's figures; throws when an order did not take exactly its unit (a fast wrong answer fails the bench). */
export function roundFigures(
  answers: readonly TimedSubmit[],
  elapsedS: number,
  decrement: number,
  cpu: { totalMs: number; byService: Record<string, number> },
  infrastructureMs: Record<string, number>,
) {
  const load = tally(answers);
  if (load.created === 0) throw new Error('no order was created');
  if (load.created !== decrement) throw new Error(`${load.created} orders created but the stock went down by ${decrement}`);
  return {
    durationS: round(elapsedS),
    submits: answers.length,
    created: load.created,
    refusals: load.refusals,
    ordersPerSecond: round(load.created / elapsedS, 1),
    ...latencySummary(answers.map((a) => a.ms)),
    stockDecrement: decrement,
    /** Process CPU time of every service over the round and until every shipment was readable. */
    cpuMs: cpu.totalMs,
    cpuMsByService: cpu.byService,
    cpuMsPerOrder: round(cpu.totalMs / load.created, 3),
    /** The same for PostgreSQL, NATS and the bench itself (the load generator): context, not the target's "all services". */
    infrastructureCpuMsPerOrder: Object.fromEntries(Object.entries(infrastructureMs).map(([name, ms]) => [name, round(ms / load.created, 3)])),
  };
}

/** `gateway 0.31, checkout 0.92, ...`: a round's CPU per order by service. */
export function perOrderByService(f: { created: number; cpuMsByService: Record<string, number>; infrastructureCpuMsPerOrder: Record<string, number> }): string {
  return [...Object.entries(f.cpuMsByService).map(([service, ms]) => `${service} ${round(ms / f.created, 2)}`), ...Object.entries(f.infrastructureCpuMsPerOrder).map(([name, ms]) => `(${name} ${round(ms, 2)})`)].join(', ');
}

/**
 * Issue 3's and 12's bench: `connections` distinct customers (signed up through the gateway, each
 * with an address) submit single-item orders back to back for `durationS`, first all on ONE hot
 * product, then each on its own of 50 products; each round's throughput, p50/p99 and the process
 * CPU time of every service per order (until the event path has made every order's shipment).
 * Then a sell-out round on a product of 300 units with 10 attempts per buyer, then pgbench's
 * simple-update on a throwaway database of the same server with the same client count, and the
 * ratios. Correctness is asserted, not just reported: every 201 took exactly one unit, nothing is
 * oversold, checkout's sub-orders and vendor's shipments equal the orders placed.
 */
export const checkoutSubmit: Scenario = {
  name: 'checkout-submit',
  title: 'POST /checkout/submit: concurrent buyers on one hot product and over 50 products',
  async run({ stack, settings, log }: BenchContext): Promise<ScenarioResult> {
    const store = await benchStore(stack, 'submit', [
      { name: 'Hot Kopi', basePrice: '10.00', stock: 1_000_000 },
      { name: 'Last Batch Kopi', basePrice: '10.00', stock: SELL_OUT_STOCK },
    ]);
    const spreadStore = await benchStore(
      stack,
      'spread',
      Array.from({ length: SPREAD_PRODUCTS }, (_, i) => ({ name: `Spread Kopi ${i + 1}`, basePrice: '10.00', stock: 1_000_000 })),
    );
    const [hot, sellOut] = store.productIds;
    log(`signing up ${settings.connections} buyers`);
    const buyers = await signUpBuyers(stack, 'submit', settings.connections);
    await firstOrder(buyers[0], store, hot);
    await firstOrder(buyers[0], spreadStore, spreadStore.productIds[0]);
    let placedAtStore = 1;
    let placedAtSpread = 1;
    log(`warm-up (${WARM_UP_S} s each)`);
    placedAtStore += tally((await timedRound(buyers, store, () => hot, WARM_UP_S)).answers).created;
    const spreadProductOf = (buyerIndex: number) => spreadStore.productIds[buyerIndex % SPREAD_PRODUCTS];
    placedAtSpread += tally((await timedRound(buyers, spreadStore, spreadProductOf, WARM_UP_S)).answers).created;
    await everyShipment(stack, store.storeId, placedAtStore);
    await everyShipment(stack, spreadStore.storeId, placedAtSpread);
    await analyzeStack(stack);

    log(`${buyers.length} buyers, one hot product, ${settings.durationS} s`);
    const stockBefore = await stockOf(store.vendor, hot);
    let cpuBefore = readStack(stack);
    let infrastructureBefore = readInfrastructure();
    const round1 = await profiledRound(stack, () => timedRound(buyers, store, () => hot, settings.durationS));
    placedAtStore += tally(round1.answers).created;
    await everyShipment(stack, store.storeId, placedAtStore);
    const hotCpu = cpuBetween(cpuBefore, readStack(stack));
    const hotInfrastructure = infrastructureBetween(infrastructureBefore, readInfrastructure());
    const stockAfter = await stockOf(store.vendor, hot);
    const throughput = roundFigures(round1.answers, round1.elapsedS, stockBefore - stockAfter, hotCpu, hotInfrastructure);
    log(`hot: ${throughput.ordersPerSecond} orders/s, p99 ${throughput.p99Ms} ms, cpu ms/order ${perOrderByService(throughput)}`);

    log(`${buyers.length} buyers over ${SPREAD_PRODUCTS} products, ${settings.durationS} s`);
    const spreadBefore = await Promise.all(spreadStore.productIds.map((id) => stockOf(spreadStore.vendor, id)));
    cpuBefore = readStack(stack);
    infrastructureBefore = readInfrastructure();
    const round2 = await profiledRound(stack, () => timedRound(buyers, spreadStore, spreadProductOf, settings.durationS));
    placedAtSpread += tally(round2.answers).created;
    await everyShipment(stack, spreadStore.storeId, placedAtSpread);
    const spreadCpu = cpuBetween(cpuBefore, readStack(stack));
    const spreadInfrastructure = infrastructureBetween(infrastructureBefore, readInfrastructure());
    const spreadAfter = await Promise.all(spreadStore.productIds.map((id) => stockOf(spreadStore.vendor, id)));
    spreadStore.productIds.forEach((id, i) => {
      const created = round2.answers.filter((a) => a.productId === id && a.status === 201).length;
      if (spreadBefore[i] - spreadAfter[i] !== created) throw new Error(`product ${i + 1}: ${created} orders but the stock went down by ${spreadBefore[i] - spreadAfter[i]}`);
    });
    const spread = roundFigures(round2.answers, round2.elapsedS, spreadBefore.reduce((a, b) => a + b, 0) - spreadAfter.reduce((a, b) => a + b, 0), spreadCpu, spreadInfrastructure);
    log(`spread: ${spread.ordersPerSecond} orders/s, p99 ${spread.p99Ms} ms, cpu ms/order ${perOrderByService(spread)}`);

    log(`sell-out: ${SELL_OUT_STOCK} units, ${buyers.length} x ${SELL_OUT_ATTEMPTS_PER_BUYER} attempts`);
    const round3 = await countedRound(buyers, store, sellOut, SELL_OUT_ATTEMPTS_PER_BUYER);
    const finalStock = await stockOf(store.vendor, sellOut);
    const outcome = tally(round3);
    placedAtStore += outcome.created;
    await everyShipment(stack, store.storeId, placedAtStore);
    const insufficient = outcome.refusals['400 insufficient_stock'] ?? 0;
    const sellOutFigures = {
      initialStock: SELL_OUT_STOCK,
      attempts: round3.length,
      sold: outcome.created,
      insufficientStock: insufficient,
      otherRefusals: round3.length - outcome.created - insufficient,
      finalStock,
      oversold: Math.max(0, outcome.created - SELL_OUT_STOCK),
      soldMinusDecrement: outcome.created - (SELL_OUT_STOCK - finalStock),
      ...latencySummary(round3.map((a) => a.ms)),
    };
    if (sellOutFigures.oversold !== 0 || sellOutFigures.soldMinusDecrement !== 0 || sellOutFigures.otherRefusals !== 0) {
      throw new Error(`sell-out is wrong: ${JSON.stringify(sellOutFigures)}`);
    }
    if (sellOutFigures.sold !== SELL_OUT_STOCK) throw new Error(`sell-out sold ${sellOutFigures.sold} of ${SELL_OUT_STOCK} units with more attempts than units`);

    const pgbench = await pgbenchSimpleUpdate(stack, settings.connections, settings.durationS, log);
    const ratio = pgbench.tps ? round(throughput.ordersPerSecond / pgbench.tps, 4) : null;
    const spreadRatio = pgbench.tps ? round(spread.ordersPerSecond / pgbench.tps, 4) : null;

    const scenario = 'checkout submit';
    const loadRow = (name: string, f: typeof throughput) => ({
      scenario,
      case: name,
      values: { 'req/s': f.ordersPerSecond, 'p50 ms': f.p50Ms, 'p99 ms': f.p99Ms, requests: f.submits, 'non-2xx': f.submits - f.created, 'cpu ms/order': f.cpuMsPerOrder },
    });
    return {
      rows: [
        loadRow(`${buyers.length} buyers, 1 hot product`, throughput),
        loadRow(`${buyers.length} buyers, ${SPREAD_PRODUCTS} products`, spread),
        {
          scenario,
          case: `sell-out ${SELL_OUT_STOCK} units`,
          values: { 'p50 ms': sellOutFigures.p50Ms, 'p99 ms': sellOutFigures.p99Ms, requests: sellOutFigures.attempts, sold: sellOutFigures.sold, oversold: sellOutFigures.oversold, 'insufficient stock': insufficient },
        },
        { scenario, case: 'pgbench simple-update', values: { 'req/s': pgbench.tps ?? 'n/a' } },
        { scenario, case: 'ratio hot/pgbench', values: { 'req/s': ratio ?? 'n/a' } },
        { scenario, case: `ratio ${SPREAD_PRODUCTS} products/pgbench`, values: { 'req/s': spreadRatio ?? 'n/a' } },
      ],
      data: { buyers: buyers.length, throughput, spread, sellOut: sellOutFigures, pgbench, ratioToPgbench: ratio, spreadRatioToPgbench: spreadRatio },
    };
  },
};
