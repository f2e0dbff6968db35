/** Contract versions on the wire: the envelope's version for events, the subject for rpc versions after 1. */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { defineEvent, defineRpc, identityUserUpserted, rpcSubjectOf } from '@pasar/contracts';
import { createPrisma, createTestSchema, schemaFromUrl } from '@pasar/db';
import { createTestBus, waitFor, type TestBus } from '@pasar/testkit';
import { z } from 'zod';
import { PrismaClient } from '../test/generated/client';
import { consume } from './consumer';
import { RpcUnavailableError } from './errors';
import { migrateServiceSchema } from './migrations';
import { enqueueEvent, OutboxRelay } from './outbox';
import { callRpc, serveRpc } from './rpc';

let db: Awaited<ReturnType<typeof createTestSchema>>;
let prisma: PrismaClient;
let t: TestBus;
const running: { stop(): Promise<void> | void }[] = [];

beforeAll(async () => {
  db = await createTestSchema();
  await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: join(__dirname, '../test/fixture/migrations') });
  prisma = createPrisma(PrismaClient, db.databaseUrl);
  t = await createTestBus('versions');
});

afterEach(async () => {
  while (running.length) await running.pop()!.stop();
});

afterAll(async () => {
  await t.close();
  await prisma.$disconnect();
  await db.drop();
});

const user = (email: string) => ({ userId: randomUUID(), email, fullName: 'V', phone: null, role: 'customer' as const, updatedAt: new Date().toISOString() });

describe('event versions', () => {
  test('the outbox writes the contract version into the envelope, and the consumer sees it', async () => {
    const versions: (number | undefined)[] = [];
    const c = consume(t.bus, { name: 'sees-version', event: identityUserUpserted, handler: async (_data, ctx) => void versions.push(ctx.envelope.version) });
    running.push(c);
    await c.ready;
    const relay = new OutboxRelay({ bus: t.bus, databaseUrl: db.databaseUrl, schema: schemaFromUrl(db.databaseUrl), pollMs: 50 });
    relay.start();
    running.push(relay);
    const envelope = await prisma.$transaction((tx) => enqueueEvent(tx, identityUserUpserted, user('v1@versions.test'), { source: 'test' }));
    expect(envelope.version).toBe(1);
    await waitFor(() => versions.length === 1, 10_000);
    expect(versions).toEqual([1]);
  });

  // the durables start at the stream's beginning: each test looks only at its own addresses
  test('a version the consumer does not know is parked, never handled; an envelope without a version is version 1', async () => {
    const all: string[] = [];
    const handled = () => all.filter((email) => /^(v2|old)@/.test(email));
    const c = consume(t.bus, { name: 'knows-v1', event: identityUserUpserted, backoffMs: [50], parking: prisma, handler: async (data) => void all.push(data.email) });
    running.push(c);
    await c.ready;
    const subject = t.bus.naming.subject(identityUserUpserted.type);
    const base = { type: identityUserUpserted.type, source: 'test', occurredAt: new Date().toISOString() };
    const future = { ...base, id: randomUUID(), version: 2, data: user('v2@versions.test') };
    const unversioned = { ...base, id: randomUUID(), data: user('old@versions.test') };
    await t.bus.js.publish(subject, JSON.stringify(future), { msgID: future.id });
    await t.bus.js.publish(subject, JSON.stringify(unversioned), { msgID: unversioned.id });
    await waitFor(async () => handled().length === 1 && (await prisma.parkedMessage.count({ where: { eventId: future.id } })) === 1, 10_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(handled()).toEqual(['old@versions.test']);
    const parked = await prisma.parkedMessage.findFirstOrThrow({ where: { eventId: future.id } });
    expect(parked.error).toMatch(/identity\.user\.upserted version 2 is not one this consumer knows \(1\)/);
  });

  test('a consumer that knows both versions handles both', async () => {
    const v2 = defineEvent(identityUserUpserted.type, identityUserUpserted.data, { version: 2 });
    expect(v2.version).toBe(2);
    const handled: string[] = [];
    const c = consume(t.bus, { name: 'knows-both', event: v2, versions: [1, 2], handler: async (data) => void handled.push(data.email) });
    running.push(c);
    await c.ready;
    const subject = t.bus.naming.subject(v2.type);
    for (const [version, email] of [[1, 'one@versions.test'], [2, 'two@versions.test']] as const) {
      const envelope = { id: randomUUID(), type: v2.type, version, source: 'test', occurredAt: new Date().toISOString(), data: user(email) };
      await t.bus.js.publish(subject, JSON.stringify(envelope), { msgID: envelope.id });
    }
    const mine = () => handled.filter((e) => e === 'one@versions.test' || e === 'two@versions.test').sort();
    await waitFor(() => mine().length === 2, 10_000);
    expect(mine()).toEqual(['one@versions.test', 'two@versions.test']);
  });

  test('a version must be a whole number from 1', () => {
    expect(() => defineEvent('identity.x.y', z.object({}), { version: 0 })).toThrow(/bad version 0 of identity\.x\.y/);
    expect(() => defineRpc('rpc.x.y', z.object({}), z.object({}), { version: 1.5 })).toThrow(/bad version/);
  });
});

describe('rpc versions', () => {
  const v1 = defineRpc('rpc.versions.echo', z.object({ text: z.string() }), z.object({ text: z.string() }));
  const v2 = defineRpc('rpc.versions.echo', z.object({ words: z.array(z.string()) }), z.object({ text: z.string() }), { version: 2 });

  test('version 1 is asked on the plain subject, a later one on <subject>.v<N>', () => {
    expect(rpcSubjectOf(v1)).toBe('rpc.versions.echo');
    expect(rpcSubjectOf(v2)).toBe('rpc.versions.echo.v2');
  });

  test('a server answers both versions side by side; a caller of a version nobody serves gets RpcUnavailableError', async () => {
    const onlyV2 = serveRpc(t.bus, v2, async ({ words }) => ({ text: words.join(' ') }));
    running.push({ stop: () => onlyV2.unsubscribe() });
    await expect(callRpc(t.bus, v2, { words: ['a', 'b'] })).resolves.toEqual({ text: 'a b' });
    await expect(callRpc(t.bus, v1, { text: 'x' }, { timeoutMs: 500 })).rejects.toBeInstanceOf(RpcUnavailableError);
    const alsoV1 = serveRpc(t.bus, v1, async ({ text }) => ({ text }));
    running.push({ stop: () => alsoV1.unsubscribe() });
    await expect(callRpc(t.bus, v1, { text: 'x' })).resolves.toEqual({ text: 'x' });
  });
});
