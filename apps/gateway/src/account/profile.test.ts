import { identityUserUpserted } from '@pasar/contracts';
import request from 'supertest';
import { collectEvents, createTestWorld, signUp, uniqueEmail, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

describe('PATCH /account/profile', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;

  beforeAll(async () => {
    world = await createTestWorld();
    gateway = await world.start();
  });
  afterAll(() => world.close());

  it('changes the name (204), emits identity.user.upserted and the session shows it at once', async () => {
    const events = collectEvents(world, identityUserUpserted);
    const user = await signUp(gateway.url, uniqueEmail('profile'), 'correct horse battery', 'Old Name');
    await request(gateway.url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(200); // now cached

    const res = await request(gateway.url).patch('/api/v1/account/profile').set('Cookie', user.cookie).send({ fullName: ' New Name ' }).expect(204);
    expect(res.text).toBe('');

    const upserted = await events.waitFor((e) => e.userId === user.id && e.fullName === 'New Name');
    expect(upserted.data).toMatchObject({ email: user.email, role: 'customer' });
    expect(upserted.type).toBe('identity.user.upserted');
    await events.consumer.stop();

    const session = await request(gateway.url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(200);
    expect(session.body.user.fullName).toBe('New Name');
  });

  it('needs a session (401) and a valid name (400)', async () => {
    await request(gateway.url).patch('/api/v1/account/profile').send({ fullName: 'X' }).expect(401);
    const user = await signUp(gateway.url);
    const res = await request(gateway.url).patch('/api/v1/account/profile').set('Cookie', user.cookie).send({ fullName: '   ' }).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: ['fullName'] })] });
  });
});
