import { identityAccountSetupCompleted, identityUserUpserted, notifyEmailRequested } from '@pasar/contracts';
import { customer, envelope, givenApprovedCompany, givenMember, outboxEvents, publishAndWait, useTestB2b } from '../../test/b2b';

const env = useTestB2b({ APP_URL: 'https://app.pasar.example' });

describe('POST /b2b/{companyId}/team', () => {
  test('a new person: customer account with a temporary password (must change), pending membership, invite e-mail with the password through the rpc only', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const res = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: ' New.Buyer@Example.test ', fullName: 'New Buyer', b2bRole: 'finance' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ fullName: 'New Buyer', email: 'new.buyer@example.test', b2bRole: 'finance', status: 'pending', joinedAt: null });

    const call = t.peers.createUserCalls.find((c) => c.email === 'new.buyer@example.test');
    expect(call).toEqual({ email: 'new.buyer@example.test', idempotencyKey: `b2b-invite:${company.companyId}:new.buyer@example.test`, mustChangePassword: true });
    const email = t.peers.sentEmails.find((m) => m.to === 'new.buyer@example.test');
    expect(email).toMatchObject({ template: 'invite', vars: { fullName: 'New Buyer', groupName: 'Syarikat Maju Sdn Bhd', inviterName: 'Aisyah Rahman', setupUrl: 'https://app.pasar.example/account/setup' } });
    const password = email?.template === 'invite' ? email.vars.temporaryPassword : null;
    expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    // never in the outbox, never stored
    const outbox = await t.b2b.prisma.outbox.findMany();
    expect(JSON.stringify(outbox.map((row) => row.payload))).not.toContain(password);
    expect((await outboxEvents(t, notifyEmailRequested)).some((e) => e.to === 'new.buyer@example.test')).toBe(false);

    // the team lists the pending member, newest first
    const team = await t.call('GET', `/b2b/${company.companyId}/team`, company.members.staff);
    expect(team.body[0]).toMatchObject({ userId: res.body.userId, status: 'pending', b2bRole: 'finance', email: 'new.buyer@example.test' });
    expect(team.body).toHaveLength(5);
    expect((await t.call('GET', `/b2b/${company.companyId}/team?limit=2`, company.owner)).body).toHaveLength(2);

    // a pending member is refused until account setup, then active
    expect(await t.call('GET', `/b2b/${company.companyId}/team`, { userId: res.body.userId, role: 'customer' })).toMatchObject({ status: 403, body: { code: 'membership_pending' } });
    const setup = envelope(
      identityAccountSetupCompleted,
      { userId: res.body.userId, fullName: 'New Buyer Bin Ali', phone: null, address: null, billing: null, completedAt: new Date().toISOString() },
      'gateway',
    );
    await publishAndWait(t.peer.bus, setup, 'member-activation', 'IDENTITY');
    await publishAndWait(t.peer.bus, setup, 'member-activation', 'IDENTITY'); // a redelivery changes nothing
    const member = await t.b2b.prisma.companyMember.findFirstOrThrow({ where: { userId: res.body.userId } });
    expect(member).toMatchObject({ status: 'active', mustChangePassword: false });
    expect(member.joinedAt?.toISOString()).toBe(setup.data.completedAt);
    expect((await t.call('GET', '/b2b/context', { userId: res.body.userId, role: 'customer' })).body).toMatchObject({ role: 'finance', memberStatus: 'active' });
  });

  test('an existing customer joins at once, without a new password (invite with temporaryPassword null)', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const existing = t.peers.addUser({ email: 'existing@example.test', fullName: 'Existing Customer' });
    const res = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'existing@example.test', fullName: 'Whatever', b2bRole: 'approver' });
    expect(res).toMatchObject({ status: 201, body: { userId: existing.id, status: 'active', fullName: 'Existing Customer' } });
    const email = t.peers.sentEmails.find((m) => m.to === 'existing@example.test');
    expect(email?.template === 'invite' && email.vars.temporaryPassword).toBeNull();
    // inviting them again: 409 already_member
    const again = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'existing@example.test', fullName: 'Whatever', b2bRole: 'staff' });
    expect(again).toMatchObject({ status: 409, body: { code: 'already_member' } });
  });

  test('someone in another company is 409 already_in_company; a vendor account 409 not_a_customer', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const other = await givenApprovedCompany(t);
    const otherStaff = t.peers.users.get(other.members.staff.userId)!;
    const res = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: otherStaff.email, fullName: 'X', b2bRole: 'staff' });
    expect(res).toMatchObject({ status: 409, body: { code: 'already_in_company' } });
    t.peers.addUser({ email: 'vendor@example.test', role: 'vendor' });
    expect((await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'vendor@example.test', fullName: 'V', b2bRole: 'staff' })).body.code).toBe('not_a_customer');
  });

  test('a pending invite can be sent again: same account (same idempotency key), a new temporary password', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const body = { email: 'twice@example.test', fullName: 'Twice', b2bRole: 'staff' };
    const first = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, body);
    const second = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, body);
    expect(second).toMatchObject({ status: 201, body: { userId: first.body.userId, status: 'pending' } });
    expect(t.peers.createUserCalls.filter((c) => c.email === 'twice@example.test').map((c) => c.idempotencyKey)).toEqual([
      `b2b-invite:${company.companyId}:twice@example.test`,
      `b2b-invite:${company.companyId}:twice@example.test`,
    ]);
    expect(await t.b2b.prisma.companyMember.count({ where: { userId: first.body.userId } })).toBe(1);
    const passwords = t.peers.sentEmails.filter((m) => m.to === 'twice@example.test').map((m) => (m.template === 'invite' ? m.vars.temporaryPassword : null));
    expect(passwords).toHaveLength(2);
    expect(passwords[0]).not.toBeNull();
    expect(passwords[1]).not.toBeNull();
    expect(passwords[1]).not.toBe(passwords[0]);
  });

  test('only the company_admin invites; bad bodies 400; the notifier refusing answers 502 invite_email_failed, and inviting again sends it', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    for (const role of ['approver', 'finance', 'staff'] as const) {
      const res = await t.call('POST', `/b2b/${company.companyId}/team`, company.members[role], { email: 'x@example.test', fullName: 'X', b2bRole: 'staff' });
      expect(res).toMatchObject({ status: 403, body: { code: 'b2b_role_forbidden' } });
    }
    expect((await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'x@example.test', fullName: 'X', b2bRole: 'boss' })).status).toBe(400);
    expect((await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'nope', fullName: 'X', b2bRole: 'staff' })).status).toBe(400);
    expect((await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'x@example.test', fullName: 'X\u0000', b2bRole: 'staff', extra: 1 })).status).toBe(400);

    t.peers.notifierDown = true;
    try {
      const res = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'later@example.test', fullName: 'Later', b2bRole: 'staff' });
      expect(res).toMatchObject({ status: 502, body: { code: 'invite_email_failed' } });
    } finally {
      t.peers.notifierDown = false;
    }
    const retry = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'later@example.test', fullName: 'Later', b2bRole: 'staff' });
    expect(retry).toMatchObject({ status: 201, body: { status: 'pending' } });
    const sent = t.peers.sentEmails.filter((m) => m.to === 'later@example.test');
    expect(sent).toHaveLength(1);
    expect(sent[0].template === 'invite' && sent[0].vars.temporaryPassword).toEqual(expect.any(String));
  });
});

describe('user names', () => {
  test('the replica follows identity.user.upserted (newest wins), lists show the names', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const staffId = company.members.staff.userId;
    const at = new Date(Date.now() + 60_000).toISOString();
    await publishAndWait(
      t.peer.bus,
      envelope(identityUserUpserted, { userId: staffId, email: 'renamed@example.test', fullName: 'Renamed Staff', phone: null, role: 'customer', updatedAt: at }, 'gateway'),
      'user-replica',
      'IDENTITY',
    );
    await publishAndWait(
      t.peer.bus,
      envelope(identityUserUpserted, { userId: staffId, email: 'old@example.test', fullName: 'Old Name', phone: null, role: 'customer', updatedAt: new Date(0).toISOString() }, 'gateway'),
      'user-replica',
      'IDENTITY',
    );
    const team = await t.call('GET', `/b2b/${company.companyId}/team`, company.owner);
    expect(team.body.find((m: { userId: string }) => m.userId === staffId)).toMatchObject({ fullName: 'Renamed Staff', email: 'renamed@example.test' });
  });

  test('an inactive member is not listed and is refused', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const gone = await givenMember(t, company.companyId, 'staff', 'inactive');
    const team = await t.call('GET', `/b2b/${company.companyId}/team`, company.owner);
    expect(team.body.map((m: { userId: string }) => m.userId)).not.toContain(gone.userId);
    expect((await t.call('GET', `/b2b/${company.companyId}/team`, gone)).status).toBe(404);
    expect((await t.call('GET', `/b2b/${company.companyId}/team`, customer())).status).toBe(404);
  });
});
