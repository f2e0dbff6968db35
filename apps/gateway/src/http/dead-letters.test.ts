/**
 * Operators see and replay dead letters through the gateway: each service serves its own under
 * /admin/dead-letters/<service> (service-kit), the gateway lets administrators only through.
 * Here the gateway's own: a test consumer on its schema parks a message it cannot handle yet.
 */
import { randomUUID } from 'node:crypto';
import { consumeWithInbox, PermanentFailure, type RunningConsumer } from '@pasar/bus';
import {
  deadLetterDiscard,
  deadLetterMessage,
  deadLetterSummary,
  vendorShipmentStatusChanged,
} from '@pasar/contracts';
import { eventEnvelope, publishEvent, shipmentChange, waitFor } from '@pasar/testkit';
import request from 'supertest';
import { z } from 'zod';
import type { GatewayHandle } from '../app';
import { createTestWorld, signIn, signUp, uniqueEmail, type TestWorld } from '../../test/harness';

const ADMIN = { email: 'ops-admin@example.test', password: 'an operator password' };
const TYPE = vendorShipmentStatusChanged.type;
const BASE = '/api/v1/admin/dead-letters/gateway';

let world: TestWorld;
let gateway: GatewayHandle;
let adminCookie: string;
let customerCookie: string;
let consumer: RunningConsumer;
/** While true the test consumer refuses every event for good (it is parked). */
let broken = true;
const handled: string[] = [];

beforeAll(async () => {
  world = await createTestWorld();
  gateway = await world.start({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  adminCookie = (await signIn(gateway.url, ADMIN.email, ADMIN.password)).cookie;
  customerCookie = (await signUp(gateway.url, uniqueEmail('not-an-operator'))).cookie;
  consumer = consumeWithInbox(gateway.bus, {
    name: 'dead-letter-test',
    event: vendorShipmentStatusChanged,
    db: gateway.prisma,
    handler: async (change) => {
      if (broken) throw new PermanentFailure('cannot handle this yet');
      handled.push(change.shipmentId);
    },
  });
  world.consumers.push(consumer);
  await consumer.ready;
});
afterAll(() => world.close());

const asAdmin = (req: request.Test) => req.set('Cookie', adminCookie);
const parkedCount = async () => Number((await gateway.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM parked_message'))[0].n);

/** vendor publishes a shipment change; the test consumer parks it while broken. Answers the shipment id. */
async function publishChange(): Promise<{ shipmentId: string; eventId: string }> {
  const event = eventEnvelope(vendorShipmentStatusChanged, shipmentChange(), 'vendor');
  await publishEvent(world.peer.bus, event);
  return { shipmentId: event.data.shipmentId, eventId: event.id };
}

async function parkedMessageOf(eventId: string) {
  return waitFor(async () => {
    const res = await asAdmin(request(gateway.url).get(`${BASE}/messages?kind=consumer&type=${TYPE}`)).expect(200);
    return z.array(deadLetterMessage).parse(res.body).find((m) => m.eventId === eventId) ?? null;
  });
}

test('a parked message is listed, counted on /metrics, replayed and consumed once', async () => {
  broken = true;
  const { shipmentId, eventId } = await publishChange();
  const parked = await parkedMessageOf(eventId);
  expect(parked).toMatchObject({ kind: 'consumer', type: TYPE, consumer: 'gateway_dead-letter-test', error: expect.stringContaining('cannot handle this yet') });

  const summary = deadLetterSummary.parse((await asAdmin(request(gateway.url).get(BASE)).expect(200)).body);
  const group = summary.groups.find((g) => g.kind === 'consumer' && g.type === TYPE);
  expect(group).toMatchObject({ consumer: 'gateway_dead-letter-test', count: 1, lastError: expect.stringContaining('cannot handle this yet') });
  expect(summary.total).toBeGreaterThanOrEqual(1);
  expect(Date.parse(group!.firstSeen)).toBeLessThanOrEqual(Date.parse(group!.lastSeen));
  const metrics = await request(gateway.opsUrl!).get('/metrics').expect(200);
  expect(metrics.text).toMatch(/pasar_dead_letters\{kind="consumer"[^}]*\} [1-9]/);

  broken = false;
  const replay = await asAdmin(request(gateway.url).post(`${BASE}/messages/consumer/${parked.id}/replay`)).expect(200);
  expect(replay.body).toEqual({ replayed: 1 });
  await waitFor(() => handled.includes(shipmentId));
  expect(await parkedCount()).toBe(0);
  // replayed once only: the row is gone, and the event handled once however often it arrives
  await asAdmin(request(gateway.url).post(`${BASE}/messages/consumer/${parked.id}/replay`)).expect(404);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(handled.filter((id) => id === shipmentId)).toHaveLength(1);
});

test('replay all of a type: every parked message of it is handled', async () => {
  broken = true;
  const changes = [await publishChange(), await publishChange()];
  for (const change of changes) await parkedMessageOf(change.eventId);
  broken = false;
  const res = await asAdmin(request(gateway.url).post(`${BASE}/replay`)).send({ kind: 'consumer', type: TYPE }).expect(200);
  expect(res.body).toEqual({ replayed: 2 });
  await waitFor(() => changes.every((change) => handled.includes(change.shipmentId)));
  expect(await parkedCount()).toBe(0);
});

test('an outbox dead letter is replayed into the outbox; replay-all of an outbox type', async () => {
  const ids = [randomUUID(), randomUUID()];
  for (const id of ids) {
    await gateway.prisma.$executeRawUnsafe(
      `INSERT INTO outbox_dead_letter (id, seq, type, payload, created_at, error) VALUES ($1::uuid, 1, 'test.dead.outbox', '{"big":true}', now(), 'max_payload exceeded')`,
      id,
    );
  }
  const listed = z.array(deadLetterMessage).parse((await asAdmin(request(gateway.url).get(`${BASE}/messages?kind=outbox&type=test.dead.outbox`)).expect(200)).body);
  expect(listed.map((m) => m.id).sort()).toEqual([...ids].sort());
  expect(listed[0]).toMatchObject({ kind: 'outbox', consumer: null, deliveries: null, error: 'max_payload exceeded' });
  await asAdmin(request(gateway.url).post(`${BASE}/messages/outbox/${ids[0]}/replay`)).expect(200);
  expect((await asAdmin(request(gateway.url).post(`${BASE}/replay`)).send({ kind: 'outbox', type: 'test.dead.outbox' }).expect(200)).body).toEqual({ replayed: 1 });
  const back = await gateway.prisma.$queryRawUnsafe<{ id: string }[]>('SELECT id::text AS id FROM outbox WHERE id = ANY($1::uuid[])', ids);
  expect(back).toHaveLength(2);
});

test('discard keeps an audit row with the reason and who; the message is gone', async () => {
  broken = true;
  const { eventId } = await publishChange();
  const parked = await parkedMessageOf(eventId);
  await asAdmin(request(gateway.url).post(`${BASE}/messages/consumer/${parked.id}/discard`)).send({ reason: '' }).expect(400);
  const res = await asAdmin(request(gateway.url).post(`${BASE}/messages/consumer/${parked.id}/discard`)).send({ reason: 'a test event, never real' }).expect(201);
  const discard = deadLetterDiscard.parse(res.body);
  expect(discard).toMatchObject({ kind: 'consumer', messageId: parked.id, type: TYPE, eventId, reason: 'a test event, never real', discardedBy: expect.any(String) });
  expect(await parkedCount()).toBe(0);
  const audit = z.array(deadLetterDiscard).parse((await asAdmin(request(gateway.url).get(`${BASE}/discards`)).expect(200)).body);
  expect(audit.map((d) => d.id)).toContain(discard.id);
  const [row] = await gateway.prisma.$queryRawUnsafe<{ payload: string }[]>('SELECT payload FROM dead_letter_discard WHERE id = $1::bigint', discard.id);
  expect(JSON.parse(row.payload)).toMatchObject({ id: eventId, type: TYPE });
  await asAdmin(request(gateway.url).post(`${BASE}/messages/consumer/${parked.id}/discard`)).send({ reason: 'again' }).expect(404);
  broken = false;
});

test('administrators only: a customer gets 403 for every service, anonymous 401; bad ids 400 or 404', async () => {
  for (const service of ['gateway', 'checkout', 'b2b', 'vendor', 'admin']) {
    const res = await request(gateway.url).get(`/api/v1/admin/dead-letters/${service}`).set('Cookie', customerCookie);
    expect([service, res.status, res.body.code]).toEqual([service, 403, 'forbidden']);
    expect((await request(gateway.url).get(`/api/v1/admin/dead-letters/${service}`)).status).toBe(401);
  }
  await request(gateway.url).post(`${BASE}/messages/consumer/1/replay`).set('Cookie', customerCookie).expect(403);
  await asAdmin(request(gateway.url).post(`${BASE}/messages/consumer/not-a-number/replay`)).expect(404);
  await asAdmin(request(gateway.url).post(`${BASE}/messages/elsewhere/1/replay`)).expect(400);
  await asAdmin(request(gateway.url).post(`${BASE}/replay`)).send({ kind: 'consumer' }).expect(400);
});
