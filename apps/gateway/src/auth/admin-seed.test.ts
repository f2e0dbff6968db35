import { identityUserUpserted } from '@pasar/contracts';
import { createService, type RunningServer } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, silentLog } from '@pasar/testkit';
import request from 'supertest';
import { collectEvents, createTestWorld, signIn, signUp, type TestWorld } from '../../test/harness';

/** A domain service built like the real ones (signed identity check) that answers with the identity it got. */
function startIdentityEcho(): Promise<RunningServer> {
  const service = createService({
    name: 'checkout',
    log: silentLog,
    identitySecret: TEST_IDENTITY_SECRET,
    routes: (router) => {
      router.all('/{*rest}', (req, res) => {
        res.json({ path: req.originalUrl, identity: req.identity });
      });
    },
  });
  return service.listen(0);
}

describe('administrator seed', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld();
  });
  afterAll(() => world.close());

  it('creates the admin at start, leaves it alone on restart, and resets password and role when they differ', async () => {
    const email = 'root@pasar.test';
    const events = collectEvents(world, identityUserUpserted);

    // an ordinary customer already has the e-mail
    const first = await world.start();
    const customer = await signUp(first.url, email, 'customer password', 'Was A Customer');
    await first.close();
    world.gateways.splice(0);

    const seeded = await world.start({ ADMIN_EMAIL: 'Root@Pasar.Test', ADMIN_PASSWORD: 'admin password 1' });
    // the customer's sessions ended with the password change; the account is now the admin
    await request(seeded.url).get('/api/v1/auth/session').set('Cookie', customer.cookie).expect(401);
    const admin = await signIn(seeded.url, email, 'admin password 1');
    const session = await request(seeded.url).get('/api/v1/auth/session').set('Cookie', admin.cookie).expect(200);
    expect(session.body.user).toMatchObject({ id: customer.id, email, role: 'admin', mustChangePassword: false });
    await events.waitFor((e) => e.userId === customer.id && e.role === 'admin');

    // same settings again (another instance): nothing changes, the session survives
    const again = await world.start({ ADMIN_EMAIL: email, ADMIN_PASSWORD: 'admin password 1' });
    await request(again.url).get('/api/v1/auth/session').set('Cookie', admin.cookie).expect(200);
    expect(await again.prisma.user.count({ where: { email } })).toBe(1);

    // a new password replaces the old one
    const changed = await world.start({ ADMIN_EMAIL: email, ADMIN_PASSWORD: 'admin password 2' });
    await request(changed.url).post('/api/v1/auth/sign-in').send({ email, password: 'admin password 1' }).expect(401);
    await signIn(changed.url, email, 'admin password 2');
    await events.consumer.stop();
  });

  it('creates a missing admin', async () => {
    // checkout stands in as a service-kit echo on its own port: the test never proxies to a running stack
    const checkout = await startIdentityEcho();
    try {
      const gateway = await world.start({ ADMIN_EMAIL: 'ops@pasar.test', ADMIN_PASSWORD: 'ops password 1', ADMIN_FULL_NAME: 'Ops Team', CHECKOUT_URL: checkout.url });
      const admin = await signIn(gateway.url, 'ops@pasar.test', 'ops password 1');
      const session = await request(gateway.url).get('/api/v1/auth/session').set('Cookie', admin.cookie).expect(200);
      expect(session.body.user).toMatchObject({ fullName: 'Ops Team', role: 'admin' });
      // an admin passes the admin gate: checkout receives the request with the admin's signed identity
      const gated = await request(gateway.url).get('/api/v1/admin/vouchers').set('Cookie', admin.cookie).expect(200);
      expect(gated.body).toEqual({ path: '/api/v1/admin/vouchers', identity: expect.objectContaining({ userId: admin.id, role: 'admin' }) });
    } finally {
      await checkout.close();
    }
  });
});
