import { performance } from 'node:perf_hooks';
import { round } from '../stats';
import type { BenchContext, Scenario, ScenarioResult } from '../types';
import { benchStore, firstOrder, inParallel, latencySummary, signUpBuyers, timedSubmit, type Buyer } from './checkout-submit';

const ORDERS = 500;
const CUSTOMERS = 25;
/** Orders in flight at once (each polling its shipment). */
const IN_FLIGHT = 8;
const POLL_EVERY_MS = 10;
const GIVE_UP_MS = 30_000;
/** The first shipment may wait behind the events earlier scenarios left (e.g. checkout-submit's thousands of orders). */
const CATCH_UP_MS = 180_000;

interface Lag {
  /** Submit answered → GET /vendor/shipments/{id} answered 200. */
  lagMs: number;
  /** Submit answered → the first poll sent (after reading the sub-order id): the resolution floor. */
  firstPollAfterMs: number;
  polls: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 4's bench: the lag from `checkout.order.created` (committed with the submit's answer) to
 * the shipment being readable by its vendor through the gateway. 500 orders from 25 customers,
 * 8 in flight; after each answer the sub-order id is read from GET /account/orders/{id}, then
 * GET /vendor/shipments/{id} is polled every 10 ms until it answers 200.
 */
export const eventLag: Scenario = {
  name: 'event-lag',
  title: 'checkout.order.created → shipment readable at GET /vendor/shipments/{id}',
  async run({ stack, log }: BenchContext): Promise<ScenarioResult> {
    const store = await benchStore(stack, 'lag', [{ name: 'Lag Kopi', basePrice: '12.00', stock: ORDERS * 2 }]);
    const [productId] = store.productIds;
    log(`signing up ${CUSTOMERS} customers`);
    const buyers = await signUpBuyers(stack, 'lag', CUSTOMERS);
    await firstOrder(buyers[0], store, productId);

    const measure = async (buyer: Buyer, giveUpMs = GIVE_UP_MS): Promise<Lag> => {
      const placed = await timedSubmit(buyer, store, productId);
      if (placed.status !== 201 || !placed.orderId) throw new Error(`submit answered ${placed.status} ${placed.code ?? ''}`);
      const detail = await buyer.session.call('GET', `/account/orders/${placed.orderId}`);
      if (detail.status !== 200) throw new Error(`GET /account/orders/${placed.orderId} answered ${detail.status}`);
      const shipmentId = (detail.json as { subOrders: { id: string }[] }).subOrders[0].id;
      const firstPollAfterMs = performance.now() - placed.answeredAt;
      for (let polls = 1; ; polls += 1) {
        const shipment = await store.vendor.call('GET', `/vendor/shipments/${shipmentId}`);
        if (shipment.status === 200) return { lagMs: performance.now() - placed.answeredAt, firstPollAfterMs, polls };
        if (shipment.status !== 404) throw new Error(`GET /vendor/shipments/${shipmentId} answered ${shipment.status}`);
        if (performance.now() - placed.answeredAt > giveUpMs) throw new Error(`shipment ${shipmentId} not readable after ${giveUpMs} ms`);
        await sleep(POLL_EVERY_MS);
      }
    };

    // once one shipment is readable, vendor has worked through what was queued before it
    const catchUp = await measure(buyers[0], CATCH_UP_MS);
    log(`vendor caught up (${Math.round(catchUp.lagMs)} ms for the first shipment)`);

    log(`${ORDERS} orders from ${CUSTOMERS} customers, ${IN_FLIGHT} in flight, polling every ${POLL_EVERY_MS} ms`);
    const started = performance.now();
    const lags = await inParallel(ORDERS, IN_FLIGHT, (i) => measure(buyers[i % buyers.length]));
    const elapsedS = (performance.now() - started) / 1000;

    const lag = latencySummary(lags.map((l) => l.lagMs));
    const floor = latencySummary(lags.map((l) => l.firstPollAfterMs));
    const meanPolls = round(lags.reduce((a, l) => a + l.polls, 0) / lags.length);
    return {
      rows: [
        {
          scenario: 'event lag',
          case: `${ORDERS} orders, order.created → shipment`,
          values: { 'p50 ms': lag.p50Ms, 'p99 ms': lag.p99Ms, 'max ms': lag.maxMs, 'mean ms': lag.meanMs, requests: ORDERS },
        },
      ],
      data: {
        orders: ORDERS,
        customers: CUSTOMERS,
        inFlight: IN_FLIGHT,
        pollEveryMs: POLL_EVERY_MS,
        elapsedS: round(elapsedS),
        lag,
        firstPollAfter: floor,
        meanPolls,
      },
    };
  },
};
