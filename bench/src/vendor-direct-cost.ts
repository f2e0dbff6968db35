/**
 * CPU per request of the vendor's GET /vendor/shipments/{id}, called directly (no gateway): the
 * read the event-lag bench polls while it waits for a shipment. Starts the vendor as its own
 * process (as the stack does: node --import tsx apps/vendor/src/main.ts) on a free port against a
 * fresh test schema and NATS namespace, seeds one store with one shipment of two items, then
 * sends N requests over K keep-alive connections and reports the process's CPU time (/proc) per
 * request: for the shipment found (200) and for one not there yet (404, most of the lag polls).
 * Also reports the idle process's CPU per second before the load.
 *
 *   npx tsx bench/src/vendor-direct-cost.ts [--requests 3000] [--connections 4] [--idle-seconds 10]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { TEST_IDENTITY_SECRET, freePort, signFor } from '@pasar/testkit';
import pg from 'pg';
import { LeanClient } from './client';
import { readProcess } from './processes';
import { startServiceAlone } from './service-alone';
import { round } from './stats';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    connections: { type: 'string', default: '4' },
    'idle-seconds': { type: 'string', default: '10' },
  },
});
const REQUESTS = Number(args.requests);
const CONNECTIONS = Number(args.connections);
const IDLE_SECONDS = Number(args['idle-seconds']);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One store owned by `ownerUserId` with one paid shipment of two items; returns the shipment id. */
async function seed(databaseUrl: string, schema: string, ownerUserId: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl.replace(/[?&]schema=[^&]*/, ''), options: `-c search_path=${schema}` });
  await client.connect();
  try {
    const storeId = randomUUID();
    const shipmentId = randomUUID();
    await client.query(
      `INSERT INTO store (id, application_id, owner_user_id, name, slug, tin, msic_code, bank_name, bank_account_number, bank_account_name, consent_accepted)
       VALUES ($1, $2, $3, 'Bench Kedai', $4, 'C 0012345678', '47711', 'Maybank', '112233445566', 'Bench Kedai', true)`,
      [storeId, randomUUID(), ownerUserId, `bench-${storeId.slice(0, 8)}`],
    );
    await client.query(
      `INSERT INTO shipment (id, order_id, short_id, store_id, customer_id, status, subtotal, shipping_fee, total, recipient_name, recipient_phone,
         address_line_1, city, postcode, state, created_at)
       VALUES ($1, $2, 'PSR-BENCH1', $3, $4, 'paid', 55, 8, 63, 'Siti Aminah', '+60123456789', '12 Jalan Ampang', 'Kuala Lumpur', '50450', 'Wilayah Persekutuan', now())`,
      [shipmentId, randomUUID(), storeId, randomUUID()],
    );
    await client.query(
      `INSERT INTO shipment_item (id, shipment_id, product_id, variant_id, product_name, variant_name, quantity, unit_price, weight_kg)
       VALUES ($1, $3, $4, NULL, 'Batik Scarf', NULL, 2, 20, 0.25), ($2, $3, $5, $6, 'Songket', 'Red', 1, 15, NULL)`,
      [randomUUID(), randomUUID(), shipmentId, randomUUID(), randomUUID(), randomUUID()],
    );
    return shipmentId;
  } finally {
    await client.end();
  }
}

/** `total` GETs of `path` over `connections` keep-alive connections; every answer must be `expected`. */
async function load(client: LeanClient, path: string, ownerUserId: string, total: number, connections: number, expected: number): Promise<void> {
  let sent = 0;
  const worker = async () => {
    while (sent < total) {
      sent += 1;
      const answer = await client.call('GET', path, { headers: signFor('GET', path, { userId: ownerUserId, role: 'vendor' }) });
      if (answer.status !== expected) throw new Error(`GET ${path} answered ${answer.status}: ${JSON.stringify(answer.json)}`);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
}

async function main(): Promise<void> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // the request log (a 404 at warn, as in the bench's stack) goes nowhere
  const vendor = await startServiceAlone('vendor', 'vcost', { PORT: String(port), IDENTITY_SECRET: TEST_IDENTITY_SECRET }, baseUrl);
  const client = new LeanClient(baseUrl, CONNECTIONS);
  try {
    const { pid } = vendor;
    const ownerUserId = randomUUID();
    const shipmentId = await seed(vendor.databaseUrl, vendor.schema, ownerUserId);

    await sleep(2000); // let start-up work settle before the idle figure
    const idleBefore = readProcess(pid)!;
    await sleep(IDLE_SECONDS * 1000);
    const idleAfter = readProcess(pid)!;
    const idle = { cpuMsPerSecond: round((idleAfter.cpuMs - idleBefore.cpuMs) / IDLE_SECONDS, 2), rssMiB: idleAfter.rssMiB };

    const results: Record<string, unknown> = { requests: REQUESTS, connections: CONNECTIONS, idle };
    for (const [label, id, expected] of [
      ['found', shipmentId, 200],
      ['missing', randomUUID(), 404],
    ] as const) {
      const path = `/api/v1/vendor/shipments/${id}`;
      await load(client, path, ownerUserId, Math.min(500, REQUESTS), CONNECTIONS, expected); // warm-up (JIT, prepared statements)
      const before = readProcess(pid)!;
      const started = performance.now();
      await load(client, path, ownerUserId, REQUESTS, CONNECTIONS, expected);
      const seconds = (performance.now() - started) / 1000;
      const after = readProcess(pid)!;
      results[label] = {
        cpuMsPerRequest: round((after.cpuMs - before.cpuMs) / REQUESTS, 3),
        requestsPerSecond: round(REQUESTS / seconds, 0),
      };
    }
    console.log(JSON.stringify(results, null, 2));
  } finally {
    client.close();
    await vendor.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
