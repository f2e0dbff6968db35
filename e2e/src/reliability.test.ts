/**
 * No event is lost, none is applied twice, through the whole stack:
 * (a) NATS stopped while 30 orders are placed and paid: the API keeps answering; once NATS is back
 *     every shipment and every order confirmation e-mail appears exactly once;
 * (b) vendor killed (SIGKILL) in the middle of a burst of orders and started again: nothing is lost;
 * (c) a second vendor instance on the same durable consumers: every shipment once, one paid
 *     status event each.
 * This file runs its own nats-server, so stopping it affects nobody else.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { baseDatabaseUrl, startNatsServer, type LocalNats } from '@pasar/stack';
import { loadConfig } from '@pasar/service-kit';
import { freePort, silentLog, waitFor, type TestBus } from '@pasar/testkit';
import { startVendor, type VendorService } from '../../apps/vendor/src/app';
import { vendorConfigSchema } from '../../apps/vendor/src/config';
import { connectStackBus } from './support/bus';
import { newShopper, openStore, submit, type E2eStore, type Shopper } from './support/commerce';
import { show } from './support/http';
import { API, startE2eStack, withLogs, type E2eStack } from './support/stack';

const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN || undefined;
const OUTAGE_ORDERS = 30;

let storeDir: string;
let port: number;
let nats: LocalNats | undefined;
let natsUp = false;
let e2e: E2eStack | undefined;
let testBus: TestBus | undefined;
let store: E2eStore | undefined;
let db: pg.Client | undefined;

beforeAll(async () => {
  storeDir = mkdtempSync(join(tmpdir(), 'pasar-e2e-reliability-'));
  port = await freePort();
  nats = await startNatsServer({ storeDir, port, binary: NATS_SERVER_BIN });
  natsUp = true;
  e2e = await startE2eStack({ natsUrl: nats.url });
  testBus = await connectStackBus(e2e);
  store = await openStore(e2e, testBus, { basePrice: '10.00', stock: 1000 }, 5);
  db = new pg.Client({ connectionString: baseDatabaseUrl(e2e.stack.databaseUrl) });
  await db.connect();
}, 240_000);

afterAll(async () => {
  // NATS must be up for the stack to delete its streams (a test may have failed mid-outage)
  if (nats && !natsUp) {
    nats = await startNatsServer({ storeDir, port, binary: NATS_SERVER_BIN });
    natsUp = true;
  }
  await db?.end();
  await testBus?.bus.close();
  await e2e?.stop();
  await nats?.stop();
  rmSync(storeDir, { recursive: true, force: true });
}, 90_000);

function env(): { e2e: E2eStack; store: E2eStore; db: pg.Client } {
  if (!e2e || !store || !db) throw new Error('the stack did not start');
  return { e2e, store, db };
}

interface Placed {
  orderId: string;
  shortId: string;
}

/** Submits one unit of the store's product for the shopper; the API must answer 201 (NATS or not). */
async function place(shopper: Shopper): Promise<Placed> {
  const { store } = env();
  const body = { addressId: shopper.addressId, items: [{ productId: store.productId, quantity: 1 }], shippingMethodId: store.shippingMethodId };
  const placed = await submit(shopper.client, body, randomUUID());
  if (placed.status !== 201) throw new Error(`submit: ${show(placed)}`);
  return { orderId: placed.body.orderId, shortId: placed.body.shortId };
}

/** Pays with the mock payment (on outside production); checkout answers it paid at once. */
async function pay(shopper: Shopper, order: Placed): Promise<void> {
  const initiate = await shopper.client.post(`${API}/checkout/payment/initiate/${order.orderId}`);
  if (initiate.status !== 200) throw new Error(`initiate: ${show(initiate)}`);
  const view = await shopper.client.get<{ status: string }>(`${API}/account/orders/${order.orderId}`);
  expect({ order: order.shortId, status: view.body.status }).toEqual({ order: order.shortId, status: 'paid' });
}

/** vendor's shipments of these orders: how many rows each order has, and their statuses. */
async function shipmentsOf(orders: Placed[]): Promise<{ perOrder: Map<string, number>; statuses: string[] }> {
  const { e2e, db } = env();
  const { rows } = await db.query<{ order_id: string; status: string }>(
    `SELECT order_id::text, status::text FROM "${e2e.stack.schemas.vendor}".shipment WHERE order_id = ANY($1::uuid[])`,
    [orders.map((o) => o.orderId)],
  );
  const perOrder = new Map<string, number>();
  for (const row of rows) perOrder.set(row.order_id, (perOrder.get(row.order_id) ?? 0) + 1);
  return { perOrder, statuses: rows.map((r) => r.status) };
}

async function allShipmentsPaid(orders: Placed[], timeoutMs: number): Promise<void> {
  await waitFor(
    async () => {
      const { perOrder, statuses } = await shipmentsOf(orders);
      return perOrder.size === orders.length && statuses.every((s) => s === 'paid');
    },
    timeoutMs,
    250,
  );
}

/** How many `vendor.shipment.status_changed` rows vendor wrote to its outbox per shipment, for these orders. */
async function paidEventsPerShipment(orders: Placed[]): Promise<number[]> {
  const { e2e, db } = env();
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM "${e2e.stack.schemas.vendor}".outbox
      WHERE type = 'vendor.shipment.status_changed' AND payload->'data'->>'status' = 'paid'
        AND payload->'data'->>'orderId' = ANY($1::text[])
      GROUP BY payload->'data'->>'shipmentId'`,
    [orders.map((o) => o.orderId)],
  );
  return rows.map((r) => r.n);
}

const confirmationsOf = (order: Placed) => env().e2e.smtp.messages.filter((m) => m.subject === `Order ${order.shortId} confirmed`);

describe('reliability through the whole stack', () => {
  it(
    `(a) NATS stopped while ${OUTAGE_ORDERS} orders are placed and paid: every shipment and every confirmation e-mail exactly once when it is back`,
    withLogs(
      () => e2e,
      async () => {
        if (!nats) throw new Error('no nats');
        // half the customers sign up before the outage, half during it (their replicas reach checkout only afterwards)
        const before = await Promise.all(Array.from({ length: OUTAGE_ORDERS / 2 }, (_, i) => newShopper(env().e2e, `before${i}`)));

        await nats.stop();
        natsUp = false;
        const during = [];
        for (let i = 0; i < OUTAGE_ORDERS / 2; i += 1) during.push(await newShopper(env().e2e, `during${i}`));
        const shoppers = [...before, ...during];
        const orders: Placed[] = [];
        for (const shopper of shoppers) {
          const order = await place(shopper);
          await pay(shopper, order);
          orders.push(order);
        }
        expect((await shipmentsOf(orders)).perOrder.size).toBe(0);
        expect(orders.flatMap(confirmationsOf)).toHaveLength(0);

        nats = await startNatsServer({ storeDir, port, binary: NATS_SERVER_BIN });
        natsUp = true;
        await allShipmentsPaid(orders, 120_000);
        await waitFor(() => orders.every((o) => confirmationsOf(o).length >= 1), 120_000, 250);
        // a late duplicate would show up now
        await new Promise((r) => setTimeout(r, 3000));

        const { perOrder } = await shipmentsOf(orders);
        const emails = orders.map((o) => confirmationsOf(o).length);
        console.log(
          `NATS outage: ${orders.length} orders placed and paid with NATS down; afterwards ${perOrder.size} orders with shipments ` +
            `(${[...perOrder.values()].reduce((a, b) => a + b, 0)} shipments, all paid), ${emails.reduce((a, b) => a + b, 0)} confirmation e-mails`,
        );
        expect([...perOrder.values()]).toEqual(orders.map(() => 1));
        expect(emails).toEqual(orders.map(() => 1));
        expect(await paidEventsPerShipment(orders)).toEqual(orders.map(() => 1));
      },
    ),
    400_000,
  );

  it(
    '(b) vendor killed (SIGKILL) mid-flow and started again: every shipment created and paid, once',
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stackEnv } = env();
        const vendor = stackEnv.stack.services.vendor;
        const shoppers = await Promise.all(Array.from({ length: 20 }, (_, i) => newShopper(stackEnv, `restart${i}`)));
        // a burst of orders placed and paid; vendor dies without warning while it handles them
        const first = await Promise.all(
          shoppers.slice(0, 10).map(async (shopper) => {
            const order = await place(shopper);
            await pay(shopper, order);
            return order;
          }),
        );
        const pid = vendor.pid;
        if (pid === undefined) throw new Error('vendor is not running');
        process.kill(-pid, 'SIGKILL');
        await waitFor(() => !vendor.running, 30_000, 50);
        // more orders while it is dead
        const whileDead: Placed[] = [];
        for (const shopper of shoppers.slice(10)) {
          const order = await place(shopper);
          await pay(shopper, order);
          whileDead.push(order);
        }
        await vendor.start();

        const orders = [...first, ...whileDead];
        await allShipmentsPaid(orders, 120_000);
        await new Promise((r) => setTimeout(r, 2000));
        const { perOrder } = await shipmentsOf(orders);
        const events = await paidEventsPerShipment(orders);
        console.log(
          `vendor killed: ${orders.length} orders (10 placed and paid as it was killed, 10 while it was dead); ` +
            `${perOrder.size} with shipments (all paid), ${events.reduce((a, b) => a + b, 0)} paid status events`,
        );
        expect([...perOrder.values()]).toEqual(orders.map(() => 1));
        expect(events).toEqual(orders.map(() => 1));
      },
    ),
    300_000,
  );

  it(
    '(c) two vendor instances consuming the same streams: every shipment once, one paid event each',
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stackEnv } = env();
        const stackVendor = stackEnv.stack.services.vendor;
        const config = loadConfig(vendorConfigSchema, {
          NODE_ENV: 'test',
          PORT: '0',
          DATABASE_URL: stackVendor.databaseUrl,
          NATS_URL: stackEnv.stack.natsUrl,
          NATS_NAMESPACE: stackEnv.namespace,
          IDENTITY_SECRET: stackEnv.stack.identitySecret,
          MIGRATE_ON_START: 'false',
        });
        const second: VendorService = await startVendor(config, { log: silentLog });
        try {
          await Promise.all(second.consumers.map((c) => c.ready));
          const shoppers = await Promise.all(Array.from({ length: 20 }, (_, i) => newShopper(stackEnv, `twin${i}`)));
          const orders = await Promise.all(
            shoppers.map(async (shopper) => {
              const order = await place(shopper);
              await pay(shopper, order);
              return order;
            }),
          );
          await allShipmentsPaid(orders, 120_000);
          await new Promise((r) => setTimeout(r, 2000));
          const { perOrder } = await shipmentsOf(orders);
          const events = await paidEventsPerShipment(orders);
          console.log(`two vendor instances: ${orders.length} orders, ${perOrder.size} with shipments (all paid), ${events.reduce((a, b) => a + b, 0)} paid status events`);
          expect([...perOrder.values()]).toEqual(orders.map(() => 1));
          expect(events).toEqual(orders.map(() => 1));
        } finally {
          await second.close();
        }
      },
    ),
    300_000,
  );
});
