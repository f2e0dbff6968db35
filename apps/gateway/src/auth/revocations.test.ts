import { callRpc } from '@pasar/bus';
import { identityResetPassword } from '@pasar/contracts';
import request from 'supertest';
import { createTestWorld, signIn, signUp, uniqueEmail, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

describe('session cache across gateway instances', () => {
  let world: TestWorld;
  let a: GatewayHandle;
  let b: GatewayHandle;

  beforeAll(async () => {
    world = await createTestWorld();
    // a long TTL: without the broadcast, b would keep answering from its cache
    a = await world.start({ SESSION_CACHE_TTL_MS: '60000' });
    b = await world.start({ SESSION_CACHE_TTL_MS: '60000' });
  });
  afterAll(() => world.close());

  it('b answers from its cache (a deleted row is not seen within the TTL)', async () => {
    const user = await signUp(a.url, uniqueEmail('cached'));
    await request(b.url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(200);
    await b.prisma.session.deleteMany({ where: { userId: user.id } }); // behind the gateways' backs
    await request(b.url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(200);
    expect(b.sessionCache.size).toBeGreaterThan(0);
  });

  it('sign-out on a → b answers 401 right after', async () => {
    const user = await signUp(a.url, uniqueEmail('multi'));
    await request(b.url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(200);
    await request(a.url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(200);

    await request(a.url).post('/api/v1/auth/sign-out').set('Cookie', user.cookie).expect(204);
    await request(b.url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(401);
    await request(a.url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(401);
  });

  it('a password reset ends the sessions cached on every instance; other users are untouched', async () => {
    const user = await signUp(a.url, uniqueEmail('reset'), 'first password 1');
    const other = await signUp(a.url, uniqueEmail('other'));
    const onB = await signIn(b.url, user.email, 'first password 1');
    for (const cookie of [user.cookie, onB.cookie, other.cookie]) {
      await request(a.url).get('/api/v1/auth/session').set('Cookie', cookie).expect(200);
      await request(b.url).get('/api/v1/auth/session').set('Cookie', cookie).expect(200);
    }

    await callRpc(world.peer.bus, identityResetPassword, { userId: user.id, password: 'second password 2', mustChangePassword: false });

    for (const gateway of [a, b]) {
      await request(gateway.url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(401);
      await request(gateway.url).get('/api/v1/auth/session').set('Cookie', onB.cookie).expect(401);
      await request(gateway.url).get('/api/v1/auth/session').set('Cookie', other.cookie).expect(200);
    }
  });
});
