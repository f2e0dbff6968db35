import { callRpc } from '@pasar/bus';
import { identityAccountSetupCompleted, identityCreateUser, identityResetPassword, identityUserUpserted } from '@pasar/contracts';
import request from 'supertest';
import { collectEvents, createTestWorld, signIn, signUp, uniqueEmail, type SignedInUser, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

const PASSWORD = 'correct horse battery';
const TEMPORARY = 'temporary-pass-123';
const NEW_PASSWORD = 'my very own password';

describe('account setup and passwords', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;
  let url: string;

  beforeAll(async () => {
    world = await createTestWorld();
    gateway = await world.start({ SIGN_IN_LIMIT_PER_EMAIL_IP: '3', SIGN_IN_LIMIT_PER_IP: '1000' });
    url = gateway.url;
  });
  afterAll(() => world.close());

  /** A member invited with a temporary password (as family and B2B invites create them), signed in. */
  async function invitedMember(prefix = 'member'): Promise<SignedInUser> {
    const email = uniqueEmail(prefix);
    await callRpc(world.peer.bus, identityCreateUser, { email, fullName: 'Invited Member', role: 'customer', password: TEMPORARY, mustChangePassword: true });
    return signIn(url, email, TEMPORARY);
  }

  function setupBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      currentPassword: TEMPORARY,
      newPassword: NEW_PASSWORD,
      fullName: ' Nur Aisyah ',
      phone: '+60111222333',
      address: { fullName: 'Nur Aisyah', phone: '+60111222333', addressLine1: '12 Jalan Ampang', addressLine2: '', city: 'Kuala Lumpur', postcode: '50450', state: 'Wilayah Persekutuan' },
      ...overrides,
    };
  }

  const flagOf = async (user: SignedInUser) =>
    (await request(url).get('/api/v1/account/must-change-password').set('Cookie', user.cookie).expect(200)).body as unknown;
  const setup = (user: SignedInUser, body: Record<string, unknown>, ip = '203.0.113.1') =>
    request(url).post('/api/v1/account/setup').set('Cookie', user.cookie).set('X-Forwarded-For', ip).send(body);
  const outboxOf = (type: string, userId: string) =>
    gateway.prisma.outbox.findMany({ where: { type, payload: { path: ['data', 'userId'], equals: userId } } });

  it('a member with a temporary password must change it; setup clears the flag, signs out the other sessions and emits the events', async () => {
    const completedEvents = collectEvents(world, identityAccountSetupCompleted);
    const upsertedEvents = collectEvents(world, identityUserUpserted);
    const member = await invitedMember();
    const otherSession = await signIn(url, member.email, TEMPORARY);
    expect(await flagOf(member)).toEqual({ mustChangePassword: true });

    const res = await setup(member, setupBody({ billing: { tin: ' c-0012345 ' } })).expect(204);
    expect(res.text).toBe('');
    expect(await flagOf(member)).toEqual({ mustChangePassword: false });

    const completed = await completedEvents.waitFor((e) => e.userId === member.id);
    expect(completed.source).toBe('gateway');
    expect(completed.data).toEqual({
      userId: member.id,
      fullName: 'Nur Aisyah',
      phone: '+60111222333',
      address: { fullName: 'Nur Aisyah', phone: '+60111222333', addressLine1: '12 Jalan Ampang', addressLine2: null, city: 'Kuala Lumpur', postcode: '50450', state: 'Wilayah Persekutuan' },
      billing: { tin: 'C12345' },
      completedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await outboxOf(identityAccountSetupCompleted.type, member.id)).toHaveLength(1);
    const upserted = await upsertedEvents.waitFor((e) => e.userId === member.id && e.fullName === 'Nur Aisyah');
    expect(upserted.data).toMatchObject({ phone: '+60111222333', email: member.email });

    // the other session is signed out; this one goes on, with the new name and no flag
    await request(url).get('/api/v1/auth/session').set('Cookie', otherSession.cookie).expect(401);
    const session = await request(url).get('/api/v1/auth/session').set('Cookie', member.cookie).expect(200);
    expect(session.body.user).toMatchObject({ id: member.id, fullName: 'Nur Aisyah', mustChangePassword: false });

    // the temporary password is refused from now on, the new one signs in
    await request(url).post('/api/v1/auth/sign-in').send({ email: member.email, password: TEMPORARY }).expect(401);
    await signIn(url, member.email, NEW_PASSWORD);
    const stored = await gateway.prisma.user.findUniqueOrThrow({ where: { id: member.id } });
    expect(stored).toMatchObject({ fullName: 'Nur Aisyah', phone: '+60111222333', mustChangePassword: false });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it('a user who signed up with their own password has nothing to change', async () => {
    const user = await signUp(url);
    expect(await flagOf(user)).toEqual({ mustChangePassword: false });
  });

  it('rpc.identity.reset_password with mustChangePassword sets the flag again', async () => {
    const user = await signUp(url);
    await callRpc(world.peer.bus, identityCreateUser, { email: user.email, fullName: 'x', role: 'customer', password: 'unused-password', mustChangePassword: true });
    expect(await flagOf(user)).toEqual({ mustChangePassword: false }); // an existing account is not changed by create_user
    await callRpc(world.peer.bus, identityResetPassword, { userId: user.id, password: TEMPORARY, mustChangePassword: true });
    const again = await signIn(url, user.email, TEMPORARY);
    expect(await flagOf(again)).toEqual({ mustChangePassword: true });
  });

  it('without billing the event says billing null; an empty TIN is billing {tin: null}', async () => {
    const completedEvents = collectEvents(world, identityAccountSetupCompleted);
    const noBilling = await invitedMember();
    const emptyTin = await invitedMember();
    await setup(noBilling, setupBody({ address: { ...(setupBody().address as object), addressLine2: 'Level 3' } })).expect(204);
    await setup(emptyTin, setupBody({ billing: { tin: '' } })).expect(204);
    const first = await completedEvents.waitFor((e) => e.userId === noBilling.id);
    expect(first.data.billing).toBeNull();
    expect(first.data.address?.addressLine2).toBe('Level 3');
    expect((await completedEvents.waitFor((e) => e.userId === emptyTin.id)).data.billing).toEqual({ tin: null });
  });

  it('answers 400 invalid_password for a wrong current password and changes nothing', async () => {
    const member = await invitedMember();
    const otherSession = await signIn(url, member.email, TEMPORARY);
    const res = await setup(member, setupBody({ currentPassword: 'not the password' }), '203.0.113.2').expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code: 'invalid_password' });
    await expectUnchanged(member, otherSession);
  });

  it('answers 400 invalid_tin for a bad TIN before anything changes', async () => {
    const member = await invitedMember();
    const otherSession = await signIn(url, member.email, TEMPORARY);
    const res = await setup(member, setupBody({ billing: { tin: 'X12345' } })).expect(400);
    expect(res.body).toMatchObject({ status: 400, code: 'invalid_tin' });
    await expectUnchanged(member, otherSession);
  });

  async function expectUnchanged(member: SignedInUser, otherSession: SignedInUser): Promise<void> {
    expect(await flagOf(member)).toEqual({ mustChangePassword: true });
    await request(url).get('/api/v1/auth/session').set('Cookie', otherSession.cookie).expect(200);
    await signIn(url, member.email, TEMPORARY);
    expect(await gateway.prisma.user.findUniqueOrThrow({ where: { id: member.id } })).toMatchObject({ fullName: 'Invited Member', phone: null });
    expect(await outboxOf(identityAccountSetupCompleted.type, member.id)).toEqual([]);
  }

  it.each([
    ['a new password equal to the current one', { newPassword: TEMPORARY }, 'newPassword'],
    ['a new password under 8 characters', { newPassword: 'short' }, 'newPassword'],
    ['a new password over 128 characters', { newPassword: 'x'.repeat(129) }, 'newPassword'],
    ['no address', { address: undefined }, 'address'],
    ['an address without a city', { address: { fullName: 'N', phone: '1', addressLine1: 'a', postcode: '1', state: 's' } }, 'address.city'],
    ['a blank name', { fullName: '  ' }, 'fullName'],
    ['no phone', { phone: undefined }, 'phone'],
    ['an unknown field', { nickname: 'nur' }, ''],
  ])('answers 400 validation_failed for %s', async (_case, overrides, path) => {
    const member = await invitedMember('invalid');
    const res = await setup(member, setupBody(overrides)).expect(400);
    expect(res.body.code).toBe('validation_failed');
    if (path) expect(res.body.errors.map((e: { path: string[] }) => e.path.join('.'))).toContain(path);
    expect(await flagOf(member)).toEqual({ mustChangePassword: true });
  });

  it('answers 429 with Retry-After once the wrong passwords of an account from one IP reach the limit (3 here)', async () => {
    const member = await invitedMember('limited');
    for (let i = 0; i < 3; i += 1) await setup(member, setupBody({ currentPassword: 'wrong password' }), '203.0.113.9').expect(400);
    const limited = await setup(member, setupBody(), '203.0.113.9').expect(429);
    expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await flagOf(member)).toEqual({ mustChangePassword: true });
    // the budget is shared with sign-in from that IP; another IP is not locked out
    await request(url).post('/api/v1/auth/sign-in').set('X-Forwarded-For', '203.0.113.9').send({ email: member.email, password: TEMPORARY }).expect(429);
    await request(url).post('/api/v1/auth/sign-in').set('X-Forwarded-For', '198.51.100.10').send({ email: member.email, password: TEMPORARY }).expect(200);
  });

  it.each([
    ['get', '/api/v1/account/must-change-password'],
    ['post', '/api/v1/account/setup'],
    ['post', '/api/v1/account/change-password'],
  ] as const)('%s %s answers 401 without a session', async (method, path) => {
    const call = method === 'get' ? request(url).get(path) : request(url).post(path).send(setupBody());
    const res = await call.expect(401);
    expect(res.body).toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  describe('POST /account/change-password', () => {
    const change = (user: SignedInUser, body: Record<string, unknown>, ip = '203.0.113.1') =>
      request(url).post('/api/v1/account/change-password').set('Cookie', user.cookie).set('X-Forwarded-For', ip).send(body);
    const sessionStatus = async (user: SignedInUser) => (await request(url).get('/api/v1/auth/session').set('Cookie', user.cookie)).status;

    it('sets the new password (204): the old one is refused at sign-in, other sessions are signed out, this one goes on', async () => {
      const user = await signUp(url, uniqueEmail('change'), PASSWORD);
      const otherSession = await signIn(url, user.email, PASSWORD);
      const thirdSession = await signIn(url, user.email, PASSWORD);
      expect(await sessionStatus(otherSession)).toBe(200); // cached now: the revocation must reach the cache

      const res = await change(user, { currentPassword: PASSWORD, newPassword: 'a brand new password' }).expect(204);
      expect(res.text).toBe('');

      expect(await sessionStatus(otherSession)).toBe(401);
      expect(await sessionStatus(thirdSession)).toBe(401);
      expect(await sessionStatus(user)).toBe(200);
      expect(await gateway.prisma.session.count({ where: { userId: user.id } })).toBe(1);

      await request(url).post('/api/v1/auth/sign-in').send({ email: user.email, password: PASSWORD }).expect(401);
      await signIn(url, user.email, 'a brand new password');
    });

    it('leaves must_change_password set: only account setup clears it', async () => {
      const email = uniqueEmail('flagged');
      await callRpc(world.peer.bus, identityCreateUser, { email, fullName: 'Flagged', role: 'vendor', password: 'temporary-pass-1', mustChangePassword: true });
      const vendor = await signIn(url, email, 'temporary-pass-1');
      await change(vendor, { currentPassword: 'temporary-pass-1', newPassword: 'vendor own password' }).expect(204);
      const flag = await request(url).get('/api/v1/account/must-change-password').set('Cookie', vendor.cookie).expect(200);
      expect(flag.body).toEqual({ mustChangePassword: true });
      await signIn(url, email, 'vendor own password');
    });

    it('answers 400 invalid_password for a wrong current password and changes nothing', async () => {
      const user = await signUp(url, uniqueEmail('wrong'), PASSWORD);
      const otherSession = await signIn(url, user.email, PASSWORD);
      const res = await change(user, { currentPassword: 'not my password', newPassword: 'a brand new password' }, '203.0.113.2').expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 400, code: 'invalid_password' });
      expect(await sessionStatus(otherSession)).toBe(200);
      await signIn(url, user.email, PASSWORD);
    });

    it('of two concurrent changes with the same current password, one wins and the other gets invalid_password', async () => {
      const user = await signUp(url, uniqueEmail('race'), PASSWORD);
      const [a, b] = await Promise.all([
        change(user, { currentPassword: PASSWORD, newPassword: 'first new password' }),
        change(user, { currentPassword: PASSWORD, newPassword: 'second new password' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([204, 400]);
      const loser = a.status === 400 ? a : b;
      expect(loser.body.code).toBe('invalid_password');
      const winner = a.status === 204 ? 'first new password' : 'second new password';
      await signIn(url, user.email, winner);
    });

    it.each([
      ['a new password equal to the current one', { currentPassword: PASSWORD, newPassword: PASSWORD }, 'newPassword'],
      ['a new password under 8 characters', { currentPassword: PASSWORD, newPassword: 'short' }, 'newPassword'],
      ['no current password', { newPassword: 'a brand new password' }, 'currentPassword'],
      ['an unknown field', { currentPassword: PASSWORD, newPassword: 'a brand new password', confirm: 'x' }, ''],
    ])('answers 400 validation_failed for %s', async (_case, body, path) => {
      const user = await signUp(url, uniqueEmail('invalid'), PASSWORD);
      const res = await change(user, body).expect(400);
      expect(res.body.code).toBe('validation_failed');
      if (path) expect(res.body.errors.map((e: { path: string[] }) => e.path.join('.'))).toContain(path);
      await signIn(url, user.email, PASSWORD);
    });

    it('answers 429 with Retry-After after 3 wrong passwords of the account from one IP, even for the right one', async () => {
      const user = await signUp(url, uniqueEmail('limited'), PASSWORD);
      const hashOf = async () => (await gateway.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).passwordHash;
      const before = await hashOf();
      for (let i = 0; i < 3; i += 1) await change(user, { currentPassword: 'wrong password', newPassword: 'a brand new password' }, '203.0.113.9').expect(400);
      const limited = await change(user, { currentPassword: PASSWORD, newPassword: 'a brand new password' }, '203.0.113.9').expect(429);
      expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(await hashOf()).toBe(before);
    });
  });
});
