/**
 * DESIGN §9: nothing may assume it is the only instance. Two outbox relays on one schema (two
 * instances of a service) publish every event once, in commit order; the consumers' own
 * two-instance test is in bus.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { identityUserUpserted } from '@pasar/contracts';
import { createPrisma, createTestSchema, schemaFromUrl } from '@pasar/db';
import { createTestBus, silentLog, waitFor, type TestBus } from '@pasar/testkit';
import { PrismaClient } from '../test/generated/client';
import { Bus } from './bus';
import { consume } from './consumer';
import { migrateServiceSchema } from './migrations';
import { enqueueEvents, OutboxRelay } from './outbox';

let db: Awaited<ReturnType<typeof createTestSchema>>;
let prisma: PrismaClient;
let t: TestBus;
let second: Bus;

beforeAll(async () => {
  db = await createTestSchema();
  await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: join(__dirname, '../test/fixture/migrations') });
  prisma = createPrisma(PrismaClient, db.databaseUrl);
  t = await createTestBus('relays');
  second = await Bus.connect({ natsUrl: t.bus.options.natsUrl, namespace: t.namespace, service: 'relays', log: silentLog });
});

afterAll(async () => {
  await second.close();
  await t.close();
  await prisma.$disconnect();
  await db.drop();
});

function userEvent(n: number) {
  return { userId: randomUUID(), email: `u${n}@relays.test`, fullName: `U ${n}`, phone: null, role: 'customer' as const, updatedAt: new Date().toISOString() };
}

test('two relays on one schema publish 120 events, each once, in commit order, while events keep coming', async () => {
  const seen: string[] = [];
  const consumer = consume(t.bus, {
    name: 'two-relays',
    event: identityUserUpserted,
    handler: async (data) => {
      seen.push(data.email);
    },
  });
  await consumer.ready;
  const events = Array.from({ length: 120 }, (_, i) => userEvent(i));
  const relays = [t.bus, second].map((bus) => new OutboxRelay({ bus, databaseUrl: db.databaseUrl, schema: schemaFromUrl(db.databaseUrl), pollMs: 20 }));
  try {
    for (const relay of relays) relay.start();
    // commits go on while both relays poll: each batch must still come out whole and in order
    for (let batch = 0; batch < 12; batch += 1) {
      await prisma.$transaction(async (tx) => {
        await enqueueEvents(tx, identityUserUpserted, events.slice(batch * 10, batch * 10 + 10), { source: 'test' });
      });
    }
    await waitFor(() => seen.length >= 120, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toEqual(events.map((e) => e.email));
    // marked once NATS acknowledged, which may come after the delivery
    await waitFor(async () => (await prisma.outbox.count({ where: { publishedAt: null } })) === 0, 10000);
  } finally {
    for (const relay of relays) await relay.stop();
    await consumer.stop();
  }
});
