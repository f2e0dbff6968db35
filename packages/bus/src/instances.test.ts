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
    await waitFor(async () => (await prisma.outbox.count({ where: { publishedAt: null } })) === 0, 10000); // marked after the acks
  } finally {
    for (const relay of relays) await relay.stop();
    await consumer.stop();
  }
});

test('one relay leads; when its connection dies a standby takes over within seconds, and each event goes out once', async () => {
  const seen: string[] = [];
  const consumer = consume(t.bus, {
    name: 'failover',
    event: identityUserUpserted,
    handler: async (data) => {
      if (/^u50\d@/.test(data.email)) seen.push(data.email); // not the first test's events
    },
  });
  await consumer.ready;
  const relays = [t.bus, second].map((bus) => new OutboxRelay({ bus, databaseUrl: db.databaseUrl, schema: schemaFromUrl(db.databaseUrl), pollMs: 10 * 60_000 }));
  const commit = (n: number) => prisma.$transaction((tx) => enqueueEvents(tx, identityUserUpserted, [userEvent(n)], { source: 'test' }));
  try {
    for (const relay of relays) relay.start();
    await waitFor(() => relays.some((r) => r.isLeader), 5000);
    await new Promise((r) => setTimeout(r, 1500)); // the standby has tried the lock and failed
    expect(relays.filter((r) => r.isLeader)).toHaveLength(1);
    const leader = relays.find((r) => r.isLeader)!;
    await commit(500);
    await waitFor(() => seen.includes('u500@relays.test'), 5000);

    // the leader's connection dies (its process crashed, the network dropped it): its lock is freed
    await prisma.$executeRawUnsafe(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted
         AND objsubid = 1 AND objid::bigint = (hashtext('outbox:' || $1)::bigint & 4294967295)`,
      schemaFromUrl(db.databaseUrl),
    );
    await waitFor(() => !leader.isLeader, 5000);
    await commit(501);
    // only the NOTIFY of a leader or its first flush can publish it: the backstop poll is 10 minutes
    await waitFor(() => seen.includes('u501@relays.test'), 8000);
    await waitFor(() => relays.filter((r) => r.isLeader).length === 1, 5000);
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toEqual(['u500@relays.test', 'u501@relays.test']);
  } finally {
    for (const relay of relays) await relay.stop();
    await consumer.stop();
  }
});
