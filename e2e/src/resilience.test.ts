/**
 * Black-box resilience: a stopped service answers 503 through the gateway until it is back, and a
 * message delivered twice has its effect once.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { baseDatabaseUrl } from '@pasar/stack';
import type { TestBus } from '@pasar/testkit';
import { connectStackBus, envelope, publish, waitForAck } from './support/bus';
import type { Problem } from './support/http';
import { newCustomer } from './support/identity';
import { API, startE2eStack, withLogs, type E2eStack } from './support/stack';

let e2e: E2eStack | undefined;
let testBus: TestBus | undefined;
let db: pg.Client | undefined;

beforeAll(async () => {
  e2e = await startE2eStack();
  testBus = await connectStackBus(e2e);
  db = new pg.Client({ connectionString: baseDatabaseUrl(e2e.stack.databaseUrl) });
  await db.connect();
}, 180_000);

afterAll(async () => {
  await db?.end();
  // the stack's stop deletes the namespace's streams; this connection only closes
  await testBus?.bus.close();
  await e2e?.stop();
}, 60_000);

function env(): { e2e: E2eStack; bus: TestBus; db: pg.Client } {
  if (!e2e || !testBus || !db) throw new Error('the stack did not start');
  return { e2e, bus: testBus, db };
}

describe('a service that is down', () => {
  it(
    'answers 503 problem+json through the gateway, and 200 again once it is back',
    withLogs(
      () => e2e,
      async () => {
        const { stack } = env().e2e;
        const browser = env().e2e.client();
        expect((await browser.post(`${API}/auth/sign-up`, newCustomer('outage'))).status).toBe(201);
        expect((await browser.get(`${API}/account/addresses`)).status).toBe(200);

        // with several instances, the others answer while one is stopped (the gateway skips it)
        const [last, ...others] = [...stack.instances.checkout].reverse();
        for (const instance of others) await instance.stop();
        for (let i = 0; i < 4; i += 1) expect((await browser.get(`${API}/account/addresses`)).status).toBe(200);

        await last.stop();
        const down = await browser.get<Problem>(`${API}/account/addresses`);
        expect(down.status).toBe(503);
        expect(down.contentType).toMatch(/^application\/problem\+json/);
        expect(down.body).toMatchObject({ status: 503, code: 'service_unavailable' });
        // the gateway's own routes keep working
        expect((await browser.get(`${API}/auth/session`)).status).toBe(200);

        await Promise.all(stack.instances.checkout.map((instance) => instance.start()));
        const back = await browser.get(`${API}/account/addresses`);
        expect(back.status).toBe(200);
        expect(back.body).toEqual([]);
      },
    ),
    120_000,
  );
});

describe('a message delivered twice', () => {
  it(
    'identity.user.upserted: one inbox row and one replica row in checkout',
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stackEnv, bus, db } = env();
        const schema = stackEnv.stack.schemas.checkout;
        const user = {
          userId: randomUUID(),
          email: `twice-${randomUUID().slice(0, 8)}@e2e.pasar.test`,
          fullName: 'Twice Delivered',
          phone: null,
          role: 'customer',
          updatedAt: new Date().toISOString(),
        };
        const event = envelope('identity.user.upserted', user);
        await publish(bus, event);
        const second = await publish(bus, event); // same event id, another JetStream msg id
        await waitForAck(bus, 'IDENTITY', 'checkout_user-replica', second);

        const inbox = await db.query(`SELECT consumer FROM "${schema}".inbox WHERE event_id = $1`, [event.id]);
        expect(inbox.rows).toHaveLength(1);
        const replica = await db.query<{ email: string; full_name: string; updated_at: Date }>(
          `SELECT email, full_name, updated_at FROM "${schema}".user_replica WHERE user_id = $1`,
          [user.userId],
        );
        expect(replica.rows).toHaveLength(1);
        expect(replica.rows[0]).toMatchObject({ email: user.email, full_name: 'Twice Delivered' });
        expect(replica.rows[0].updated_at.toISOString()).toBe(user.updatedAt);
      },
    ),
    60_000,
  );

  it(
    'notify.email.requested: one e-mail, whether the event or only its messageId repeats',
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stackEnv, bus } = env();
        const { smtp } = stackEnv;
        const to = `mail-${randomUUID().slice(0, 8)}@e2e.pasar.test`;
        const message = { messageId: randomUUID(), to, template: 'welcome', vars: { fullName: 'Twice Mailed' } };
        const byMessageId = (m: { header(name: string): string | undefined }) => m.header('x-pasar-message-id') === message.messageId;

        const event = envelope('notify.email.requested', message);
        await publish(bus, event);
        await publish(bus, event); // the same event again (another msg id)
        const third = await publish(bus, envelope('notify.email.requested', message)); // a new event, the same messageId
        await smtp.waitFor(byMessageId, 30_000);
        await waitForAck(bus, 'NOTIFY', 'notifier_email-requested', third);
        // nothing else for this message is still on its way
        await new Promise((r) => setTimeout(r, 500));
        expect(smtp.messages.filter(byMessageId)).toHaveLength(1);
        expect(smtp.messages.filter((m) => m.to.includes(to))).toHaveLength(1);
      },
    ),
    60_000,
  );
});
