/**
 * A NATS node lost under a running outbox relay, on a real three-server JetStream cluster with R3
 * streams (deploy/compose/cluster.yml, docs/deploy.md "Cluster"): the client reconnects to another
 * node, the relay retries its unacknowledged publishes, and every outbox row reaches the stream
 * once (its event id is the JetStream message id) and the consumer.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { identityUserUpserted } from '@pasar/contracts';
import { createPrisma, createTestSchema, schemaFromUrl } from '@pasar/db';
import { connectWhenJetStreamAnswers, silentLog, startNatsCluster, uniqueNamespace, waitFor, type NatsCluster } from '@pasar/testkit';
import { PrismaClient } from '../test/generated/client';
import { Bus } from './bus';
import { consume, type RunningConsumer } from './consumer';
import { migrateServiceSchema } from './migrations';
import { enqueueEvent, OutboxRelay } from './outbox';
import { ensureStreams } from './streams';

let db: Awaited<ReturnType<typeof createTestSchema>>;
let prisma: PrismaClient;
let cluster: NatsCluster;
let bus: Bus;

beforeAll(async () => {
  db = await createTestSchema();
  await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: join(__dirname, '../test/fixture/migrations') });
  prisma = createPrisma(PrismaClient, db.databaseUrl);
  cluster = await startNatsCluster();
  const namespace = uniqueNamespace();
  // JetStream answers once the cluster has its meta leader (see streams.test.ts)
  bus = await connectWhenJetStreamAnswers({ natsUrl: cluster.urls.join(','), namespace, service: 'failover', log: silentLog }, (candidate) => ensureStreams(candidate, ['IDENTITY'], { replicas: 3 }), 90000);
}, 150000);

afterAll(async () => {
  await bus?.close();
  await cluster?.stop();
  await prisma?.$disconnect();
  await db?.drop();
});

test('the node the relay publishes through disappears: it reconnects to another and loses no outbox row', async () => {
  const seen: string[] = [];
  let consumer: RunningConsumer | undefined;
  const relay = new OutboxRelay({ bus, databaseUrl: db.databaseUrl, schema: schemaFromUrl(db.databaseUrl), pollMs: 200 });
  try {
    consumer = consume(bus, { name: 'failover', event: identityUserUpserted, handler: async (data) => void seen.push(data.email) });
    await consumer.ready;
    relay.start();
    const emails = Array.from({ length: 60 }, (_, i) => `failover${i}@example.test`);
    const enqueue = (email: string) =>
      prisma.$transaction((tx) =>
        enqueueEvent(tx, identityUserUpserted, { userId: randomUUID(), email, fullName: email, phone: null, role: 'customer', updatedAt: new Date().toISOString() }, { source: 'test' }),
      );
    for (const email of emails.slice(0, 20)) await enqueue(email);
    await waitFor(() => seen.length >= 1, 30000);

    // the server this client is connected to goes away while rows keep coming
    const connectedTo = bus.nc.getServer();
    const lost = cluster.urls.findIndex((url) => url.endsWith(connectedTo.split(':').at(-1)!));
    expect(lost).toBeGreaterThanOrEqual(0);
    const stopping = cluster.stopNode(lost);
    for (const email of emails.slice(20)) await enqueue(email);
    await stopping;

    await waitFor(() => new Set(seen).size >= emails.length, 90000, 250);
    expect(bus.nc.getServer()).not.toBe(connectedTo);
    expect([...new Set(seen)].sort()).toEqual([...emails].sort());
    // every row marked published (the mark follows the acks)
    await waitFor(async () => (await prisma.outbox.count({ where: { publishedAt: null } })) === 0, 30000);
    expect(await prisma.outbox.count()).toBe(emails.length);
    // each row once in the stream: a retried publish is deduplicated by its message id
    const info = await (await bus.jsm).streams.info(bus.naming.stream('IDENTITY'));
    expect(info.state.messages).toBe(emails.length);
  } finally {
    await relay.stop();
    await consumer?.stop();
  }
}, 180000);
