import { randomUUID } from 'node:crypto';
import { RpcFailedError, callRpc } from '@pasar/bus';
import { identityCreateUser, identityResetPassword, identityUserUpserted, identityUsers } from '@pasar/contracts';
import request from 'supertest';
import { collectEvents, createTestWorld, signIn, signUp, uniqueEmail, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

describe('identity rpc responders', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;

  beforeAll(async () => {
    world = await createTestWorld();
    gateway = await world.start();
  });
  afterAll(() => world.close());

  describe('rpc.identity.create_user', () => {
    it('creates a user with a temporary password and emits identity.user.upserted', async () => {
      const events = collectEvents(world, identityUserUpserted);
      const email = uniqueEmail('vendor');
      const answer = await callRpc(world.peer.bus, identityCreateUser, {
        email: email.toUpperCase(),
        fullName: 'Kedai Batik',
        phone: '+60311112222',
        role: 'vendor',
        password: 'temporary-pass-123',
        mustChangePassword: true,
      });
      expect(answer).toEqual({
        created: true,
        user: { id: expect.any(String), email, fullName: 'Kedai Batik', phone: '+60311112222', role: 'vendor', mustChangePassword: true },
      });
      const upserted = await events.waitFor((e) => e.userId === answer.user.id);
      expect(upserted.data).toMatchObject({ email, role: 'vendor', phone: '+60311112222' });
      await events.consumer.stop();

      // the temporary password signs in; the session says the password must change
      const signedIn = await request(gateway.url).post('/api/v1/auth/sign-in').send({ email, password: 'temporary-pass-123' }).expect(200);
      expect(signedIn.body.user).toMatchObject({ role: 'vendor', mustChangePassword: true });
    });

    it('is idempotent by e-mail: the existing user comes back with created=false, unchanged', async () => {
      const user = await signUp(gateway.url, uniqueEmail('exists'), 'original password', 'Original');
      const answer = await callRpc(world.peer.bus, identityCreateUser, {
        email: user.email,
        fullName: 'Other Name',
        role: 'vendor',
        password: 'another password',
        mustChangePassword: true,
      });
      expect(answer).toEqual({ created: false, user: expect.objectContaining({ id: user.id, fullName: 'Original', role: 'customer', mustChangePassword: false }) });
      await signIn(gateway.url, user.email, 'original password');
    });

    it('gives one user to concurrent calls with the same e-mail', async () => {
      const email = uniqueEmail('race');
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          callRpc(world.peer.bus, identityCreateUser, { email, fullName: 'Race', role: 'customer', password: 'race password', mustChangePassword: true }),
        ),
      );
      expect(new Set(answers.map((a) => a.user.id)).size).toBe(1);
      expect(answers.filter((a) => a.created)).toHaveLength(1);
    });

    describe('with an idempotencyKey', () => {
      const create = (email: string, password: string, idempotencyKey?: string) =>
        callRpc(world.peer.bus, identityCreateUser, { email, fullName: 'Keyed', role: 'customer', password, mustChangePassword: true, idempotencyKey });

      it('a repeat with the same key answers the same user, created=true, and its password is the one that works', async () => {
        const email = uniqueEmail('keyed');
        const key = `family-invite:${randomUUID()}:${email}`;
        const first = await create(email, 'first temporary 1', key);
        const repeat = await create(email, 'second temporary 2', key);
        expect(first.created).toBe(true);
        expect(repeat).toEqual({ created: true, user: first.user });
        await request(gateway.url).post('/api/v1/auth/sign-in').send({ email, password: 'first temporary 1' }).expect(401);
        await signIn(gateway.url, email, 'second temporary 2');
      });

      it('a repeat after the user chose a password answers created=false and keeps the chosen password', async () => {
        const email = uniqueEmail('settled');
        const key = `key-${randomUUID()}`;
        const first = await create(email, 'first temporary 1', key);
        await gateway.prisma.user.update({ where: { id: first.user.id }, data: { mustChangePassword: false } });
        const repeat = await create(email, 'second temporary 2', key);
        expect(repeat).toMatchObject({ created: false, user: { id: first.user.id, mustChangePassword: false } });
        await signIn(gateway.url, email, 'first temporary 1');
        await request(gateway.url).post('/api/v1/auth/sign-in').send({ email, password: 'second temporary 2' }).expect(401);
      });

      it('another key for an existing e-mail answers created=false and changes nothing', async () => {
        const user = await signUp(gateway.url, uniqueEmail('other-key'), 'original password', 'Original');
        const answer = await create(user.email, 'a temporary one 1', `key-${randomUUID()}`);
        expect(answer).toMatchObject({ created: false, user: { id: user.id } });
        await signIn(gateway.url, user.email, 'original password');
      });

      it('concurrent calls with one key give one user, and every answer says created=true', async () => {
        const email = uniqueEmail('keyed-race');
        const key = `key-${randomUUID()}`;
        const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => create(email, `race password ${i}`, key)));
        expect(new Set(answers.map((a) => a.user.id)).size).toBe(1);
        expect(answers.every((a) => a.created)).toBe(true);
      });

      it('a key reused for another e-mail is refused', async () => {
        const key = `key-${randomUUID()}`;
        await create(uniqueEmail('one'), 'temporary pass 1', key);
        await expect(create(uniqueEmail('two'), 'temporary pass 2', key)).rejects.toMatchObject({ code: 'idempotency_key_reused' });
      });
    });

    it('refuses an invalid request', async () => {
      await expect(
        callRpc(world.peer.bus, identityCreateUser, { email: uniqueEmail(), fullName: 'Short', role: 'vendor', password: 'short', mustChangePassword: true }),
      ).rejects.toThrow(); // the caller's own contract check refuses before sending
    });

    it('refuses role admin, even sent past the caller-side check, and creates nobody', async () => {
      const email = uniqueEmail('would-be-admin');
      const raw = { email, fullName: 'Not An Admin', role: 'admin', password: 'admin password 1', mustChangePassword: false };
      expect(() => identityCreateUser.request.parse(raw)).toThrow();
      const subject = world.peer.bus.naming.subject(identityCreateUser.subject);
      const reply = (await world.peer.bus.nc.request(subject, JSON.stringify(raw), { timeout: 10_000 })).json<{ ok: boolean; code?: string }>();
      expect(reply).toMatchObject({ ok: false, code: 'invalid_request' });
      await request(gateway.url).post('/api/v1/auth/sign-in').send({ email, password: 'admin password 1' }).expect(401);
    });
  });

  describe('rpc.identity.reset_password', () => {
    it('sets the password and flag and ends every session of the user', async () => {
      const user = await signUp(gateway.url, uniqueEmail('reset'), 'old password 1', 'Reset Me');
      const second = await signIn(gateway.url, user.email, 'old password 1');
      await request(gateway.url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(200); // cached

      const answer = await callRpc(world.peer.bus, identityResetPassword, { userId: user.id, password: 'new password 22', mustChangePassword: true });
      expect(answer.user).toMatchObject({ id: user.id, mustChangePassword: true });

      await request(gateway.url).get('/api/v1/auth/session').set('Cookie', user.cookie).expect(401);
      await request(gateway.url).get('/api/v1/auth/session').set('Cookie', second.cookie).expect(401);
      await request(gateway.url).post('/api/v1/auth/sign-in').send({ email: user.email, password: 'old password 1' }).expect(401);
      const again = await signIn(gateway.url, user.email, 'new password 22');
      const session = await request(gateway.url).get('/api/v1/auth/session').set('Cookie', again.cookie).expect(200);
      expect(session.body.user.mustChangePassword).toBe(true);
    });

    it('refuses an unknown user with code not_found', async () => {
      const call = callRpc(world.peer.bus, identityResetPassword, { userId: randomUUID(), password: 'whatever 123', mustChangePassword: true });
      await expect(call).rejects.toBeInstanceOf(RpcFailedError);
      await expect(call).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('rpc.identity.users', () => {
    it('answers the users with these ids and leaves unknown ids out', async () => {
      const a = await signUp(gateway.url, uniqueEmail('a'), 'password a 123', 'User A');
      const b = await signUp(gateway.url, uniqueEmail('b'), 'password b 123', 'User B');
      const answer = await callRpc(world.peer.bus, identityUsers, { userIds: [b.id, randomUUID(), a.id] });
      expect(answer.users.map((u) => u.id).sort()).toEqual([a.id, b.id].sort());
      expect(answer.users.find((u) => u.id === a.id)).toEqual({
        id: a.id,
        email: a.email,
        fullName: 'User A',
        phone: null,
        role: 'customer',
        mustChangePassword: false,
      });
      expect(await callRpc(world.peer.bus, identityUsers, { userIds: [] })).toEqual({ users: [] });
    });
  });
});
