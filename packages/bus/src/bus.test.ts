import { randomUUID } from 'node:crypto';
import { checkoutOrderCreated, defineRpc, identityUserUpserted, type EventData, type EventEnvelope } from '@pasar/contracts';
import { createPrisma, createTestSchema, runStatement, schemaFromUrl, sqlPoolOf, type RawTx } from '@pasar/db';
import { createTestBus, startOwnNatsServer, uniqueNamespace, waitFor, silentLog, type TestBus } from '@pasar/testkit';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { z } from 'zod';
import { PrismaClient } from '../test/generated/client';
import { Bus } from './bus';
import { migrateServiceSchema } from './migrations';
import { consume, consumeWithInbox, PermanentFailure, type RunningConsumer, type SqlTx } from './consumer';
import { RpcFailedError, RpcRefusal, RpcUnavailableError } from './errors';
import { countDeadLetters, listOutboxDeadLetters, listParkedMessages, replayOutboxDeadLetter, replayParkedMessage } from './dead-letters';
import { enqueueEvent, enqueueEvents, HANDING_OVER, inTransactionHandingOver, isUnpublishable, OutboxRelay, publishRounds, stripSchema, UnpublishableError, type OutboxRelayOptions } from './outbox';
import { callRpc, serveRpc } from './rpc';
import { ensureStreams } from './streams';


function userEvent(n: number) {
  return {
    userId: randomUUID(),
    email: `user${n}@example.test`,
    fullName: `User ${n}`,
    phone: null,
    role: 'customer' as const,
    updatedAt: new Date().toISOString(),
  };
}

function envelopeOf(data: ReturnType<typeof userEvent>, id = randomUUID()): EventEnvelope {
  return { id, type: identityUserUpserted.type, source: 'test', occurredAt: new Date().toISOString(), data };
}

let db: Awaited<ReturnType<typeof createTestSchema>>;
let prisma: PrismaClient;
let t: TestBus;
const running: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  db = await createTestSchema();
  await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: join(__dirname, '../test/fixture/migrations') });
  prisma = createPrisma(PrismaClient, db.databaseUrl);
  t = await createTestBus('bustest');
});

afterEach(async () => {
  while (running.length) await running.pop()!.stop();
});

afterAll(async () => {
  await t.close();
  await prisma.$disconnect();
  await db.drop();
});

/** A started relay of the test schema (stopped after the file); `pollMs` is its backstop poll. */
function startRelay(bus: Bus = t.bus, options: Pick<OutboxRelayOptions, 'pollMs' | 'onParked' | 'markDelayMs'> = {}): OutboxRelay {
  const relay = new OutboxRelay({ bus, databaseUrl: db.databaseUrl, schema: schemaFromUrl(db.databaseUrl), pollMs: 200, ...options });
  relay.start();
  running.push(relay);
  return relay;
}

function collect(name: string, bus: Bus = t.bus): { seen: string[]; consumer: RunningConsumer } {
  const seen: string[] = [];
  const consumer = consume(bus, {
    name,
    event: identityUserUpserted,
    handler: async (data) => {
      seen.push(data.email);
    },
  });
  running.push(consumer);
  return { seen, consumer };
}

describe('outbox relay', () => {
  test('publishes committed events in order, exactly the ones committed', async () => {
    const { seen, consumer } = collect('order');
    await consumer.ready;
    const events = Array.from({ length: 30 }, (_, i) => userEvent(i));
    await prisma.$transaction(async (tx) => {
      await enqueueEvents(tx, identityUserUpserted, events.slice(0, 10), { source: 'test' });
    });
    await prisma.$transaction(async (tx) => {
      await enqueueEvents(tx, identityUserUpserted, events.slice(10), { source: 'test' });
    });
    await expect(
      prisma.$transaction(async (tx) => {
        await enqueueEvent(tx, identityUserUpserted, userEvent(999), { source: 'test' });
        throw new Error('use case failed');
      }),
    ).rejects.toThrow('use case failed');
    startRelay();
    await waitFor(() => seen.length >= 30, 15000);
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toEqual(events.map((e) => e.email));
    // marked once the batch's acks are in: a consumer may see the events a moment before
    await waitFor(async () => (await prisma.outbox.count({ where: { publishedAt: null } })) === 0, 10000);
  });

  test('publishes a row committed while a flush runs at once, not after the backstop poll', async () => {
    const { seen, consumer } = collect('notified-mid-flush');
    await consumer.ready;
    const [first, second] = [userEvent(1001), userEvent(1002)];
    // the first publish commits another row (its NOTIFY arrives while this flush still runs) before going out
    let committedMidFlush = false;
    const js = Object.create(t.bus.js) as Bus['js'];
    js.publish = async (...args: Parameters<Bus['js']['publish']>) => {
      if (!committedMidFlush) {
        committedMidFlush = true;
        await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, second, { source: 'test' }));
        await new Promise((r) => setTimeout(r, 200));
      }
      return t.bus.js.publish(...args);
    };
    const bus = Object.create(t.bus) as Bus;
    Object.defineProperty(bus, 'js', { value: js });
    // a backstop poll far longer than the test may take: only the NOTIFY can bring the second row out
    startRelay(bus, { pollMs: 10 * 60_000 });
    await new Promise((r) => setTimeout(r, 500)); // LISTEN is set up
    await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, first, { source: 'test' }));
    await waitFor(() => seen.includes(second.email), 15000);
    expect(committedMidFlush).toBe(true);
    expect(seen.filter((email) => email === first.email || email === second.email)).toEqual([first.email, second.email]);
    await waitFor(async () => (await prisma.outbox.count({ where: { publishedAt: null } })) === 0, 10000); // marked after the acks
  });

  test('each row names its aggregate; a row of one aggregate goes out only after the one before it (publishRounds)', async () => {
    const event = userEvent(1201);
    const envelope = await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, event, { source: 'test' }));
    expect((await prisma.outbox.findUniqueOrThrow({ where: { id: envelope.id } })).aggregate).toBe(`user:${event.userId}`);
    const rows = [
      { id: 'a1', aggregate: 'order:a' },
      { id: 'b1', aggregate: 'order:b' },
      { id: 'n1', aggregate: null },
      { id: 'a2', aggregate: 'order:a' },
      { id: 'a3', aggregate: 'order:a' },
      { id: 'b2', aggregate: 'order:b' },
      { id: 'n2', aggregate: null },
    ];
    expect(publishRounds(rows).map((round) => round.map((row) => row.id))).toEqual([['a1', 'b1', 'n1', 'n2'], ['a2', 'b2'], ['a3']]);
    await waitFor(async () => (await prisma.outbox.count({ where: { publishedAt: null } })) === 0, 10000).catch(() => undefined);
    await prisma.outbox.deleteMany({ where: { id: envelope.id } });
  });

  test('after a failed publish, the later rows of its aggregate wait and go out after it, in order; other aggregates are not held', async () => {
    const { seen, consumer } = collect('aggregate-order');
    await consumer.ready;
    const user = userEvent(1210);
    const first = { ...user, email: 'a-first@example.test' };
    const second = { ...user, email: 'a-second@example.test', fullName: 'User 1210, renamed' };
    const other = userEvent(1211);
    // three rows committed before the relay starts: one pass reads them all
    const [a1] = await prisma.$transaction(async (tx) => [
      await enqueueEvent(tx, identityUserUpserted, first, { source: 'test' }),
      await enqueueEvent(tx, identityUserUpserted, other, { source: 'test' }),
      await enqueueEvent(tx, identityUserUpserted, second, { source: 'test' }),
    ]);
    // the first publish of the aggregate's first row fails as a JetStream timeout would; real NATS otherwise
    let failures = 0;
    const js = Object.create(t.bus.js) as Bus['js'];
    js.publish = async (...args: Parameters<Bus['js']['publish']>) => {
      if (args[2]?.msgID === a1.id && failures === 0) {
        failures += 1;
        throw Object.assign(new Error('TIMEOUT'), { name: 'TimeoutError' });
      }
      return t.bus.js.publish(...args);
    };
    const bus = Object.create(t.bus) as Bus;
    Object.defineProperty(bus, 'js', { value: js });
    startRelay(bus);
    await waitFor(() => seen.includes(second.email), 15000);
    expect(failures).toBe(1);
    // the other aggregate went out in the first pass; the failed row's aggregate kept its order
    expect(seen.filter((email) => [first.email, second.email, other.email].includes(email))).toEqual([other.email, first.email, second.email]);
    await waitFor(async () => (await prisma.outbox.count({ where: { publishedAt: null } })) === 0, 10000);
  });

  describe('publishCommitted (a hot path hands its committed rows over)', () => {
    /** The bus with its publishes counted by event id, and optionally slowed for some ids. */
    function countingBus(slow: (id: string) => number = () => 0) {
      const published = new Map<string, number>();
      const js = Object.create(t.bus.js) as Bus['js'];
      js.publish = async (...args: Parameters<Bus['js']['publish']>) => {
        const id = args[2]?.msgID ?? '';
        published.set(id, (published.get(id) ?? 0) + 1);
        const pause = slow(id);
        if (pause > 0) await new Promise((r) => setTimeout(r, pause));
        return t.bus.js.publish(...args);
      };
      const bus = Object.create(t.bus) as Bus;
      Object.defineProperty(bus, 'js', { value: js });
      return { bus, published };
    }
    /** Commits an event without the outbox trigger (no NOTIFY: the relay is not woken); answers its outbox row. */
    async function commitQuietly(data: ReturnType<typeof userEvent>) {
      const envelope = await prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('SET LOCAL session_replication_role = replica');
        return enqueueEvent(tx, identityUserUpserted, data, { source: 'test' });
      });
      return { id: envelope.id, type: envelope.type, payload: envelope, headers: {}, aggregate: `user:${data.userId}` };
    }
    const leading = async (relay: OutboxRelay) => waitFor(() => relay.isLeader, 5000);

    test('sends them at once and marks them published; the relay does not send them again', async () => {
      const { seen, consumer } = collect('handed-over');
      await consumer.ready;
      const { bus, published } = countingBus();
      // a backstop poll far longer than the test: only a NOTIFY would wake the relay
      const relay = startRelay(bus, { pollMs: 10 * 60_000 });
      await leading(relay);
      const event = userEvent(1101);
      const row = await commitQuietly(event);
      relay.publishCommitted([row]);
      await waitFor(() => seen.includes(event.email), 10000);
      await waitFor(async () => (await prisma.outbox.count({ where: { id: row.id, publishedAt: { not: null } } })) === 1, 5000);
      // wake the relay with another row: it publishes that one only
      const next = userEvent(1102);
      await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, next, { source: 'test' }));
      await waitFor(() => seen.includes(next.email), 10000);
      expect(published.get(row.id)).toBe(1);
      expect(seen.filter((email) => email === event.email)).toHaveLength(1);
    });

    test('rows handed over in several calls are marked together after markDelayMs, each with when it went out; stop writes the marks still waiting', async () => {
      const { seen, consumer } = collect('handed-over-marks');
      await consumer.ready;
      const { bus, published } = countingBus();
      const relay = startRelay(bus, { pollMs: 10 * 60_000, markDelayMs: 10 * 60_000 });
      await leading(relay);
      const events = [userEvent(1111), userEvent(1112), userEvent(1113)];
      const rows = [];
      for (const event of events) {
        const row = await commitQuietly(event);
        relay.publishCommitted([row]);
        rows.push(row);
        await waitFor(() => seen.includes(event.email), 10000);
      }
      const ids = rows.map((row) => row.id);
      // out, and not yet marked: the relay's own read leaves them alone meanwhile
      await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, userEvent(1114), { source: 'test' }));
      await waitFor(async () => (await prisma.outbox.count({ where: { publishedAt: null } })) === 3, 10000);
      expect(await prisma.outbox.count({ where: { id: { in: ids }, publishedAt: null } })).toBe(3);
      await relay.stop();
      const marked = await prisma.outbox.findMany({ where: { id: { in: ids } }, orderBy: { seq: 'asc' } });
      expect(marked.map((row) => row.publishedAt !== null)).toEqual([true, true, true]);
      // each keeps its own sending time, in hand-over order
      const times = marked.map((row) => row.publishedAt!.getTime());
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      expect(new Set(times).size).toBe(3);
      expect(ids.map((id) => published.get(id))).toEqual([1, 1, 1]);
    });

    test('the relay leaves a handed-over row alone while its publish is under way', async () => {
      const { seen, consumer } = collect('handed-over-slow');
      await consumer.ready;
      let slowId = '';
      const { bus, published } = countingBus((id) => (id === slowId ? 800 : 0));
      const relay = startRelay(bus, { pollMs: 10 * 60_000 });
      await leading(relay);
      const slow = userEvent(1103);
      const row = await commitQuietly(slow);
      slowId = row.id;
      relay.publishCommitted([row]);
      // a NOTIFY now: the relay reads the pending rows while the handed-over one is still on its way
      const other = userEvent(1104);
      await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, other, { source: 'test' }));
      await waitFor(() => seen.includes(other.email) && seen.includes(slow.email), 10000);
      await waitFor(async () => (await prisma.outbox.count({ where: { publishedAt: null } })) === 0, 5000);
      expect(published.get(row.id)).toBe(1);
    });

    test('a transaction that says it hands its rows over (HANDING_OVER), or whose outbox INSERT inserted nothing, commits without a NOTIFY; any other sends one', async () => {
      const listener = new pg.Client({ connectionString: stripSchema(db.databaseUrl) });
      await listener.connect();
      const notified: string[] = [];
      listener.on('notification', (n) => notified.push(n.channel));
      await listener.query(`LISTEN "outbox_${schemaFromUrl(db.databaseUrl)}"`);
      try {
        await prisma.$transaction(async (tx) => {
          await tx.$queryRawUnsafe(`SELECT ${HANDING_OVER}`);
          await enqueueEvent(tx, identityUserUpserted, userEvent(1106), { source: 'test' });
        });
        // an INSERT ... SELECT that finds nothing to announce still fires the statement trigger
        expect(await prisma.$executeRawUnsafe(`INSERT INTO outbox (id, type, payload, headers) SELECT gen_random_uuid(), 'x', '{}', '{}' WHERE false`)).toBe(0);
        await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, userEvent(1107), { source: 'test' }));
        await waitFor(() => notified.length > 0, 5000);
        await new Promise((r) => setTimeout(r, 200));
        // notifications arrive in commit order: the one there is came from the second commit
        expect(notified).toEqual([`outbox_${schemaFromUrl(db.databaseUrl)}`]);
      } finally {
        await listener.end();
      }
    });

    describe('inTransactionHandingOver (any use case hands its transaction\'s rows over)', () => {
      const channel = () => `outbox_${schemaFromUrl(db.databaseUrl)}`;
      /** Counts the NOTIFYs that would wake the relay. */
      async function listening() {
        const listener = new pg.Client({ connectionString: stripSchema(db.databaseUrl) });
        await listener.connect();
        const notified: string[] = [];
        listener.on('notification', (n) => notified.push(n.channel));
        await listener.query(`LISTEN "${channel()}"`);
        running.push({ stop: () => listener.end() });
        return notified;
      }

      test('the committed rows go out without the relay\'s read and the commit wakes no relay; a failed transaction hands nothing over', async () => {
        const { seen, consumer } = collect('hand-over-tx');
        await consumer.ready;
        const notified = await listening();
        const { bus, published } = countingBus();
        // no backstop poll within the test, and no NOTIFY: only the hand-over can bring the rows out
        const relay = startRelay(bus, { pollMs: 10 * 60_000 });
        await leading(relay);
        const [one, two] = [userEvent(1301), userEvent(1302)];
        const envelopes = await inTransactionHandingOver(prisma, relay, async (tx) => [
          await enqueueEvent(tx, identityUserUpserted, one, { source: 'test' }),
          ...(await enqueueEvents(tx, identityUserUpserted, [two], { source: 'test' })),
        ]);
        expect(envelopes.map((e) => e.data.email)).toEqual([one.email, two.email]);
        await waitFor(() => seen.includes(one.email) && seen.includes(two.email), 10000);
        const failed = userEvent(1303);
        await expect(
          inTransactionHandingOver(prisma, relay, async (tx) => {
            await enqueueEvent(tx, identityUserUpserted, failed, { source: 'test' });
            throw new Error('use case failed');
          }),
        ).rejects.toThrow('use case failed');
        await waitFor(async () => (await prisma.outbox.count({ where: { publishedAt: null } })) === 0, 5000);
        await new Promise((r) => setTimeout(r, 200));
        expect(notified).toEqual([]);
        expect(envelopes.map((e) => published.get(e.id))).toEqual([1, 1]);
        expect(seen).not.toContain(failed.email);
      });

      test('a row whose publish fails goes out later through the relay, once', async () => {
        const { seen, consumer } = collect('hand-over-tx-fails');
        await consumer.ready;
        const published = new Map<string, number>();
        const js = Object.create(t.bus.js) as Bus['js'];
        js.publish = async (...args: Parameters<Bus['js']['publish']>) => {
          const id = args[2]?.msgID ?? '';
          published.set(id, (published.get(id) ?? 0) + 1);
          if (published.get(id) === 1) throw new Error('NATS is away');
          return t.bus.js.publish(...args);
        };
        const bus = Object.create(t.bus) as Bus;
        Object.defineProperty(bus, 'js', { value: js });
        const relay = startRelay(bus, { pollMs: 10 * 60_000 });
        await leading(relay);
        const event = userEvent(1311);
        const envelope = await inTransactionHandingOver(prisma, relay, (tx) => enqueueEvent(tx, identityUserUpserted, event, { source: 'test' }));
        await waitFor(() => seen.includes(event.email), 10000);
        await waitFor(async () => (await prisma.outbox.count({ where: { id: envelope.id, publishedAt: { not: null } } })) === 1, 5000);
        await new Promise((r) => setTimeout(r, 300));
        // the hand-over's attempt failed, the relay's went out: the consumer has it once
        expect(published.get(envelope.id)).toBe(2);
        expect(seen.filter((email) => email === event.email)).toHaveLength(1);
      });

      test('a row of an aggregate with an earlier row still unpublished is left to the relay, woken, which sends both in order', async () => {
        const { seen, consumer } = collect('hand-over-tx-order');
        await consumer.ready;
        const notified = await listening();
        const { bus, published } = countingBus();
        const relay = startRelay(bus, { pollMs: 10 * 60_000 });
        await leading(relay);
        const first = userEvent(1321);
        const second = { ...userEvent(1322), userId: first.userId };
        const earlier = await commitQuietly(first); // committed, not yet read by the relay (no NOTIFY)
        const later = await inTransactionHandingOver(prisma, relay, (tx) => enqueueEvent(tx, identityUserUpserted, second, { source: 'test' }));
        await waitFor(() => seen.includes(second.email), 10000);
        expect(seen.filter((email) => [first.email, second.email].includes(email))).toEqual([first.email, second.email]);
        expect(notified).toEqual([channel()]);
        expect([earlier.id, later.id].map((id) => published.get(id))).toEqual([1, 1]);
      });
    });

    test('a row that cannot go out is the relay\'s again: it parks it', async () => {
      const parked: string[] = [];
      const relay = startRelay(t.bus, { pollMs: 10 * 60_000, onParked: (id) => parked.push(id) });
      await leading(relay);
      const row = await commitQuietly({ ...userEvent(1105), fullName: 'x'.repeat(1100 * 1024) });
      relay.publishCommitted([row]);
      await waitFor(() => parked.includes(row.id), 10000);
      expect(await prisma.outbox.count({ where: { id: row.id } })).toBe(0);
      await prisma.$executeRawUnsafe('DELETE FROM outbox_dead_letter');
    });
  });

  test('publishes a routed event on its routed subject: a consumer of one part gets only that part, a consumer of the type all of it', async () => {
    const order = (isB2b: boolean) => ({
      orderId: randomUUID(),
      shortId: 'PSR-ROUTE1',
      customerId: randomUUID(),
      isB2b,
      familyId: null,
      purchaseRequestIds: [],
      buyerTin: null,
      total: '1.00',
      shippingAddress: { fullName: 'A', phone: '1', addressLine1: 'x', addressLine2: null, city: 'c', postcode: '1', state: 's' },
      subOrders: [],
      createdAt: new Date().toISOString(),
    });
    const seen: Record<'all' | 'b2b', string[]> = { all: [], b2b: [] };
    for (const [name, routeKey] of [['all', undefined], ['b2b', 'b2b']] as const) {
      const consumer = consume(t.bus, { name: `routed-${name}`, event: checkoutOrderCreated, routeKey, handler: async (data) => void seen[name].push(data.orderId) });
      running.push(consumer);
      await consumer.ready;
    }
    const [retail, b2b] = [order(false), order(true)];
    await prisma.$transaction((tx) => enqueueEvents(tx, checkoutOrderCreated, [retail, b2b], { source: 'test' }));
    startRelay();
    await waitFor(() => seen.all.length === 2 && seen.b2b.length === 1, 15000);
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toEqual({ all: [retail.orderId, b2b.orderId], b2b: [b2b.orderId] });
  });

  test('validates event data against the contract before writing', async () => {
    await expect(
      prisma.$transaction((tx) =>
        enqueueEvent(tx, identityUserUpserted, { ...userEvent(1), email: 'not-an-email' }, { source: 'test' }),
      ),
    ).rejects.toThrow();
  });

  test('keeps events while NATS is down and publishes them once it is back', async () => {
    const nats = await startOwnNatsServer();
    const bus = await Bus.connect({ natsUrl: nats.url, namespace: uniqueNamespace(), service: 'outage', log: silentLog });
    try {
      await ensureStreams(bus);
      const { seen, consumer } = collect('outage', bus);
      await consumer.ready;
      startRelay(bus);
      await nats.stop();
      const events = Array.from({ length: 5 }, (_, i) => userEvent(100 + i));
      for (const e of events) {
        await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, e, { source: 'test' }));
      }
      await new Promise((r) => setTimeout(r, 1500));
      expect(seen).toEqual([]);
      await nats.start();
      await waitFor(() => seen.length >= 5, 30000);
      expect(seen).toEqual(events.map((e) => e.email));
      // NATS away is transient: retried in order, never parked
      expect((await countDeadLetters(prisma)).outbox).toBe(0);
    } finally {
      while (running.length) await running.pop()!.stop();
      await bus.close();
      await nats.destroy();
    }
  });
});

describe('outbox dead letters', () => {
  /** An envelope of `bytes` size: a valid event whose JSON NATS refuses (max_payload is 1 MiB by default). */
  async function insertRawOutboxRow(id: string, payload: object): Promise<void> {
    await prisma.$executeRawUnsafe(`INSERT INTO outbox (id, type, payload) VALUES ($1::uuid, $2, $3::jsonb)`, id, identityUserUpserted.type, JSON.stringify(payload));
  }

  test('a row too large for NATS is parked with its error and the relay goes on with the next rows', async () => {
    const { seen, consumer } = collect('after-big');
    await consumer.ready;
    const before = userEvent(300);
    const after = userEvent(302);
    const bigId = randomUUID();
    await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, before, { source: 'test' }));
    await insertRawOutboxRow(bigId, envelopeOf({ ...userEvent(301), fullName: 'x'.repeat(1100 * 1024) }, bigId));
    await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, after, { source: 'test' }));
    const parked: string[] = [];
    startRelay(t.bus, { onParked: (id) => parked.push(id) });

    await waitFor(() => seen.includes(after.email), 15000);
    expect(seen.filter((e) => e === before.email || e === after.email)).toEqual([before.email, after.email]);
    // the batch's publishes go out together: the row after it may be delivered before the park is written
    await waitFor(() => parked.length > 0, 5000);
    expect(parked).toEqual([bigId]);
    expect(await prisma.outbox.count({ where: { id: bigId } })).toBe(0);
    const dead = await listOutboxDeadLetters(prisma);
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ id: bigId, type: identityUserUpserted.type });
    expect(dead[0].error).toMatch(/max_payload/);
    expect(dead[0].bytes).toBeGreaterThan(1024 * 1024);
    expect(await countDeadLetters(prisma)).toEqual({ outbox: 1, consumers: 0 });

    // replay puts it back into the outbox; still too large, so the relay parks it again
    expect(await replayOutboxDeadLetter(prisma, bigId)).toBe(true);
    await waitFor(async () => (await listOutboxDeadLetters(prisma)).length === 1 && (await prisma.outbox.count({ where: { id: bigId } })) === 0, 10000);
    expect(parked).toEqual([bigId, bigId]);
    expect(await replayOutboxDeadLetter(prisma, randomUUID())).toBe(false);
    await prisma.$executeRawUnsafe('DELETE FROM outbox_dead_letter');
  });

  test('a row just under max_payload whose headers push it over is refused by the client and parked too', async () => {
    const { seen, consumer } = collect('after-edge');
    await consumer.ready;
    const maxPayload = t.bus.nc.info!.max_payload;
    const id = randomUUID();
    const base = envelopeOf({ ...userEvent(320), fullName: '' }, id);
    const padding = maxPayload - 20 - JSON.stringify(base).length;
    await insertRawOutboxRow(id, { ...base, data: { ...(base.data as ReturnType<typeof userEvent>), fullName: 'x'.repeat(padding) } });
    const after = userEvent(321);
    await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, after, { source: 'test' }));
    startRelay();
    await waitFor(() => seen.includes(after.email), 15000);
    await waitFor(async () => (await listOutboxDeadLetters(prisma)).length > 0, 10000);
    const dead = await listOutboxDeadLetters(prisma);
    expect(dead.map((d) => d.id)).toEqual([id]);
    // our own size check let it through (the body fits); the client's check on body + headers refused it
    expect(dead[0].error).toMatch(/^InvalidArgumentError: .*max_payload/);
    await prisma.$executeRawUnsafe('DELETE FROM outbox_dead_letter');
  });

  test('a replayed dead letter whose cause is gone is published with its original event id', async () => {
    const { seen, consumer } = collect('replayed');
    await consumer.ready;
    const event = userEvent(310);
    const id = randomUUID();
    // as the relay would have left it, e.g. while the stream refused its size
    await prisma.$executeRawUnsafe(
      `INSERT INTO outbox_dead_letter (id, seq, type, payload, created_at, error) VALUES ($1::uuid, 1, $2, $3::jsonb, now(), 'refused')`,
      id,
      identityUserUpserted.type,
      JSON.stringify(envelopeOf(event, id)),
    );
    startRelay();
    expect(await replayOutboxDeadLetter(prisma, id)).toBe(true);
    await waitFor(() => seen.includes(event.email), 10000);
    // marked once the batch's acks are in: a consumer may see the event a moment before
    await waitFor(async () => (await prisma.outbox.findUniqueOrThrow({ where: { id } })).publishedAt !== null, 10000);
    expect(await countDeadLetters(prisma)).toEqual({ outbox: 0, consumers: 0 });
  });

  test('isUnpublishable tells a row problem from NATS being away', () => {
    expect(isUnpublishable(new UnpublishableError('too big'))).toBe(true);
    const invalidSubject = new Error('subject is invalid');
    invalidSubject.name = 'InvalidSubjectError';
    expect(isUnpublishable(invalidSubject)).toBe(true);
    const timeout = new Error('timeout');
    timeout.name = 'TimeoutError';
    expect(isUnpublishable(timeout)).toBe(false);
    const closed = new Error('closed connection');
    closed.name = 'ClosedConnectionError';
    expect(isUnpublishable(closed)).toBe(false);
    expect(isUnpublishable('nope')).toBe(false);
  });
});

describe('consumers', () => {
  test('an event delivered twice has its effect once (inbox)', async () => {
    const effects = consumeWithInbox(t.bus, {
      name: 'effect-once',
      event: identityUserUpserted,
      db: prisma,
      handler: async (data, { tx, envelope }) => {
        await tx.effect.create({ data: { eventId: envelope.id, note: data.email } });
      },
    });
    running.push(effects);
    await effects.ready;
    const envelope = envelopeOf(userEvent(7));
    const subject = t.bus.naming.subject(identityUserUpserted.type);
    // two publishes with different message ids: JetStream does not deduplicate them
    await t.bus.js.publish(subject, JSON.stringify(envelope), { msgID: randomUUID() });
    await t.bus.js.publish(subject, JSON.stringify(envelope), { msgID: randomUUID() });
    const marker = envelopeOf(userEvent(8));
    await t.bus.js.publish(subject, JSON.stringify(marker), { msgID: marker.id });
    await waitFor(async () => (await prisma.effect.count({ where: { eventId: marker.id } })) === 1, 10000);
    expect(await prisma.effect.count({ where: { eventId: envelope.id } })).toBe(1);
  });

  test('an event the consumer ignores is acked without a transaction: no effect, no inbox row; the others are handled', async () => {
    const effects = consumeWithInbox(t.bus, {
      name: 'ignoring',
      event: identityUserUpserted,
      db: prisma,
      ignore: (data) => typeof data.email === 'string' && data.email.startsWith('ignored'),
      handler: async (data, { tx, envelope }) => {
        await tx.effect.create({ data: { eventId: envelope.id, note: data.email } });
      },
    });
    running.push(effects);
    await effects.ready;
    const subject = t.bus.naming.subject(identityUserUpserted.type);
    const ignored = envelopeOf({ ...userEvent(9), email: 'ignored9@example.test' });
    const handled = envelopeOf(userEvent(10));
    for (const envelope of [ignored, handled]) await t.bus.js.publish(subject, JSON.stringify(envelope), { msgID: envelope.id });
    await waitFor(async () => (await prisma.effect.count({ where: { eventId: handled.id } })) === 1, 10000);
    expect(await prisma.effect.count({ where: { eventId: ignored.id } })).toBe(0);
    expect(await prisma.inbox.count({ where: { eventId: ignored.id } })).toBe(0);
    expect(await prisma.inbox.count({ where: { eventId: handled.id } })).toBe(1);
  });

  test('two instances share one durable: 60 events, each effect once, work split', async () => {
    const namespace = t.namespace;
    const second = await Bus.connect({ natsUrl: t.bus.options.natsUrl, namespace, service: 'bustest', log: silentLog });
    const handledBy: Record<string, number> = { a: 0, b: 0 };
    const make = (bus: Bus, who: 'a' | 'b') =>
      consumeWithInbox(bus, {
        name: 'shared',
        event: identityUserUpserted,
        db: prisma,
        handler: async (data, { tx, envelope }) => {
          if (!data.email.endsWith('@shared.test')) return; // earlier tests' events on this stream
          handledBy[who] += 1;
          await tx.effect.create({ data: { eventId: envelope.id, note: `shared:${data.email}` } });
          await new Promise((r) => setTimeout(r, 5));
        },
      });
    const a = make(t.bus, 'a');
    const b = make(second, 'b');
    running.push(a, b);
    await Promise.all([a.ready, b.ready]);
    const subject = t.bus.naming.subject(identityUserUpserted.type);
    for (let i = 0; i < 60; i++) {
      const env = envelopeOf({ ...userEvent(i), email: `user${i}@shared.test` });
      await t.bus.js.publish(subject, JSON.stringify(env), { msgID: env.id });
    }
    await waitFor(async () => (await prisma.effect.count({ where: { note: { endsWith: '@shared.test' } } })) === 60, 20000);
    await new Promise((r) => setTimeout(r, 300));
    expect(await prisma.effect.count({ where: { note: { endsWith: '@shared.test' } } })).toBe(60);
    expect(handledBy.a + handledBy.b).toBe(60);
    await a.stop();
    await b.stop();
    running.length = 0;
    await second.close();
  });

  test('a handler that runs longer than ack_wait is kept alive: its message is not delivered again meanwhile', async () => {
    const deliveries: number[] = [];
    const c = consume(t.bus, {
      name: 'slow',
      event: identityUserUpserted,
      ackWaitMs: 1000,
      handler: async (data, { deliveryCount }) => {
        if (!data.email.endsWith('@slow.test')) return;
        deliveries.push(deliveryCount);
        await new Promise((r) => setTimeout(r, 3500));
      },
    });
    running.push(c);
    await c.ready;
    const env = envelopeOf({ ...userEvent(1), email: 'once@slow.test' });
    await t.bus.js.publish(t.bus.naming.subject(identityUserUpserted.type), JSON.stringify(env), { msgID: env.id });
    await waitFor(async () => {
      const info = await (await t.bus.jsm).consumers.info(t.bus.naming.stream('IDENTITY'), t.bus.naming.durable(t.bus.service, 'slow'));
      return deliveries.length > 0 && info.num_ack_pending === 0 && info.num_pending === 0;
    }, 15000);
    // three and a half times ack_wait, one delivery
    expect(deliveries).toEqual([1]);
  });

  test('a batch still running after maxHandlingMs is taken as hung: its messages and those behind it go to the other instance, and the hung one pulls again once it ends', async () => {
    const second = await Bus.connect({ natsUrl: t.bus.options.natsUrl, namespace: t.namespace, service: 'bustest', log: silentLog });
    const handled: { email: string; by: string; deliveryCount: number; at: number }[] = [];
    const hung: { by: string; at: number }[] = [];
    let release: () => void = () => undefined;
    const released = new Promise<void>((r) => (release = r));
    const make = (bus: Bus, who: string) =>
      consume(bus, {
        name: 'hung',
        event: identityUserUpserted,
        ackWaitMs: 1000,
        maxHandlingMs: 3000,
        handler: async (data, { deliveryCount }) => {
          if (!data.email.endsWith('@hung.test')) return;
          // the first delivery of `hang@` never answers (until released), wherever it lands
          if (data.email.startsWith('hang@') && deliveryCount === 1) {
            hung.push({ by: who, at: Date.now() });
            await released;
          }
          handled.push({ email: data.email, by: who, deliveryCount, at: Date.now() });
        },
      });
    const a = make(t.bus, 'a');
    const b = make(second, 'b');
    running.push(a, b);
    try {
      await Promise.all([a.ready, b.ready]);
      const subject = t.bus.naming.subject(identityUserUpserted.type);
      const emails = ['hang@hung.test', ...[1, 2, 3, 4, 5].map((n) => `after${n}@hung.test`)];
      for (const [n, email] of emails.entries()) {
        const env = envelopeOf({ ...userEvent(n), email });
        await t.bus.js.publish(subject, JSON.stringify(env), { msgID: env.id });
      }
      await waitFor(() => emails.every((email) => handled.some((h) => h.email === email)), 20000, 50);
      expect(hung).toHaveLength(1);
      const [{ by: hungBy, at: hungAt }] = hung;
      const hang = handled.filter((h) => h.email === 'hang@hung.test');
      // handled once, by the other instance, and only after maxHandlingMs: until then it was kept alive
      expect(hang).toHaveLength(1);
      expect(hang[0].by).not.toBe(hungBy);
      expect(hang[0].deliveryCount).toBeGreaterThan(1);
      expect(hang[0].at - hungAt).toBeGreaterThanOrEqual(2900);
      // what the hung instance had buffered behind it went to the other one too: nothing waits on it
      expect(handled.filter((h) => h.by === hungBy)).toEqual([]);

      // the hung batch ends: that instance pulls again (alone now, it gets the next message)
      const [hungConsumer, other, otherBus] = hungBy === 'a' ? [a, b, second] : [b, a, t.bus];
      await other.stop();
      release();
      await waitFor(() => handled.some((h) => h.by === hungBy && h.email === 'hang@hung.test'), 5000, 50);
      const next = envelopeOf({ ...userEvent(9), email: 'next@hung.test' });
      await otherBus.js.publish(subject, JSON.stringify(next), { msgID: next.id });
      await waitFor(() => handled.some((h) => h.email === 'next@hung.test'), 10000, 50);
      expect(handled.find((h) => h.email === 'next@hung.test')?.by).toBe(hungBy);
      await hungConsumer.stop();
    } finally {
      release();
      await a.stop();
      await b.stop();
      running.length = 0;
      await second.close();
    }
  });

  test('a failing handler is redelivered with backoff, past any old delivery limit, until it succeeds; nothing parked', async () => {
    const attempts = new Map<string, number>();
    let broken = true;
    const c = consume(t.bus, {
      name: 'flaky',
      event: identityUserUpserted,
      backoffMs: [20, 50],
      parking: prisma,
      handler: async (data) => {
        if (!data.email.endsWith('@flaky.test')) return;
        const n = (attempts.get(data.email) ?? 0) + 1;
        attempts.set(data.email, n);
        if (data.email.startsWith('stubborn') ? broken : n < 2) throw new Error(`boom ${n}`);
      },
    });
    running.push(c);
    await c.ready;
    const subject = t.bus.naming.subject(identityUserUpserted.type);
    const good = envelopeOf({ ...userEvent(1), email: 'once@flaky.test' });
    const stubborn = envelopeOf({ ...userEvent(2), email: 'stubborn@flaky.test' });
    await t.bus.js.publish(subject, JSON.stringify(good), { msgID: good.id });
    await t.bus.js.publish(subject, JSON.stringify(stubborn), { msgID: stubborn.id });
    await waitFor(() => (attempts.get('stubborn@flaky.test') ?? 0) >= 10, 15000);
    expect(attempts.get('once@flaky.test')).toBe(2);
    expect(await prisma.parkedMessage.count({ where: { eventId: { in: [good.id, stubborn.id] } } })).toBe(0);
    broken = false;
    const before = attempts.get('stubborn@flaky.test')!;
    await waitFor(async () => {
      const info = await (await t.bus.jsm).consumers.info(t.bus.naming.stream('IDENTITY'), t.bus.naming.durable(t.bus.service, 'flaky'));
      return info.num_ack_pending === 0 && info.num_pending === 0;
    }, 15000);
    expect(attempts.get('stubborn@flaky.test')).toBeGreaterThan(before);
    expect(await prisma.parkedMessage.count({ where: { eventId: { in: [good.id, stubborn.id] } } })).toBe(0);
  });

  test('a malformed message is parked at its first delivery, not retried', async () => {
    const c = consume(t.bus, {
      name: 'strict',
      event: identityUserUpserted,
      backoffMs: [50],
      parking: prisma,
      handler: async () => undefined,
    });
    running.push(c);
    await c.ready;
    const bad = { id: randomUUID(), type: identityUserUpserted.type, source: 'x', occurredAt: new Date().toISOString(), data: { userId: 'nope' } };
    await t.bus.js.publish(t.bus.naming.subject(identityUserUpserted.type), JSON.stringify(bad), { msgID: bad.id });
    await waitFor(async () => (await prisma.parkedMessage.count({ where: { eventId: bad.id } })) === 1, 10000);
    const parked = await prisma.parkedMessage.findFirstOrThrow({ where: { eventId: bad.id } });
    expect(parked.deliveries).toBe(1);
    expect(parked.error).toMatch(/userId|uuid/i);
  });

  test("a handler's PermanentFailure is parked at once; replaying it delivers it again", async () => {
    const attempts = new Map<string, number>();
    let refuse = true;
    const c = consume(t.bus, {
      name: 'refusing',
      event: identityUserUpserted,
      backoffMs: [50],
      parking: prisma,
      handler: async (data) => {
        if (!data.email.startsWith('refused')) return;
        attempts.set(data.email, (attempts.get(data.email) ?? 0) + 1);
        if (refuse) throw new PermanentFailure('this user can never be handled');
      },
    });
    running.push(c);
    await c.ready;
    const refused = envelopeOf({ ...userEvent(3), email: 'refused@example.test' });
    await t.bus.js.publish(t.bus.naming.subject(identityUserUpserted.type), JSON.stringify(refused), { msgID: refused.id });
    await waitFor(async () => (await prisma.parkedMessage.count({ where: { eventId: refused.id } })) === 1, 10000);
    expect(attempts.get('refused@example.test')).toBe(1);
    const [listed] = (await listParkedMessages(prisma)).filter((m) => m.eventId === refused.id);
    expect(listed).toMatchObject({ consumer: t.bus.naming.durable(t.bus.service, 'refusing'), deliveries: 1 });
    expect(listed.error).toContain('this user can never be handled');

    refuse = false;
    expect(await replayParkedMessage(prisma, t.bus, listed.id)).toBe(true);
    await waitFor(() => attempts.get('refused@example.test') === 2, 10000);
    expect(await prisma.parkedMessage.count({ where: { eventId: refused.id } })).toBe(0);
    expect(await replayParkedMessage(prisma, t.bus, 999999999)).toBe(false);
  });

  test('a replay that fails again keeps the parked row with the new error, handled by this consumer only', async () => {
    let calls = 0;
    const c = consume(t.bus, {
      name: 'still-refusing',
      event: identityUserUpserted,
      backoffMs: [50],
      parking: prisma,
      handler: async (data) => {
        if (!data.email.startsWith('still')) return;
        calls += 1;
        throw new PermanentFailure(`refused ${calls}`);
      },
    });
    running.push(c);
    await c.ready;
    const refused = envelopeOf({ ...userEvent(4), email: 'still@example.test' });
    await t.bus.js.publish(t.bus.naming.subject(identityUserUpserted.type), JSON.stringify(refused), { msgID: refused.id });
    await waitFor(async () => (await prisma.parkedMessage.count({ where: { eventId: refused.id } })) === 1, 10000);
    const parked = await prisma.parkedMessage.findFirstOrThrow({ where: { eventId: refused.id } });
    expect(await replayParkedMessage(prisma, t.bus, parked.id)).toBe(true);
    expect(calls).toBe(2);
    const after = await prisma.parkedMessage.findFirstOrThrow({ where: { eventId: refused.id } });
    expect(after.error).toContain('refused 2');
    expect(after.deliveries).toBe(parked.deliveries + 1);
  });
});

/** Publishes an envelope on identityUserUpserted's subject (a second message id republishes the same event). */
async function publish(envelope: EventEnvelope, msgID: string = envelope.id): Promise<void> {
  await t.bus.js.publish(t.bus.naming.subject(identityUserUpserted.type), JSON.stringify(envelope), { msgID });
}
/** A handler's effect row, in its transaction of either kind. */
const insertEffect = (tx: RawTx | SqlTx, eventId: string, note: string) =>
  runStatement(tx, { name: 'test-insert-effect', text: 'INSERT INTO effect (event_id, note) VALUES ($1::uuid, $2)' }, [eventId, note]);
/** The transaction a handler runs in. */
const txidOf = async (tx: RawTx | SqlTx) => (await runStatement<{ txid: string }>(tx, { name: 'test-txid', text: 'SELECT txid_current()::text AS txid' }, []))[0].txid;

/** One handler call of a locking test: its event's key, its transaction, the test's keys its transaction held. */
interface LockCall {
  email: string;
  txid: string;
  held: number;
}

/**
 * The first handler of each transaction already held the keys of all the events in its batch
 * (however the server split the messages into batches), and at least one batch had several keys.
 */
function expectAllKeysHeldAtFirst(calls: LockCall[]): void {
  const batches = new Map<string, LockCall[]>();
  for (const call of calls) batches.set(call.txid, [...(batches.get(call.txid) ?? []), call]);
  const keysPerBatch = [...batches.values()].map((batch) => new Set(batch.map((call) => call.email)).size);
  expect([...batches.values()].map((batch) => batch[0].held)).toEqual(keysPerBatch);
  expect(Math.max(...keysPerBatch)).toBeGreaterThan(1);
}

describe.each([
  ['a Prisma interactive transaction', 'prisma'],
  ["a plain pg transaction on the client's own pool (plainSql)", 'sql'],
] as const)('inbox consumers batch what is buffered, in %s', (_path, path) => {
  /** A consumer of identityUserUpserted on this path; its handler's statements go through runStatement, which takes either transaction. */
  function inboxConsumer(options: {
    name: string;
    lockKey?: (data: EventData<typeof identityUserUpserted>) => string;
    backoffMs?: number[];
    handler: (data: EventData<typeof identityUserUpserted>, ctx: { tx: RawTx | SqlTx; envelope: EventEnvelope; locked: boolean }) => Promise<void>;
  }): RunningConsumer {
    const common = { ...options, name: `${options.name}-${path}`, event: identityUserUpserted, db: prisma };
    return path === 'sql' ? consumeWithInbox(t.bus, { ...common, plainSql: true }) : consumeWithInbox(t.bus, common);
  }
  const domain = (name: string) => `@${name}-${path}.test`;

  test('messages already buffered are handled in one transaction, in arrival order; a duplicate in the batch has its effect once', async () => {
    const at = domain('batch');
    const events = Array.from({ length: 20 }, (_, i) => envelopeOf({ ...userEvent(i), email: `user${i}${at}` }));
    for (const e of events) await publish(e);
    await publish(events[3], randomUUID()); // the same event again (another message id): JetStream keeps both
    const handled: { email: string; txid: string; locked: boolean }[] = [];
    const c = inboxConsumer({
      name: 'batching',
      handler: async (data, { tx, envelope, locked }) => {
        if (!data.email.endsWith(at)) return;
        handled.push({ email: data.email, txid: await txidOf(tx), locked });
        await insertEffect(tx, envelope.id, data.email);
      },
    });
    running.push(c);
    await waitFor(async () => (await prisma.effect.count({ where: { note: { endsWith: at } } })) === 20, 15000);
    await new Promise((r) => setTimeout(r, 300));
    expect(handled.map((h) => h.email)).toEqual(events.map((e) => (e.data as { email: string }).email));
    expect(handled.every((h) => !h.locked)).toBe(true); // no lockKey, no lock
    expect(await prisma.effect.count({ where: { eventId: events[3].id } })).toBe(1);
    expect(await prisma.inbox.count({ where: { eventId: { in: events.map((e) => e.id) } } })).toBe(20);
    // the stream's earlier messages and these 21 were waiting when the consumer started: a few transactions, not 20
    expect(new Set(handled.map((h) => h.txid)).size).toBeLessThanOrEqual(3);
  });

  test('a message that fails in a batch is retried or parked alone; the others commit once', async () => {
    const at = domain('poison');
    const good = Array.from({ length: 6 }, (_, i) => envelopeOf({ ...userEvent(i), email: `good${i}${at}` }));
    const poison = envelopeOf({ ...userEvent(90), email: `poison${at}` });
    const flaky = envelopeOf({ ...userEvent(91), email: `flaky${at}` });
    for (const e of [good[0], good[1], poison, good[2], flaky, good[3], good[4], good[5]]) await publish(e);
    const attempts = new Map<string, number>();
    const c = inboxConsumer({
      name: 'poisoned',
      backoffMs: [50],
      handler: async (data, { tx, envelope }) => {
        if (!data.email.endsWith(at)) return;
        const n = (attempts.get(data.email) ?? 0) + 1;
        attempts.set(data.email, n);
        await insertEffect(tx, envelope.id, data.email);
        if (data.email.startsWith('poison')) throw new PermanentFailure('never');
        if (data.email.startsWith('flaky') && n < 3) throw new Error('not yet');
      },
    });
    running.push(c);
    await waitFor(async () => (await prisma.effect.count({ where: { eventId: flaky.id } })) === 1, 15000);
    await waitFor(async () => (await prisma.parkedMessage.count({ where: { eventId: poison.id } })) === 1, 15000);
    await new Promise((r) => setTimeout(r, 300));
    for (const e of good) expect(await prisma.effect.count({ where: { eventId: e.id } })).toBe(1);
    expect(await prisma.effect.count({ where: { eventId: poison.id } })).toBe(0); // its transaction rolled back
    expect(await prisma.inbox.count({ where: { eventId: poison.id } })).toBe(0);
    expect((await prisma.parkedMessage.findFirstOrThrow({ where: { eventId: poison.id } })).deliveries).toBe(1);
    expect(attempts.get(`poison${at}`)).toBe(2); // in the batch, then alone
  });

  test('the lock keys of a batch are all held before the first handler runs', async () => {
    const at = domain('locks');
    const events = Array.from({ length: 8 }, (_, i) => envelopeOf({ ...userEvent(i), email: `user${i % 4}${at}` }));
    for (const e of events) await publish(e);
    const calls: LockCall[] = [];
    const c = inboxConsumer({
      name: 'locking',
      lockKey: (data) => `user:${data.email}`,
      handler: async (data, { tx, locked }) => {
        if (!data.email.endsWith(at)) return;
        expect(locked).toBe(true); // the handler need not take it again
        const [row] = await runStatement<{ n: number; txid: string }>(
          tx,
          {
            name: 'test-held-locks',
            text: `SELECT count(*)::int AS n, txid_current()::text AS txid FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
              AND (classid::bigint << 32 | objid::bigint) IN (SELECT hashtextextended('user:user' || i || $1, 0) FROM generate_series(0, 3) i)`,
          },
          [at],
        );
        calls.push({ email: data.email, txid: row.txid, held: row.n });
      },
    });
    running.push(c);
    await waitFor(() => calls.length === 8, 15000);
    expectAllKeysHeldAtFirst(calls);
  });
});

describe('inbox consumers: ignore and termination (Prisma transaction)', () => {
  test('ignore sees the raw data: an ignored event is acked even when it would fail the contract, never parked', async () => {
    const c = consumeWithInbox(t.bus, {
      name: 'ignoring-raw',
      event: identityUserUpserted,
      db: prisma,
      ignore: (data) => data.role === 'bot',
      handler: async (data, { tx, envelope }) => {
        await tx.effect.create({ data: { eventId: envelope.id, note: data.email } });
      },
    });
    running.push(c);
    await c.ready;
    const ignored = { id: randomUUID(), type: identityUserUpserted.type, source: 'x', occurredAt: new Date().toISOString(), data: { role: 'bot', userId: 'not-a-uuid' } };
    await publish(ignored as EventEnvelope);
    const handled = envelopeOf(userEvent(77));
    await publish(handled);
    await waitFor(async () => (await prisma.effect.count({ where: { eventId: handled.id } })) === 1, 10000);
    await waitFor(async () => {
      const info = await (await t.bus.jsm).consumers.info(t.bus.naming.stream('IDENTITY'), t.bus.naming.durable(t.bus.service, 'ignoring-raw'));
      return info.num_ack_pending === 0 && info.num_pending === 0;
    }, 10000);
    expect(await prisma.parkedMessage.count({ where: { eventId: ignored.id } })).toBe(0);
    expect(await prisma.inbox.count({ where: { eventId: ignored.id } })).toBe(0);
  });

  test('a parked message is terminated for good: the server holds it as acknowledged, it is not redelivered', async () => {
    const c = consume(t.bus, { name: 'terminating', event: identityUserUpserted, parking: prisma, handler: async () => undefined });
    running.push(c);
    await c.ready;
    const bad = { id: randomUUID(), type: identityUserUpserted.type, source: 'x', occurredAt: new Date().toISOString(), data: { userId: 'nope' } };
    await publish(bad as EventEnvelope);
    await waitFor(async () => (await prisma.parkedMessage.count({ where: { eventId: bad.id } })) === 1, 10000);
    // a term the server did not understand (NATS 2.9 and `+TERM <reason>`) leaves it pending: redelivered after ack_wait
    await waitFor(async () => {
      const info = await (await t.bus.jsm).consumers.info(t.bus.naming.stream('IDENTITY'), t.bus.naming.durable(t.bus.service, 'terminating'));
      return info.num_pending === 0 && info.delivered.stream_seq === info.ack_floor.stream_seq;
    }, 5000);
  });
});

describe('inbox consumers on plain SQL: literals and rollback', () => {
  test('claimAndHandle: a batch is one statement, its own transaction: claimed once, in arrival order, with every lock key held first', async () => {
    const at = '@sql-claim.test';
    const events = Array.from({ length: 12 }, (_, i) => envelopeOf({ ...userEvent(i), email: `user${i % 5}-${i}${at}` }));
    for (const e of events) await publish(e);
    await publish(events[5], randomUUID()); // the same event again: handed over and claimed once (one effect)
    const batches: { ids: string[]; keys: string[] }[] = [];
    const c = consumeWithInbox(t.bus, {
      name: 'sql-claim',
      event: identityUserUpserted,
      db: prisma,
      plainSql: true,
      lockKey: (data) => `user:${data.email.split('-')[0]}`,
      claimAndHandle: async (batch, claim, pool) => {
        expect(claim.eventIds).toEqual(batch.map((e) => e.id));
        await pool.query({ name: 'test-claim-and-handle', text: 'SELECT test_claim_and_handle($1, $2::uuid[], $3::text[], $4::jsonb)', values: [claim.consumer, claim.eventIds, claim.lockKeys, JSON.stringify(batch)] });
        batches.push({ ids: claim.eventIds, keys: claim.lockKeys }); // the batches that committed
      },
    });
    running.push(c);
    await waitFor(async () => (await prisma.effect.count({ where: { note: { contains: at } } })) === 12, 15000);
    await new Promise((r) => setTimeout(r, 300));
    const effects = (await prisma.effect.findMany({ where: { note: { contains: at } }, orderBy: { id: 'asc' } })).map((e) => {
      const [email, txid, held] = e.note.split(' ');
      return { eventId: e.eventId, email, txid, held: Number(held) };
    });
    expect(effects.map((e) => e.eventId)).toEqual(events.map((e) => e.id));
    // each transaction held all of its batch's keys from its first write on, and a batch held several
    const mine = batches.filter((b) => b.ids.some((id) => events.some((e) => e.id === id)));
    expect(effects.map((e) => e.held)).toEqual(effects.map((e) => mine.find((b) => b.ids.includes(e.eventId))!.keys.length));
    expect(Math.max(...effects.map((e) => e.held))).toBeGreaterThan(1);
    expect(new Set(effects.map((e) => e.txid)).size).toBeLessThan(12);
    expect(mine.every((b) => JSON.stringify(b.keys) === JSON.stringify([...new Set(b.keys)].sort()))).toBe(true);
    expect(await prisma.inbox.count({ where: { eventId: { in: events.map((e) => e.id) } } })).toBe(12);
  });

  test('claimAndHandle: a batch whose statement fails is handled again message by message; the failing one leaves no inbox row, the others commit once', async () => {
    const at = '@sql-claim-poison.test';
    const good = Array.from({ length: 5 }, (_, i) => envelopeOf({ ...userEvent(i), email: `good${i}${at}` }));
    const poison = envelopeOf({ ...userEvent(9), email: `poison${at}` });
    for (const e of [good[0], good[1], poison, good[2], good[3], good[4]]) await publish(e);
    const c = consumeWithInbox(t.bus, {
      name: 'sql-claim-poison',
      event: identityUserUpserted,
      db: prisma,
      plainSql: true,
      backoffMs: [60_000], // redelivered only long after the test
      claimAndHandle: async (batch, claim, pool) => {
        await pool.query({ name: 'test-claim-and-handle', text: 'SELECT test_claim_and_handle($1, $2::uuid[], $3::text[], $4::jsonb)', values: [claim.consumer, claim.eventIds, claim.lockKeys, JSON.stringify(batch)] });
      },
    });
    running.push(c);
    await waitFor(async () => (await prisma.effect.count({ where: { note: { contains: at } } })) === 5, 15000);
    await new Promise((r) => setTimeout(r, 300));
    for (const e of good) expect(await prisma.effect.count({ where: { eventId: e.id } })).toBe(1);
    expect(await prisma.effect.count({ where: { eventId: poison.id } })).toBe(0);
    expect(await prisma.inbox.count({ where: { eventId: poison.id } })).toBe(0);
    expect(await prisma.inbox.count({ where: { eventId: { in: good.map((e) => e.id) } } })).toBe(5);
  });

  test('lock keys and the consumer name reach SQL as literals: a quote in a key is data, and that key is the one locked', async () => {
    const key = (email: string) => `user:${email}'); DROP TABLE effect; --`;
    const events = Array.from({ length: 3 }, (_, i) => envelopeOf({ ...userEvent(i), email: `o'brien${i}@sql-quotes.test` }));
    for (const e of events) await publish(e);
    const held: boolean[] = [];
    const c = consumeWithInbox(t.bus, {
      name: 'sql-quoting',
      event: identityUserUpserted,
      db: prisma,
      plainSql: true,
      lockKey: (data) => key(data.email),
      handler: async (data, { tx, envelope }) => {
        if (!data.email.endsWith('@sql-quotes.test')) return;
        const { rows } = await tx.query<{ n: number }>({
          text: `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND (classid::bigint << 32 | objid::bigint) = hashtextextended($1, 0)`,
          values: [key(data.email)],
        });
        held.push(rows[0].n === 1);
        await insertEffect(tx, envelope.id, data.email);
      },
    });
    running.push(c);
    await waitFor(async () => (await prisma.effect.count({ where: { note: { endsWith: '@sql-quotes.test' } } })) === 3, 15000);
    expect(held).toEqual([true, true, true]);
    expect(await prisma.inbox.count({ where: { eventId: { in: events.map((e) => e.id) } } })).toBe(3);
  });

  test('a handler that fails after writing leaves nothing behind (rolled back), and the connection goes back clean', async () => {
    const failing = envelopeOf({ ...userEvent(1), email: 'fails@sql-rollback.test' });
    const after = envelopeOf({ ...userEvent(2), email: 'after@sql-rollback.test' });
    let failures = 0;
    const c = consumeWithInbox(t.bus, {
      name: 'sql-rollback',
      event: identityUserUpserted,
      db: prisma,
      plainSql: true,
      backoffMs: [60_000], // redelivered only long after the test: each failure is seen once
      handler: async (data, { tx, envelope }) => {
        if (!data.email.endsWith('@sql-rollback.test')) return;
        await insertEffect(tx, envelope.id, data.email);
        if (data.email.startsWith('fails')) {
          failures += 1;
          throw new Error('handler failed after its insert');
        }
      },
    });
    running.push(c);
    await c.ready;
    await publish(failing);
    await waitFor(() => failures >= 1, 10000);
    await publish(after);
    await waitFor(async () => (await prisma.effect.count({ where: { eventId: after.id } })) === 1, 10000);
    expect(await prisma.effect.count({ where: { eventId: failing.id } })).toBe(0);
    expect(await prisma.inbox.count({ where: { eventId: failing.id } })).toBe(0);
    expect(await prisma.parkedMessage.count({ where: { eventId: failing.id } })).toBe(0); // transient: retried later, not parked
    // every pooled connection is idle, none left inside the failed transaction
    const { rows } = await sqlPoolOf(prisma).query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()
         AND application_name = (SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid())`,
    );
    expect(rows[0].n).toBe(0);
  });
});

describe('consumers while their database refuses them', () => {
  const role = `bus_outage_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let restricted: PrismaClient;
  const schema = () => schemaFromUrl(db.databaseUrl);
  const sql = (text: string) => prisma.$executeRawUnsafe(text);
  const grantAll = () => sql(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema()}" TO ${role}`);

  beforeAll(async () => {
    await sql(`CREATE ROLE ${role} LOGIN`);
    await sql(`GRANT USAGE ON SCHEMA "${schema()}" TO ${role}`);
    await sql(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA "${schema()}" TO ${role}`);
    await grantAll();
    const url = new URL(db.databaseUrl);
    url.username = role;
    restricted = createPrisma(PrismaClient, url.toString());
  });
  afterAll(async () => {
    await restricted?.$disconnect();
    await sql(`REVOKE ALL ON ALL TABLES IN SCHEMA "${schema()}" FROM ${role}`);
    await sql(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA "${schema()}" FROM ${role}`);
    await sql(`REVOKE ALL ON SCHEMA "${schema()}" FROM ${role}`);
    await sql(`DROP ROLE ${role}`);
  });

  test('a database outage never drops a message: retried past any delivery limit, its effect once when it is back', async () => {
    const attempts = new Map<string, number>();
    const c = consumeWithInbox(t.bus, {
      name: 'outage-inbox',
      event: identityUserUpserted,
      backoffMs: [50, 100],
      db: restricted,
      handler: async (data, ctx) => {
        if (data.email !== 'patient@example.test') return;
        attempts.set(data.email, (attempts.get(data.email) ?? 0) + 1);
        await ctx.tx.effect.create({ data: { eventId: ctx.envelope.id, note: data.email } });
      },
    });
    running.push(c);
    await c.ready;
    await sql(`REVOKE INSERT ON "${schema()}".effect FROM ${role}`);
    const event = envelopeOf({ ...userEvent(4), email: 'patient@example.test' });
    await t.bus.js.publish(t.bus.naming.subject(identityUserUpserted.type), JSON.stringify(event), { msgID: event.id });
    // far more deliveries than the old limit of 6, none of them parked or terminated
    await waitFor(() => (attempts.get('patient@example.test') ?? 0) >= 12, 20000);
    expect(await prisma.effect.count({ where: { eventId: event.id } })).toBe(0);
    expect(await prisma.parkedMessage.count({ where: { eventId: event.id } })).toBe(0);

    await grantAll();
    await waitFor(async () => (await prisma.effect.count({ where: { eventId: event.id } })) === 1, 20000);
    await new Promise((r) => setTimeout(r, 300));
    expect(await prisma.effect.count({ where: { eventId: event.id } })).toBe(1);
    expect(await prisma.parkedMessage.count({ where: { eventId: event.id } })).toBe(0);
    const durable = await (await t.bus.jsm).consumers.info(t.bus.naming.stream('IDENTITY'), t.bus.naming.durable(t.bus.service, 'outage-inbox'));
    expect(durable.config.max_deliver).toBe(-1);
  });

  test('when the dead-letter insert fails, the message is nak\'ed (never terminated) and parked once it can be', async () => {
    const parkFailures: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void (JSON.parse(line).msg === 'could not park message; will redeliver' && parkFailures.push(line)) });
    const bus = await Bus.connect({ ...t.bus.options, log });
    try {
      const c = consume(bus, { name: 'outage-parking', event: identityUserUpserted, backoffMs: [50, 100], parking: restricted, handler: async () => undefined });
      running.push(c);
      await c.ready;
      await sql(`REVOKE INSERT ON "${schema()}".parked_message FROM ${role}`);
      const bad = { id: randomUUID(), type: identityUserUpserted.type, source: 'x', occurredAt: new Date().toISOString(), data: { userId: 'still-not-a-uuid' } };
      await t.bus.js.publish(t.bus.naming.subject(identityUserUpserted.type), JSON.stringify(bad), { msgID: bad.id });
      await waitFor(() => parkFailures.filter((l) => l.includes(bad.id)).length >= 3, 20000);
      expect(await prisma.parkedMessage.count({ where: { eventId: bad.id } })).toBe(0);

      await grantAll();
      await waitFor(async () => (await prisma.parkedMessage.count({ where: { eventId: bad.id } })) === 1, 20000);
      await new Promise((r) => setTimeout(r, 300));
      expect(await prisma.parkedMessage.count({ where: { eventId: bad.id } })).toBe(1);
    } finally {
      while (running.length) await running.pop()!.stop();
      await bus.close();
    }
  });
});

describe('rpc', () => {
  const echo = defineRpc('rpc.test.echo', z.object({ text: z.string().min(1) }), z.object({ upper: z.string() }));
  const slow = defineRpc('rpc.test.slow', z.object({}), z.object({}));
  const nobody = defineRpc('rpc.test.nobody', z.object({}), z.object({}));

  beforeAll(() => {
    serveRpc(t.bus, echo, async ({ text }, ctx) => {
      if (text === 'refuse') throw new RpcRefusal('refused_here', 'not today');
      if (text === 'crash') throw new Error('secret internals');
      return { upper: `${text.toUpperCase()}:${ctx.requestId ?? ''}` };
    });
    serveRpc(t.bus, slow, async () => {
      await new Promise((r) => setTimeout(r, 500));
      return {};
    });
  });

  test('answers with validated data and carries the request id', async () => {
    await expect(callRpc(t.bus, echo, { text: 'hi' }, { requestId: 'req-1' })).resolves.toEqual({ upper: 'HI:req-1' });
  });

  test('a refusal becomes RpcFailedError with its code', async () => {
    const err = await callRpc(t.bus, echo, { text: 'refuse' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcFailedError);
    expect((err as RpcFailedError).code).toBe('refused_here');
  });

  test('a handler crash answers internal without leaking the message', async () => {
    const err = (await callRpc(t.bus, echo, { text: 'crash' }).catch((e: unknown) => e)) as RpcFailedError;
    expect(err.code).toBe('internal');
    expect(err.message).not.toContain('secret');
  });

  test('the caller validates its request before sending', async () => {
    await expect(callRpc(t.bus, echo, { text: '' })).rejects.toThrow();
  });

  test('no responders is a typed unavailable error', async () => {
    const err = (await callRpc(t.bus, nobody, {}).catch((e: unknown) => e)) as RpcUnavailableError;
    expect(err).toBeInstanceOf(RpcUnavailableError);
    expect(err.reason).toBe('no_responders');
  });

  test('a slow peer times out', async () => {
    const err = (await callRpc(t.bus, slow, {}, { timeoutMs: 100 }).catch((e: unknown) => e)) as RpcUnavailableError;
    expect(err).toBeInstanceOf(RpcUnavailableError);
    expect(err.reason).toBe('timeout');
  });
});
