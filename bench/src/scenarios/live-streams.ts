import { Agent, get, type IncomingMessage } from 'node:http';
import { Client } from 'pg';
import { readProcess } from '../processes';
import { round } from '../stats';
import type { BenchContext, Scenario, ScenarioResult } from '../types';
import { benchStore, firstOrder, gatewayClient, inParallel, latencySummary, signUpBuyers, timedSubmit, type Buyer } from './checkout-submit';

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

/** Milliseconds from each outbox row's creation (the transaction that committed it) to `receivedAt` of its order. */
async function commitToReceived(
  stack: BenchContext['stack'],
  schema: string,
  type: string,
  extra: string,
  followers: readonly Follower[],
  receivedAt: (f: Follower) => number | undefined,
): Promise<number[]> {
  const client = new Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const rows = await client.query<{ orderId: string; created: Date }>(
      `SELECT payload->'data'->>'orderId' AS "orderId", created_at AS created FROM "${schema}".outbox
       WHERE type = $1 ${extra} AND payload->'data'->>'orderId' = ANY($2::text[])`,
      [type, followers.map((f) => f.orderId)],
    );
    const created = new Map(rows.rows.map((r) => [r.orderId, r.created.getTime()]));
    return followers.flatMap((f) => {
      const at = receivedAt(f);
      const from = created.get(f.orderId);
      return at !== undefined && from !== undefined ? [at - from] : [];
    });
  } finally {
    await client.end();
  }
}

/**
 * Issue 26's bench: 1,000 live order streams open on the gateway, 200 of them following an order
 * that is paid and then shipped while the other 800 stay idle. Commit → event at the client: from
 * the outbox row's created_at (the committing transaction's start) to the frame's arrival here,
 * for `payment` (checkout.order.paid) and `shipment.status` shipped; and the gateway's RSS growth
 * per idle stream (read before and after the 800 idle streams are opened).
 */
export const liveStreams: Scenario = {
  name: 'live-streams',
  title: '1,000 open order streams, 200 following payment and shipping: commit → event, gateway RSS per idle stream',
  env: { gateway: { LIVE_MAX_STREAMS_PER_USER: String(STREAMS) } },
  async run({ stack, log }: BenchContext): Promise<ScenarioResult> {
    const store = await benchStore(stack, 'live', [{ name: 'Live Kopi', basePrice: '12.00', stock: STREAMS + 10 }]);
    const [productId] = store.productIds;
    log(`signing up ${BUYERS} customers, placing ${STREAMS} orders`);
    const buyers = await signUpBuyers(stack, 'live', BUYERS);
    await firstOrder(buyers[0], store, productId);
    const orders = await inParallel(STREAMS, IN_FLIGHT, async (i) => {
      const buyer = buyers[i % BUYERS];
      const placed = await timedSubmit(buyer, store, productId);
      if (placed.status !== 201 || !placed.orderId) throw new Error(`submit answered ${placed.status} ${placed.code ?? ''}`);
      return { orderId: placed.orderId, buyer };
    });

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
    log(`opening ${STREAMS - FOLLOWED} idle streams (gateway RSS ${round(rssBefore / 1024, 1)} MiB)`);
    await inParallel(STREAMS - FOLLOWED, 20, async (i) => {
      const idle = orders[FOLLOWED + i];
      responses.push(await openStream(agent, stack.gatewayUrl, idle.buyer.session.cookie, idle.orderId, () => undefined));
    });
    await sleep(3000);
    const rssAfter = rssKiB();
    const perIdleKiB = (rssAfter - rssBefore) / (STREAMS - FOLLOWED);
    log(`gateway RSS ${round(rssAfter / 1024, 1)} MiB with ${STREAMS} streams: ${round(perIdleKiB, 1)} KiB per idle stream`);

    const client = gatewayClient(stack.gatewayUrl);
    log(`paying ${FOLLOWED} orders, ${IN_FLIGHT} in flight`);
    await inParallel(FOLLOWED, IN_FLIGHT, async (i) => {
      const f = followers[i];
      const paid = await client.call('POST', `/api/v1/checkout/payment/initiate/${f.orderId}`, { cookie: f.buyer.session.cookie });
      if (paid.status !== 200) throw new Error(`payment of ${f.orderId} answered ${paid.status}`);
    });
    log(`shipping them, ${IN_FLIGHT} in flight`);
    await inParallel(FOLLOWED, IN_FLIGHT, async (i) => {
      const f = followers[i];
      const deadline = Date.now() + GIVE_UP_MS;
      // vendor learns of the payment by event: a ship before that answers 409
      for (;;) {
        const shipped = await client.call('POST', `/api/v1/vendor/shipments/${f.shipmentId}/ship`, { cookie: store.vendor.cookie, body: { courier: 'carrier_a', trackingId: `LIVE-${i}` } });
        if (shipped.status === 204) break;
        if (shipped.status !== 409 || Date.now() > deadline) throw new Error(`ship of ${f.shipmentId} answered ${shipped.status}`);
        await sleep(20);
      }
    });
    const deadline = Date.now() + GIVE_UP_MS;
    while (followers.some((f) => f.paymentAt === undefined || f.shippedAt === undefined) && Date.now() < deadline) await sleep(50);
    const missing = followers.filter((f) => f.paymentAt === undefined || f.shippedAt === undefined).length;

    const payment = latencySummary(await commitToReceived(stack, stack.schemas.checkout, 'checkout.order.paid', '', followers, (f) => f.paymentAt));
    const shipped = latencySummary(
      await commitToReceived(stack, stack.schemas.vendor, 'vendor.shipment.status_changed', `AND payload->'data'->>'status' = 'shipped'`, followers, (f) => f.shippedAt),
    );
    for (const response of responses) response.destroy();
    agent.destroy();
    log(`payment: commit → event p50 ${payment.p50Ms} ms, p99 ${payment.p99Ms} ms; shipped: p50 ${shipped.p50Ms} ms, p99 ${shipped.p99Ms} ms; ${missing} streams missed an event`);

    return {
      rows: [
        { scenario: 'live-streams', case: 'payment commit → event', values: { 'p50 ms': payment.p50Ms, 'p99 ms': payment.p99Ms, 'max ms': payment.maxMs } },
        { scenario: 'live-streams', case: 'shipped commit → event', values: { 'p50 ms': shipped.p50Ms, 'p99 ms': shipped.p99Ms, 'max ms': shipped.maxMs } },
        { scenario: 'live-streams', case: 'gateway RSS per idle stream', values: { KiB: round(perIdleKiB, 1), 'streams open': STREAMS, 'missed events': missing } },
      ],
      data: {
        streams: STREAMS,
        followed: FOLLOWED,
        paymentCommitToEventMs: payment,
        shippedCommitToEventMs: shipped,
        gatewayRssMiB: { before: round(rssBefore / 1024, 1), after: round(rssAfter / 1024, 1) },
        rssKiBPerIdleStream: round(perIdleKiB, 1),
        missedEvents: missing,
        targets: { p50Ms: 20, p99Ms: 100, rssKiBPerIdleStream: 20 },
      },
    };
  },
};
