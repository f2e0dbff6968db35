import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { round } from '../stats';
import type { BenchContext, Scenario, ScenarioResult, TableRow } from '../types';
import { latencySummary } from './checkout-submit';

const ENDPOINTS = 20;
const EVENTS = 2000;
const PER_ENDPOINT = EVENTS / ENDPOINTS;
/** Paced rounds: events per second, spread evenly (the latency of the path, not of a backlog). */
const PACED_RATE = 200;
const GIVE_UP_MS = 120_000;

/** A local receiver: one path per endpoint; records when each event arrived; `failing` paths answer 500. */
async function startReceiver(onEvent: (key: string, at: number) => void, failing: Set<number>) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const endpoint = Number(/\/hooks\/(\d+)/.exec(req.url ?? '')?.[1]);
      if (failing.has(endpoint)) {
        res.writeHead(500).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { shipmentId: string; status: string } };
      onEvent(`${body.data.shipmentId}:${body.data.status}`, at);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (i: number) => `http://127.0.0.1:${port}/hooks/${i}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/**
 * Issue 27's bench: 20 stores with one webhook endpoint each on a local receiver, 100 shipment
 * status changes per store (2,000 events), made straight in vendor's schema (the triggers write
 * the deliveries in each change's transaction, as the vendor's own transitions do). Event (the
 * change committed) → received by the receiver. Three rounds: a burst (deliveries/s), paced at
 * 200 events/s, and paced with one receiver answering 500 (the other 19 endpoints' latency:
 * no head-of-line blocking).
 */
export const webhooks: Scenario = {
  name: 'webhooks',
  title: `vendor webhooks: ${EVENTS} events to ${ENDPOINTS} endpoints on a local receiver`,
  async run({ stack, log }: BenchContext): Promise<ScenarioResult> {
    const schema = stack.schemas.vendor;
    const pool = new Pool({ connectionString: stack.databaseUrl, max: ENDPOINTS, options: `-c search_path="${schema}"` });
    const sentAt = new Map<string, number>();
    // first arrival of each event, kept even when it beats the UPDATE's answer to the bench (a busy
    // machine: the worker sends before this process reads the commit's acknowledgement)
    const arrivedAt = new Map<string, number>();
    const failing = new Set<number>();
    const receiver = await startReceiver((key, at) => {
      if (!arrivedAt.has(key)) arrivedAt.set(key, at);
    }, failing);
    /** Event (commit acknowledged to the bench) → received; 0 when it arrived before the acknowledgement. */
    const latencyOf = (key: string): number | undefined => {
      const [sent, arrived] = [sentAt.get(key), arrivedAt.get(key)];
      return sent === undefined || arrived === undefined ? undefined : Math.max(0, arrived - sent);
    };
    try {
      const run = randomUUID().slice(0, 8);
      const stores: string[] = [];
      for (let i = 0; i < ENDPOINTS; i += 1) {
        const { rows } = await pool.query<{ id: string }>(
          `INSERT INTO store (id, application_id, owner_user_id, name, slug, tin, msic_code, bank_name, bank_account_number, bank_account_name, consent_accepted)
           VALUES (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), $1, $1, 'C0012345678', '47711', 'Maybank', '112233445566', 'Bench', true) RETURNING id`,
          [`bench-webhooks-${run}-${i}`],
        );
        stores.push(rows[0].id);
      }
      // two shipments per store and round: one set shipped then delivered, the other cancelled
      const shipments = async (storeId: string) =>
        (
          await pool.query<{ id: string }>(
            `INSERT INTO shipment (id, order_id, short_id, store_id, customer_id, status, subtotal, shipping_fee, total, recipient_name, recipient_phone,
               address_line_1, city, postcode, state, created_at)
             SELECT gen_random_uuid(), gen_random_uuid(), 'PSR-BENCH', $1, gen_random_uuid(), 'paid', 55, 8, 63, 'Bench Buyer', '+60123456789',
               '1 Jalan Bench', 'Kuala Lumpur', '50450', 'Wilayah Persekutuan', now()
             FROM generate_series(1, $2::int) RETURNING id`,
            [storeId, PER_ENDPOINT],
          )
        ).rows.map((r) => r.id);
      const setA = await Promise.all(stores.map(shipments));
      const setB = await Promise.all(stores.map(shipments));
      for (let i = 0; i < ENDPOINTS; i += 1) {
        await pool.query(
          `INSERT INTO webhook_endpoint (id, store_id, url, events, secret, contact_email) VALUES (gen_random_uuid(), $1, $2, '{shipment.status_changed}', $3, 'bench@pasar.test')`,
          [stores[i], receiver.url(i), `whsec_${Buffer.alloc(32, i).toString('base64')}`],
        );
      }

      /** Moves every shipment of `sets` to `status`, one transaction each; `paced`: at PACED_RATE overall, else as fast as 20 writers go. */
      const round_ = async (name: string, sets: string[][], status: string, paced: boolean) => {
        sentAt.clear();
        arrivedAt.clear();
        const interval = (1000 / PACED_RATE) * ENDPOINTS;
        const started = performance.now();
        await Promise.all(
          sets.map(async (ids, endpoint) => {
            for (let n = 0; n < ids.length; n += 1) {
              if (paced) {
                const due = started + (endpoint * 1000) / PACED_RATE + n * interval;
                const wait = due - performance.now();
                if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
              }
              const key = `${ids[n]}:${status}`;
              await pool.query(`UPDATE shipment SET status = $2::shipment_status, updated_at = now() WHERE id = $1`, [ids[n], status]);
              sentAt.set(key, performance.now());
            }
          }),
        );
        const healthy = sets.flatMap((ids, endpoint) => (failing.has(endpoint) ? [] : ids.map((id) => `${id}:${status}`)));
        const deadline = Date.now() + GIVE_UP_MS;
        while (healthy.some((key) => latencyOf(key) === undefined)) {
          if (Date.now() > deadline) throw new Error(`${name}: ${healthy.filter((k) => latencyOf(k) === undefined).length} events never arrived`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const seconds = (Math.max(...healthy.map((key) => arrivedAt.get(key) as number)) - started) / 1000;
        const samples = healthy.map((key) => latencyOf(key) as number);
        const beforeAck = healthy.filter((key) => (arrivedAt.get(key) as number) < (sentAt.get(key) as number)).length;
        const summary = latencySummary(samples);
        log(`${name}: ${samples.length} received in ${seconds.toFixed(2)} s, p50 ${summary.p50Ms} ms, p99 ${summary.p99Ms} ms (${beforeAck} before the commit's ack)`);
        return { events: samples.length, seconds: round(seconds), deliveriesPerS: Math.round(samples.length / seconds), latencyMs: summary, arrivedBeforeAck: beforeAck };
      };

      const burst = await round_('burst', setA, 'shipped', false);
      const paced = await round_(`paced ${PACED_RATE}/s`, setA, 'delivered', true);
      failing.add(0);
      const oneFailing = await round_(`paced ${PACED_RATE}/s, endpoint 0 answering 500`, setB, 'cancelled', true);

      const row = (label: string, r: typeof burst): TableRow => ({
        scenario: 'webhooks',
        case: label,
        values: { 'deliveries/s': r.deliveriesPerS, 'p50 ms': r.latencyMs.p50Ms, 'p99 ms': r.latencyMs.p99Ms, 'max ms': r.latencyMs.maxMs },
      });
      return {
        rows: [
          row(`${EVENTS} events burst, ${ENDPOINTS} endpoints`, burst),
          row(`${EVENTS} events at ${PACED_RATE}/s`, paced),
          row(`at ${PACED_RATE}/s, 1 of ${ENDPOINTS} answering 500 (others)`, oneFailing),
        ],
        data: { endpoints: ENDPOINTS, events: EVENTS, pacedRate: PACED_RATE, targets: { p50Ms: 50, p99Ms: 250 }, burst, paced, oneFailing },
      };
    } finally {
      await receiver.close();
      await pool.end();
    }
  },
};
