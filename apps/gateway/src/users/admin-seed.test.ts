import { identityUserUpserted } from '@pasar/contracts';
import request from 'supertest';
import { collectEvents, createTestWorld, signIn, signUp, type TestWorld } from '../../test/harness';

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
    const gateway = await world.start({ ADMIN_EMAIL: 'ops@pasar.test', ADMIN_PASSWORD: 'ops password 1', ADMIN_FULL_NAME: 'Ops Team' });
    const admin = await signIn(gateway.url, 'ops@pasar.test', 'ops password 1');
    const session = await request(gateway.url).get('/api/v1/auth/session').set('Cookie', admin.cookie).expect(200);
    expect(session.body.user).toMatchObject({ fullName: 'Ops Team', role: 'admin' });
    // an admin passes the admin gate
    const gated = await request(gateway.url).get('/api/v1/admin/vouchers').set('Cookie', admin.cookie);
    expect([502, 503]).toContain(gated.status); // through the gate; no checkout is running in this test
  });
});
