import { signFor } from '@pasar/testkit';
import { startHarness, type NotifierHarness } from '../test/harness';

let h: NotifierHarness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe('notifier boot', () => {
  it('answers /healthz', async () => {
    const res = await fetch(`${h.notifier.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', service: 'notifier' });
  });

  it('answers /readyz with the database and NATS checked', async () => {
    const res = await fetch(`${h.notifier.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', service: 'notifier', checks: { database: 'ok', nats: 'ok' } });
  });

  it('has no public routes', async () => {
    const res = await fetch(`${h.notifier.url}/api/v1/emails`, { headers: signFor('GET', '/api/v1/emails', { role: 'admin' }) });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  it('migrated its schema on start', async () => {
    await expect(h.notifier.prisma.emailLog.count()).resolves.toBe(0);
  });
});

describe('notifier api', () => {
  it('still rejects calls without the gateway signature', async () => {
    const res = await fetch(`${h.notifier.url}/api/v1/emails`);
    expect(res.status).toBe(401);
  });
});
