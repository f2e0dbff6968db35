import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createPrisma, createTestSchema, type TestSchema } from '@pasar/db';
import { PrismaClient } from '../test/generated/client';
import { migrateServiceSchema } from './migrations';
import { pruneBusTables } from './pruning';

const DAY = 24 * 60 * 60 * 1000;
const now = new Date('2026-06-30T12:00:00.000Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY);

let db: TestSchema;
let prisma: PrismaClient;

beforeAll(async () => {
  db = createTestSchema(undefined, 'prune');
  await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: join(__dirname, '../test/fixture/migrations') });
  prisma = createPrisma(PrismaClient, db.databaseUrl);
});
afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

async function outboxRow(publishedAt: Date | null, createdAt = daysAgo(30)): Promise<string> {
  const id = randomUUID();
  await prisma.outbox.create({ data: { id, type: 'test.thing.happened', payload: {}, createdAt, publishedAt } });
  return id;
}

async function inboxRows(count: number, receivedAt: Date, consumer = 'pruning-test'): Promise<void> {
  await prisma.inbox.createMany({ data: Array.from({ length: count }, () => ({ consumer, eventId: randomUUID(), receivedAt })) });
}

const retention = { outboxRetentionMs: 7 * DAY, inboxRetentionMs: 14 * DAY };

test('deletes published outbox rows past the retention and old inbox rows; keeps unpublished, recent and dead-lettered rows', async () => {
  const oldPublished = await outboxRow(daysAgo(8));
  const recentPublished = await outboxRow(daysAgo(6));
  const oldUnpublished = await outboxRow(null, daysAgo(60));
  await prisma.$executeRawUnsafe(
    `INSERT INTO outbox_dead_letter (id, seq, type, payload, created_at, error, parked_at) VALUES ($1::uuid, 1, 'x', '{}', $2::timestamptz, 'too large', $2::timestamptz)`,
    randomUUID(),
    daysAgo(90).toISOString(),
  );
  await inboxRows(3, daysAgo(15), 'prune-a');
  await inboxRows(2, daysAgo(13), 'prune-a');

  const result = await pruneBusTables(prisma, retention, now);

  expect(result).toEqual({ outbox: 1, inbox: 3 });
  const left = (await prisma.outbox.findMany({ select: { id: true } })).map((r) => r.id).sort();
  expect(left).toEqual([recentPublished, oldUnpublished].sort());
  expect(left).not.toContain(oldPublished);
  expect(await prisma.inbox.count({ where: { consumer: 'prune-a' } })).toBe(2);
  expect(await prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM outbox_dead_letter')).toEqual([{ n: 1 }]);
  // nothing left to do
  expect(await pruneBusTables(prisma, retention, now)).toEqual({ outbox: 0, inbox: 0 });
});

test('several instances pruning at once delete every old row exactly once between them and never fail', async () => {
  for (let i = 0; i < 25; i += 1) await outboxRow(daysAgo(10));
  await inboxRows(700, daysAgo(20), 'prune-b');
  await inboxRows(5, daysAgo(1), 'prune-b');
  const others = [createPrisma(PrismaClient, db.databaseUrl), createPrisma(PrismaClient, db.databaseUrl)];
  try {
    const results = await Promise.all([prisma, ...others].map((client) => pruneBusTables(client, { ...retention, batchSize: 50 }, now)));
    expect(results.reduce((sum, r) => sum + r.outbox, 0)).toBe(25);
    expect(results.reduce((sum, r) => sum + r.inbox, 0)).toBe(700);
  } finally {
    await Promise.all(others.map((client) => client.$disconnect()));
  }
  expect(await prisma.inbox.count({ where: { consumer: 'prune-b' } })).toBe(5);
});
