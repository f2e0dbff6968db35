import { identityAccountSetupCompleted, identityUserUpserted, notifyEmailRequested } from '@pasar/contracts';
import { randomUUID } from 'node:crypto';
import { signFor } from '@pasar/testkit';
import { customer, envelope, givenApprovedCompany, givenMember, outboxEvents, publishAndWait, useTestB2b, type Caller } from '../../test/b2b';

const env = useTestB2b({ APP_URL: 'https://app.pasar.example', B2B_INVITES_PER_DAY: '5' });

describe('POST /b2b/{companyId}/team', () => {
  test('a new person: customer account with a temporary password (must change), pending membership, invite e-mail with the password through the rpc only', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const invite = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: ' New.Buyer@Example.test ', fullName: 'New Buyer', b2bRole: 'finance' });
    expect(invite).toEqual({ status: 202, body: { email: 'new.buyer@example.test', status: 'pending' } });
    const res = { body: { userId: [...t.peers.users.values()].find((u) => u.email === 'new.buyer@example.test')!.id } };

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

    // the team lists active members only: a pending invite is not shown (it would reveal the kind of account)
    const team = await t.call('GET', `/b2b/${company.companyId}/team`, company.members.staff);
    expect(team.body.map((m: { userId: string }) => m.userId)).not.toContain(res.body.userId);
    expect(team.body).toHaveLength(4);
    expect(team.body.every((m: { status: string }) => m.status === 'active')).toBe(true);
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
    // once active, listed, newest first
    const joined = await t.call('GET', `/b2b/${company.companyId}/team`, company.members.staff);
    expect(joined.body).toHaveLength(5);
    expect(joined.body[0]).toMatchObject({ userId: res.body.userId, status: 'active', b2bRole: 'finance', email: 'new.buyer@example.test' });
  });

  test('an existing customer gets a pending invitation (e-mail linking to it) and joins only by accepting it', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const existing = t.peers.addUser({ email: 'existing@example.test', fullName: 'Existing Customer' });
    const res = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'existing@example.test', fullName: 'Whatever', b2bRole: 'approver' });
    expect(res).toEqual({ status: 202, body: { email: 'existing@example.test', status: 'pending' } });
    const email = t.peers.sentEmails.find((m) => m.to === 'existing@example.test');
    expect(email).toMatchObject({ template: 'invite', vars: { temporaryPassword: null, setupUrl: 'https://app.pasar.example/b2b/invitations', groupName: 'Syarikat Maju Sdn Bhd' } });
    const me = customer(existing.id);
    expect((await t.call('GET', '/b2b/context', me)).body).toBeNull();
    expect(await t.call('GET', `/b2b/${company.companyId}/team`, me)).toMatchObject({ status: 403, body: { code: 'membership_pending' } });
    // completing an account setup does not make them join
    const setup = envelope(identityAccountSetupCompleted, { userId: existing.id, fullName: 'Existing Customer', phone: null, address: null, billing: null, completedAt: new Date().toISOString() }, 'gateway');
    await publishAndWait(t.peer.bus, setup, 'member-activation', 'IDENTITY');

    const invitations = await t.call('GET', '/b2b/invitations', me);
    expect(invitations).toMatchObject({ status: 200, body: [{ companyId: company.companyId, companyName: 'Syarikat Maju Sdn Bhd', b2bRole: 'approver' }] });
    const id = invitations.body[0].id as string;
    // nobody else answers it
    expect((await t.call('POST', `/b2b/invitations/${id}/accept`, company.members.staff)).status).toBe(404);
    expect((await t.call('POST', `/b2b/invitations/${id}/accept`, { userId: existing.id, role: 'vendor' })).status).toBe(403);
    expect((await t.call('POST', `/b2b/invitations/not-a-uuid/accept`, me)).status).toBe(400);
    expect((await t.call('POST', `/b2b/invitations/${id}/accept`, me)).status).toBe(204);
    expect((await t.call('GET', '/b2b/context', me)).body).toMatchObject({ role: 'approver', memberStatus: 'active' });
    expect((await t.call('GET', '/b2b/invitations', me)).body).toEqual([]);
    expect((await t.call('POST', `/b2b/invitations/${id}/decline`, me)).status).toBe(404);

    // inviting them again: the same answer, nothing changes
    const again = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'existing@example.test', fullName: 'Whatever', b2bRole: 'staff' });
    expect(again).toEqual({ status: 202, body: { email: 'existing@example.test', status: 'pending' } });
    expect(await t.b2b.prisma.companyMember.findFirstOrThrow({ where: { userId: existing.id } })).toMatchObject({ status: 'active', b2bRole: 'approver' });
  });

  test('a declined invitation leaves the person out; a member elsewhere must leave before accepting', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const other = await givenApprovedCompany(t);
    const person = t.peers.addUser({ email: 'decline@example.test' });
    await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'decline@example.test', fullName: 'D', b2bRole: 'staff' });
    const [invitation] = (await t.call('GET', '/b2b/invitations', customer(person.id))).body;
    expect((await t.call('POST', `/b2b/invitations/${invitation.id}/decline`, customer(person.id))).status).toBe(204);
    expect(await t.b2b.prisma.companyMember.findFirstOrThrow({ where: { userId: person.id } })).toMatchObject({ status: 'inactive' });
    expect((await t.call('GET', `/b2b/${company.companyId}/team`, company.owner)).body.map((m: { userId: string }) => m.userId)).not.toContain(person.id);

    // invited while pending, then active in another company meanwhile: accepting is refused
    await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'decline@example.test', fullName: 'D', b2bRole: 'staff' });
    const [again] = (await t.call('GET', '/b2b/invitations', customer(person.id))).body;
    await t.b2b.prisma.companyMember.create({ data: { companyId: other.companyId, userId: person.id, b2bRole: 'staff', status: 'active', joinedAt: new Date() } });
    expect(await t.call('POST', `/b2b/invitations/${again.id}/accept`, customer(person.id))).toMatchObject({ status: 409, body: { code: 'already_in_company' } });
  });

  test('the answer and the team list are the same whatever the e-mail belongs to: new, customer, member elsewhere, vendor, administrator; nothing written for the last three', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const other = await givenApprovedCompany(t);
    const otherStaff = t.peers.users.get(other.members.staff.userId)!;
    const vendor = t.peers.addUser({ email: 'vendor@example.test', role: 'vendor' });
    const adminUser = t.peers.addUser({ email: 'admin@example.test', role: 'admin' });
    t.peers.addUser({ email: 'customer@example.test' });
    const teamList = async () => {
      const res = await t.call('GET', `/b2b/${company.companyId}/team`, company.owner);
      return { status: res.status, body: res.body };
    };
    const before = await teamList();
    const answers = [];
    for (const email of ['fresh@example.test', 'customer@example.test', otherStaff.email, 'vendor@example.test', 'admin@example.test']) {
      const res = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email, fullName: 'X', b2bRole: 'staff' });
      answers.push({ status: res.status, keys: Object.keys(res.body).sort(), status2: res.body.status, email: res.body.email === email });
      // the team list after each invite is the list before it: nothing tells the inviter what the e-mail is
      expect(await teamList()).toEqual(before);
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toEqual({ status: 202, keys: ['email', 'status'], status2: 'pending', email: true });
    for (const userId of [vendor.id, adminUser.id]) expect(await t.b2b.prisma.companyMember.count({ where: { userId } })).toBe(0);
    expect(await t.b2b.prisma.companyMember.count({ where: { userId: otherStaff.id, companyId: company.companyId } })).toBe(0);
    expect(t.peers.sentEmails.filter((m) => [otherStaff.email, 'vendor@example.test', 'admin@example.test'].includes(m.to))).toEqual([]);
  });

  test('a pending invite can be sent again: same account (same idempotency key), a new temporary password', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const body = { email: 'twice@example.test', fullName: 'Twice', b2bRole: 'staff' };
    const first = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, body);
    const second = await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, body);
    expect(second).toEqual(first);
    const invited = [...t.peers.users.values()].find((u) => u.email === 'twice@example.test')!;
    expect(t.peers.createUserCalls.filter((c) => c.email === 'twice@example.test').map((c) => c.idempotencyKey)).toEqual([
      `b2b-invite:${company.companyId}:twice@example.test`,
      `b2b-invite:${company.companyId}:twice@example.test`,
    ]);
    expect(await t.b2b.prisma.companyMember.count({ where: { userId: invited.id } })).toBe(1);
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
    expect(retry).toMatchObject({ status: 202, body: { status: 'pending' } });
    const sent = t.peers.sentEmails.filter((m) => m.to === 'later@example.test');
    expect(sent).toHaveLength(1);
    expect(sent[0].template === 'invite' && sent[0].vars.temporaryPassword).toEqual(expect.any(String));
  });
});

describe('invite cap', () => {
  test('B2B_INVITES_PER_DAY invites per company in 24 hours, refused ones counted; past it 429 invite_limit_reached with Retry-After; nothing sent', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const other = await givenApprovedCompany(t);
    t.peers.addUser({ email: 'vendor-cap@example.test', role: 'vendor' });
    for (let i = 0; i < 4; i += 1) {
      expect((await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: `cap-${i}@example.test`, fullName: 'C', b2bRole: 'staff' })).status).toBe(202);
    }
    expect((await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'vendor-cap@example.test', fullName: 'C', b2bRole: 'staff' })).status).toBe(202);
    const capBody = JSON.stringify({ email: 'cap-9@example.test', fullName: 'C', b2bRole: 'staff' });
    const refused = await fetch(`${t.b2b.url}/api/v1/b2b/${company.companyId}/team`, {
      method: 'POST',
      headers: { ...signFor('POST', `/api/v1/b2b/${company.companyId}/team`, company.owner, undefined, capBody), 'content-type': 'application/json' },
      body: capBody,
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'invite_limit_reached' });
    expect(t.peers.createUserCalls.some((c) => c.email === 'cap-9@example.test')).toBe(false);
    // another company has its own budget; old invites leave the window
    expect((await t.call('POST', `/b2b/${other.companyId}/team`, other.owner, { email: 'cap-other@example.test', fullName: 'C', b2bRole: 'staff' })).status).toBe(202);
    await t.b2b.prisma.teamInvite.updateMany({ where: { companyId: company.companyId }, data: { createdAt: new Date(Date.now() - 25 * 3600_000) } });
    expect((await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'cap-9@example.test', fullName: 'C', b2bRole: 'staff' })).status).toBe(202);
  });
});

describe('leaving and removing', () => {
  test('a member leaves; a company_admin removes a member or withdraws an invite; others may not; the last company_admin stays', async () => {
    const t = env();
    const company = await givenApprovedCompany(t);
    const memberId = async (userId: string) => (await t.b2b.prisma.companyMember.findFirstOrThrow({ where: { userId, companyId: company.companyId } })).id;
    const del = (id: string, as: Caller) => t.call('DELETE', `/b2b/${company.companyId}/team/${id}`, as);

    // staff may not remove the approver
    expect(await del(await memberId(company.members.approver.userId), company.members.staff)).toMatchObject({ status: 403, body: { code: 'b2b_role_forbidden' } });
    // staff leaves
    expect((await del(await memberId(company.members.staff.userId), company.members.staff)).status).toBe(204);
    expect((await t.call('GET', `/b2b/${company.companyId}/team`, company.members.staff)).status).toBe(404);
    expect((await t.call('GET', '/b2b/context', company.members.staff)).body).toBeNull();
    // the admin removes the approver and withdraws a pending invite
    expect((await del(await memberId(company.members.approver.userId), company.owner)).status).toBe(204);
    const invitee = t.peers.addUser({ email: 'withdrawn@example.test' });
    await t.call('POST', `/b2b/${company.companyId}/team`, company.owner, { email: 'withdrawn@example.test', fullName: 'W', b2bRole: 'staff' });
    expect((await del(await memberId(invitee.id), company.owner)).status).toBe(204);
    expect((await t.call('GET', '/b2b/invitations', customer(invitee.id))).body).toEqual([]);
    // removed twice, unknown, another company's: 404
    expect((await del(await memberId(company.members.approver.userId), company.owner)).status).toBe(404);
    expect((await del(randomUUID(), company.owner)).status).toBe(404);
    // the last company_admin can neither leave nor be removed; with a second admin, they can
    expect(await del(await memberId(company.owner.userId), company.owner)).toMatchObject({ status: 409, body: { code: 'last_company_admin' } });
    const second = await givenMember(t, company.companyId, 'company_admin');
    expect((await del(await memberId(company.owner.userId), second)).status).toBe(204);
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
