import { Agent, get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenedStore } from '@pasar/stack';
import { Client } from 'pg';
import { cpuBetween, infrastructureBetween, profiledRound, readInfrastructure, readProcess, readStack } from '../processes';
import { round } from '../stats';
import type { BenchContext, Scenario, ScenarioResult } from '../types';
import {
  analyzeStack,
  benchStore,
  everyShipment,
  firstOrder,
  gatewayClient,
  inParallel,
  latencySummary,
  roundFigures,
  signUpBuyers,
  stockOf,
  tally,
  timedRound,
  timedSubmit,
  WARM_UP_S,
  type Buyer,
} from './checkout-submit';

/** Streams open at once; FOLLOWED of them follow an order that is paid and shipped, the rest stay idle. */
const STREAMS = 1000;
const FOLLOWED = 200;
const BUYERS = 20;
/** Payments and shipments in flight at once. */
const IN_FLIGHT = 8;
const GIVE_UP_MS = 60_000;

interface Follower {
  orderId: string;
  buyer: Buyer;
  /** Date.now() when the `payment` and the `shipment.status` shipped events came. */
  paymentAt?: number;
  shippedAt?: number;
  /** Date.now() when the payment's and the ship's answers came (their transactions had committed). */
  paymentAnsweredAt?: number;
  shipAnsweredAt?: number;
  shipmentId?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Opens one order stream on `gatewayUrl` and calls `onFrame` with each event (name, data) as it
 * arrives; resolves once the snapshot came. Plain node:http: the bench holds a thousand of them.
 */
function openStream(agent: Agent, gatewayUrl: string, cookie: string, orderId: string, onFrame: (event: string, data: Record<string, unknown>) => void): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = get(`${gatewayUrl}/api/v1/account/orders/${orderId}/events`, { agent, headers: { cookie, accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream for ${orderId} answered ${response.statusCode}`));
      response.setEncoding('utf8');
      let buffer = '';
      let opened = false;
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!event || data === undefined) continue;
          onFrame(event, JSON.parse(data) as Record<string, unknown>);
          if (event === 'snapshot' && !opened) {
            opened = true;
            resolve(response);
          }
        }
      });
    });
    request.on('error', reject);
  });
}

/**
 * Where commit → event is measured from: the transaction's commit (pg_xact_commit_timestamp of the
 * outbox row's `xact`, with the server's `track_commit_timestamp` on), or else the row's
 * `created_at`, the writing transaction's start (the transaction's own duration counts too: an
 * upper bound).
 */
export type CommitClock = 'commit' | 'transaction start (upper bound)';

/** Whether the server records commit times (`track_commit_timestamp`; turning it on takes a restart). */
async function commitClockOf(stack: BenchContext['stack']): Promise<CommitClock> {
  const client = new Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ track_commit_timestamp: string }>('SHOW track_commit_timestamp');
    return rows[0]?.track_commit_timestamp === 'on' ? 'commit' : 'transaction start (upper bound)';
  } finally {
    await client.end();
  }
}

/** Where an event's commit → client time went: the whole, and its two legs split at the outbox row's `published_at` (when it was sent). */
interface EventLatencies {
  /** The commit (CommitClock) → the frame's arrival at the client. */
  commitToReceived: number[];
  /** The commit → published_at: the relay's pick-up, or the hand-over after the commit. */
  commitToSent: number[];
  /** published_at → arrival: JetStream, the gateway's feed and fan-out, the socket, the client. */
  sentToReceived: number[];
  /** The commit → the answer of the request that made the event: the answer's way back (context for commitToSent). */
  commitToAnswered: number[];
}

/** Each followed order's event latencies, from its outbox row of `type` and `receivedAt` of the order, measured from `clock`. */
async function eventLatencies(
  stack: BenchContext['stack'],
  clock: CommitClock,
  schema: string,
  type: string,
  extra: string,
  followers: readonly Follower[],
  receivedAt: (f: Follower) => number | undefined,
  answeredAt: (f: Follower) => number | undefined,
): Promise<EventLatencies> {
  const client = new Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const committed = clock === 'commit' ? 'pg_xact_commit_timestamp(xact::xid)' : 'created_at';
    const rows = await client.query<{ orderId: string; committed: Date | null; published: Date | null }>(
      `SELECT payload->'data'->>'orderId' AS "orderId", ${committed} AS committed, published_at AS published FROM "${schema}".outbox
       WHERE type = $1 ${extra} AND payload->'data'->>'orderId' = ANY($2::text[])`,
      [type, followers.map((f) => f.orderId)],
    );
    const byOrder = new Map(rows.rows.map((r) => [r.orderId, r]));
    const latencies: EventLatencies = { commitToReceived: [], commitToSent: [], sentToReceived: [], commitToAnswered: [] };
    for (const f of followers) {
      const at = receivedAt(f);
      const row = byOrder.get(f.orderId);
      if (at === undefined || !row) continue;
      if (!row.committed) throw new Error(`no ${clock} time for the ${type} row of order ${f.orderId}`);
      const from = row.committed.getTime();
      latencies.commitToReceived.push(at - from);
      const answered = answeredAt(f);
      if (answered !== undefined) latencies.commitToAnswered.push(answered - from);
      if (row.published) {
        latencies.commitToSent.push(row.published.getTime() - from);
        latencies.sentToReceived.push(at - row.published.getTime());
      }
    }
    return latencies;
  } finally {
    await client.end();
  }
}

/**
 * The unix socket of the gateway's memory probe (memory-probe-preload.cjs, preloaded by this
 * scenario's env): it answers the gateway's memory after a full garbage collection.
 */
const PROBE_SOCKET = join(tmpdir(), `pasar-bench-${process.pid}-gateway-memory.sock`);

/** The gateway's memory after a full garbage collection (its memory probe). */
function gatewayMemory(): Promise<{ rssKiB: number; heapUsedKiB: number }> {
  return new Promise((resolve, reject) => {
    const request = get({ socketPath: PROBE_SOCKET, path: '/' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve(JSON.parse(body) as { rssKiB: number; heapUsedKiB: number }));
    });
    request.on('error', (err) => reject(new Error(`the gateway's memory probe at ${PROBE_SOCKET} did not answer: ${err.message}`)));
  });
}

/** How much worse the submit figures may be with the streams open: 10 % (issue 26). */
export const SUBMIT_WITH_STREAMS_TARGET = 1.1;

type SubmitFigures = Pick<ReturnType<typeof roundFigures>, 'ordersPerSecond' | 'p50Ms' | 'p99Ms' | 'cpuMsPerOrder'>;

/**
 * The submit figures with the streams open against those without, measured before the streams
 * opened and after they closed (their mean: drift of the machine over the scenario falls on both
 * sides): each as a cost ratio (above 1 = worse with streams; throughput inverted), and whether
 * every one stays within the target.
 */
export function submitWithStreams(before: SubmitFigures, withStreams: SubmitFigures, after: SubmitFigures) {
  const mean = (key: keyof SubmitFigures) => (before[key] + after[key]) / 2;
  const ratios = {
    ordersPerSecond: round(mean('ordersPerSecond') / withStreams.ordersPerSecond, 4),
    p50Ms: round(withStreams.p50Ms / mean('p50Ms'), 4),
    p99Ms: round(withStreams.p99Ms / mean('p99Ms'), 4),
    cpuMsPerOrder: round(withStreams.cpuMsPerOrder / mean('cpuMsPerOrder'), 4),
  };
  return { costRatios: ratios, withinTarget: Object.values(ratios).every((r) => r <= SUBMIT_WITH_STREAMS_TARGET) };
}

/** The submit load of checkout-submit's hot round: every buyer submits one unit of `productId`, back to back, for `seconds`. */
async function submitRound(stack: BenchContext['stack'], store: OpenedStore, productId: string, buyers: readonly Buyer[], seconds: number, placed: { count: number }) {
  const stockBefore = await stockOf(store.vendor, productId);
  const cpuBefore = readStack(stack);
  const infrastructureBefore = readInfrastructure();
  const measured = await profiledRound(stack, () => timedRound(buyers, store, () => productId, seconds));
  placed.count += tally(measured.answers).created;
  await everyShipment(stack, store.storeId, placed.count);
  const cpu = cpuBetween(cpuBefore, readStack(stack));
  const infrastructure = infrastructureBetween(infrastructureBefore, readInfrastructure());
  return roundFigures(measured.answers, measured.elapsedS, stockBefore - (await stockOf(store.vendor, productId)), cpu, infrastructure);
}

/**
 * Issue 26's bench: 1,000 live order streams open on the gateway, 200 of them following an order
 * that is paid and then shipped while the other 800 stay idle. Commit → event at the client: from
 * the outbox row's commit (CommitClock: its transaction's commit time with track_commit_timestamp
 * on, else its created_at, the transaction's start, an upper bound) to the frame's arrival here,
 * for `payment` (checkout.order.paid) and `shipment.status` shipped; a stream that misses one
 * fails the scenario. It is split at the row's published_at (its send): sent → event is JetStream, the gateway's feed and
 * fan-out, the socket and this client. The gateway's memory per idle stream: read before and
 * after the 800 idle streams open, each after a full GC (the gateway's memory probe) and without
 * one. And checkout-submit's hot-product load (`connections` buyers, `durationS`) before the
 * streams open, while all 1,000 are open, and after they closed.
 */
export const liveStreams: Scenario = {
  name: 'live-streams',
  title: '1,000 open order streams, 200 following payment and shipping: commit → event, gateway RSS per idle stream',
  env: { gateway: { LIVE_MAX_STREAMS_PER_USER: String(STREAMS), NODE_OPTIONS: `--require ${join(__dirname, '..', 'memory-probe-preload.cjs')}`, BENCH_MEMORY_PROBE_SOCKET: PROBE_SOCKET } },
  async run({ stack, settings, log }: BenchContext): Promise<ScenarioResult> {
    const store = await benchStore(stack, 'live', [{ name: 'Live Kopi', basePrice: '12.00', stock: STREAMS + 10 }]);
    const [productId] = store.productIds;
    const submitStore = await benchStore(stack, 'live-submit', [{ name: 'Live Hot Kopi', basePrice: '10.00', stock: 1_000_000 }]);
    const [hot] = submitStore.productIds;
    log(`signing up ${BUYERS} customers and ${settings.connections} buyers for the submit load, placing ${STREAMS} orders`);
    const buyers = await signUpBuyers(stack, 'live', BUYERS);
    const submitters = await signUpBuyers(stack, 'live-submit', settings.connections);
    await firstOrder(buyers[0], store, productId);
    await firstOrder(submitters[0], submitStore, hot);
    const orders = await inParallel(STREAMS, IN_FLIGHT, async (i) => {
      const buyer = buyers[i % BUYERS];
      const placed = await timedSubmit(buyer, store, productId);
      if (placed.status !== 201 || !placed.orderId) throw new Error(`submit answered ${placed.status} ${placed.code ?? ''}`);
      return { orderId: placed.orderId, buyer };
    });

    // the submit load without streams (after checkout-submit's warm-up), with them open, and without again
    const placed = { count: 1 };
    log(`submit load: warm-up ${WARM_UP_S} s, then ${settings.durationS} s without streams`);
    placed.count += tally((await timedRound(submitters, submitStore, () => hot, WARM_UP_S)).answers).created;
    await everyShipment(stack, submitStore.storeId, placed.count);
    await analyzeStack(stack);
    const submitBefore = await submitRound(stack, submitStore, hot, submitters, settings.durationS, placed);
    log(`without streams: ${submitBefore.ordersPerSecond} orders/s, p50 ${submitBefore.p50Ms} ms, p99 ${submitBefore.p99Ms} ms, cpu ms/order ${submitBefore.cpuMsPerOrder}`);

    const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
    const responses: IncomingMessage[] = [];
    const gatewayPid = stack.services.gateway.pid as number;
    const rssKiB = () => (readProcess(gatewayPid)?.rssMiB ?? 0) * 1024;

    const followers: Follower[] = orders.slice(0, FOLLOWED).map((o) => ({ ...o }));
    log(`opening ${FOLLOWED} following streams`);
    await inParallel(FOLLOWED, 20, async (i) => {
      const follower = followers[i];
      responses.push(
        await openStream(agent, stack.gatewayUrl, follower.buyer.session.cookie, follower.orderId, (event, data) => {
          if (event === 'snapshot') follower.shipmentId = ((data.state as { subOrders: { id: string }[] }).subOrders[0] ?? {}).id;
          if (event === 'payment') follower.paymentAt ??= Date.now();
          if (event === 'shipment.status' && data.status === 'shipped') follower.shippedAt ??= Date.now();
        }),
      );
    });

    await sleep(3000);
    const rssBefore = rssKiB();
    const collectedBefore = await gatewayMemory();
    log(`opening ${STREAMS - FOLLOWED} idle streams (gateway RSS ${round(rssBefore / 1024, 1)} MiB, ${round(collectedBefore.rssKiB / 1024, 1)} MiB after a full GC)`);
    await inParallel(STREAMS - FOLLOWED, 20, async (i) => {
      const idle = orders[FOLLOWED + i];
      responses.push(await openStream(agent, stack.gatewayUrl, idle.buyer.session.cookie, idle.orderId, () => undefined));
    });
    await sleep(3000);
    const rssAfter = rssKiB();
    const collectedAfter = await gatewayMemory();
    const idleStreams = STREAMS - FOLLOWED;
    const memory = {
      /** RSS growth per idle stream after a full GC before both readings: what the streams hold (the target's figure). */
      rssKiBPerIdleStream: round((collectedAfter.rssKiB - collectedBefore.rssKiB) / idleStreams, 1),
      /** The same for V8's heap in use. */
      heapKiBPerIdleStream: round((collectedAfter.heapUsedKiB - collectedBefore.heapUsedKiB) / idleStreams, 1),
      /** RSS growth 3 s after the burst of opens, without a GC: the streams plus whatever garbage of their opening V8 had not collected yet. */
      rssKiBPerIdleStreamUncollected: round((rssAfter - rssBefore) / idleStreams, 1),
    };
    log(
      `gateway RSS ${round(collectedAfter.rssKiB / 1024, 1)} MiB with ${STREAMS} streams after a full GC: ${memory.rssKiBPerIdleStream} KiB per idle stream ` +
        `(heap ${memory.heapKiBPerIdleStream} KiB; 3 s after opening them, uncollected: ${memory.rssKiBPerIdleStreamUncollected} KiB)`,
    );

    const submitWith = await submitRound(stack, submitStore, hot, submitters, settings.durationS, placed);
    log(`with ${STREAMS} streams open: ${submitWith.ordersPerSecond} orders/s, p50 ${submitWith.p50Ms} ms, p99 ${submitWith.p99Ms} ms, cpu ms/order ${submitWith.cpuMsPerOrder}`);

    const client = gatewayClient(stack.gatewayUrl);
    log(`paying ${FOLLOWED} orders, ${IN_FLIGHT} in flight`);
    await inParallel(FOLLOWED, IN_FLIGHT, async (i) => {
      const f = followers[i];
      const paid = await client.call('POST', `/api/v1/checkout/payment/initiate/${f.orderId}`, { cookie: f.buyer.session.cookie });
      if (paid.status !== 200) throw new Error(`payment of ${f.orderId} answered ${paid.status}`);
      f.paymentAnsweredAt = Date.now();
    });
    log(`shipping them, ${IN_FLIGHT} in flight`);
    await inParallel(FOLLOWED, IN_FLIGHT, async (i) => {
      const f = followers[i];
      const deadline = Date.now() + GIVE_UP_MS;
      // vendor learns of the payment by event: a ship before that answers 409
      for (;;) {
        const shipped = await client.call('POST', `/api/v1/vendor/shipments/${f.shipmentId}/ship`, { cookie: store.vendor.cookie, body: { courier: 'carrier_a', trackingId: `LIVE-${i}` } });
        if (shipped.status === 204) {
          f.shipAnsweredAt = Date.now();
          break;
        }
        if (shipped.status !== 409 || Date.now() > deadline) throw new Error(`ship of ${f.shipmentId} answered ${shipped.status}`);
        await sleep(20);
      }
    });
    const deadline = Date.now() + GIVE_UP_MS;
    while (followers.some((f) => f.paymentAt === undefined || f.shippedAt === undefined) && Date.now() < deadline) await sleep(50);
    const missing = followers.filter((f) => f.paymentAt === undefined || f.shippedAt === undefined).length;

    const clock = await commitClockOf(stack);
    const paymentLegs = await eventLatencies(stack, clock, stack.schemas.checkout, 'checkout.order.paid', '', followers, (f) => f.paymentAt, (f) => f.paymentAnsweredAt);
    const shippedLegs = await eventLatencies(
      stack,
      clock,
      stack.schemas.vendor,
      'vendor.shipment.status_changed',
      `AND payload->'data'->>'status' = 'shipped'`,
      followers,
      (f) => f.shippedAt,
      (f) => f.shipAnsweredAt,
    );
    const payment = latencySummary(paymentLegs.commitToReceived);
    const shipped = latencySummary(shippedLegs.commitToReceived);
    const legs = (l: EventLatencies) => ({
      commitToSent: latencySummary(l.commitToSent),
      sentToReceived: latencySummary(l.sentToReceived),
      commitToAnswered: latencySummary(l.commitToAnswered),
    });
    for (const response of responses) response.destroy();
    agent.destroy();
    const submitAfter = await submitRound(stack, submitStore, hot, submitters, settings.durationS, placed);
    log(`without streams again: ${submitAfter.ordersPerSecond} orders/s, p50 ${submitAfter.p50Ms} ms, p99 ${submitAfter.p99Ms} ms, cpu ms/order ${submitAfter.cpuMsPerOrder}`);
    const submit = submitWithStreams(submitBefore, submitWith, submitAfter);
    log(`submit with streams vs without (cost ratios, target <= ${SUBMIT_WITH_STREAMS_TARGET}): ${JSON.stringify(submit.costRatios)}`);
    log(`commit → event measured from the ${clock}${clock === 'commit' ? ' (track_commit_timestamp on)' : ' (track_commit_timestamp off: see docs/performance.md)'}`);
    log(`payment: commit → event p50 ${payment.p50Ms} ms, p99 ${payment.p99Ms} ms; shipped: p50 ${shipped.p50Ms} ms, p99 ${shipped.p99Ms} ms; ${missing} streams missed an event`);
    for (const [name, l] of [['payment', legs(paymentLegs)], ['shipped', legs(shippedLegs)]] as const) {
      log(
        `${name}: commit → sent p50 ${l.commitToSent.p50Ms} ms, p99 ${l.commitToSent.p99Ms} ms; sent → event p50 ${l.sentToReceived.p50Ms} ms, p99 ${l.sentToReceived.p99Ms} ms` +
          ` (commit → the request's answer p50 ${l.commitToAnswered.p50Ms} ms, p99 ${l.commitToAnswered.p99Ms} ms)`,
      );
    }

    if (missing > 0) throw new Error(`${missing} of ${FOLLOWED} following streams missed their payment or shipped event within ${GIVE_UP_MS} ms`);

    return {
      rows: [
        { scenario: 'live-streams', case: 'commit → event measured from', values: { clock } },
        { scenario: 'live-streams', case: 'payment commit → event', values: { 'p50 ms': payment.p50Ms, 'p99 ms': payment.p99Ms, 'max ms': payment.maxMs } },
        { scenario: 'live-streams', case: 'shipped commit → event', values: { 'p50 ms': shipped.p50Ms, 'p99 ms': shipped.p99Ms, 'max ms': shipped.maxMs } },
        ...([['payment', legs(paymentLegs)], ['shipped', legs(shippedLegs)]] as const).flatMap(([name, l]) => [
          { scenario: 'live-streams', case: `${name}: commit → sent`, values: { 'p50 ms': l.commitToSent.p50Ms, 'p99 ms': l.commitToSent.p99Ms, 'max ms': l.commitToSent.maxMs } },
          { scenario: 'live-streams', case: `${name}: sent → event`, values: { 'p50 ms': l.sentToReceived.p50Ms, 'p99 ms': l.sentToReceived.p99Ms, 'max ms': l.sentToReceived.maxMs } },
        ]),
        { scenario: 'live-streams', case: 'gateway RSS per idle stream, after GC', values: { KiB: memory.rssKiBPerIdleStream, 'streams open': STREAMS, 'missed events': missing } },
        { scenario: 'live-streams', case: 'gateway heap per idle stream, after GC', values: { KiB: memory.heapKiBPerIdleStream } },
        { scenario: 'live-streams', case: 'gateway RSS per idle stream, uncollected', values: { KiB: memory.rssKiBPerIdleStreamUncollected } },
        ...([
          ['submit without streams', submitBefore],
          [`submit with ${STREAMS} streams open`, submitWith],
          ['submit without streams again', submitAfter],
        ] as const).map(([name, f]) => ({ scenario: 'live-streams', case: name, values: { 'req/s': f.ordersPerSecond, 'p50 ms': f.p50Ms, 'p99 ms': f.p99Ms, 'cpu ms/order': f.cpuMsPerOrder } })),
        { scenario: 'live-streams', case: 'submit with streams / without', values: { 'req/s': submit.costRatios.ordersPerSecond, 'p50 ms': submit.costRatios.p50Ms, 'p99 ms': submit.costRatios.p99Ms, 'cpu ms/order': submit.costRatios.cpuMsPerOrder } },
      ],
      data: {
        streams: STREAMS,
        followed: FOLLOWED,
        /** Where commit → event is measured from (CommitClock). */
        commitClock: clock,
        paymentCommitToEventMs: payment,
        shippedCommitToEventMs: shipped,
        /** The two legs, split at the outbox row's published_at (when it was sent). */
        legsMs: { payment: legs(paymentLegs), shipped: legs(shippedLegs) },
        gatewayRssMiB: {
          before: round(rssBefore / 1024, 1),
          after: round(rssAfter / 1024, 1),
          beforeCollected: round(collectedBefore.rssKiB / 1024, 1),
          afterCollected: round(collectedAfter.rssKiB / 1024, 1),
        },
        ...memory,
        missedEvents: missing,
        submit: { buyers: submitters.length, without: submitBefore, withStreams: submitWith, withoutAgain: submitAfter, ...submit },
        targets: { p50Ms: 20, p99Ms: 100, rssKiBPerIdleStream: 20, submitCostRatio: SUBMIT_WITH_STREAMS_TARGET },
      },
    };
  },
};
