/**
 * The submit path's cost, in-process, against the real database: N submits (POST /checkout/submit's
 * use case, submitOrder) from C concurrent buyers on one hot product or spread over P products.
 * Reports orders/s, latency, checkout CPU per order (process.cpuUsage) and statements per order
 * (every pg query call: Prisma's adapter and the plain pool share the pg client). The outbox relay
 * is stopped first, so the figures are the submit path's only.
 *
 *   npx tsx apps/checkout/test/submit-harness.ts [--orders 2000] [--concurrency 50] [--products 1] [--cpu-prof file.cpuprofile]
 *
 * `--cpu-prof` writes a V8 CPU profile of the measured run only (not of start-up, seeding or warm-up);
 * summarise it with `npx tsx bench/src/profile-top.ts <file> 30`.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { submitOrder, type OrderDeps } from '../src/orders/submit';
import { seedCustomer, seedProduct, seedShippingMethod, seedStore } from '../src/orders/test-fixtures';
import { startTestCheckout } from './checkout';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '50' },
    products: { type: 'string', default: '1' },
    'cpu-prof': { type: 'string' },
  },
});
const orders = Number(values.orders);
const concurrency = Number(values.concurrency);
const productCount = Number(values.products);

let statements = 0;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  statements += 1;
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

async function main(): Promise<void> {
  const t = await startTestCheckout();
  try {
    const { prisma, config } = t.checkout;
    const relay = t.checkout.relay;
    await relay.stop();
    relay.stop = async () => undefined; // stopped already: the service's close must not end its pool again
    const deps: OrderDeps = { prisma, config };
    const storeId = await seedStore(prisma);
    await seedShippingMethod(prisma, storeId, { rateConfig: { rate: 5 } });
    const products = await Promise.all(Array.from({ length: productCount }, () => seedProduct(prisma, { storeId, stock: 1_000_000 })));
    const buyers = await Promise.all(Array.from({ length: concurrency }, () => seedCustomer(prisma)));

    const run = async (count: number) => {
      const latencies: number[] = [];
      let next = 0;
      await Promise.all(
        buyers.map(async ({ customerId, addressId }) => {
          while (next < count) {
            const product = products[next % products.length];
            next += 1;
            const started = performance.now();
            await submitOrder(deps, customerId, { addressId, items: [{ productId: product.id, quantity: 1 }] });
            latencies.push(performance.now() - started);
          }
        }),
      );
      return latencies.sort((a, b) => a - b);
    };

    await run(Math.min(200, orders)); // warm-up: JIT, prepared statements, pool connections
    const profiler = values['cpu-prof'] ? new Session() : null;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    statements = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const latencies = await run(orders);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    if (profiler && values['cpu-prof']) {
      const { profile } = await profiler.post('Profiler.stop');
      await writeFile(values['cpu-prof'], JSON.stringify(profile));
      profiler.disconnect();
    }
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
    console.log(
      JSON.stringify({
        orders,
        concurrency,
        products: productCount,
        ordersPerSecond: Math.round(orders / seconds),
        p50Ms: Number(at(0.5)),
        p99Ms: Number(at(0.99)),
        cpuMsPerOrder: Number(((used.user + used.system) / 1000 / orders).toFixed(3)),
        statementsPerOrder: Number((statements / orders).toFixed(2)),
      }),
    );
  } finally {
    await t.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
