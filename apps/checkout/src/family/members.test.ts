import { randomUUID } from 'node:crypto';
import {
  identityAccountSetupCompleted,
  MAX_FAMILY_MEMBERS,
  notifyEmailRequested,
  type EmailMessage,
  type EventData,
  type EventEnvelope,
} from '@pasar/contracts';
import { waitFor } from '@pasar/testkit';
import { asCustomer, uniqueEmail, useFamilyWorld } from './test-fixtures';

const world = useFamilyWorld({ mailbox: true });

const http = () => world.client.http();

/** The invite e-mails checkout asked the notifier (rpc.notifier.send_email) to send to `to`. */
const sentInvites = (to: string): EmailMessage[] => world.notifier.sent.get(to) ?? [];

/** E-mail requests to `to` in checkout's outbox (invites must never be there: they hold passwords). */
async function outboxEmails(to: string): Promise<EmailMessage[]> {
  const rows = await world.t.checkout.prisma.outbox.findMany({ where: { type: notifyEmailRequested.type }, orderBy: { seq: 'asc' } });
  return rows.map((row) => (row.payload as unknown as EventEnvelope<EmailMessage>).data).filter((message) => message.to === to);
}

const membersOf = (familyId: string) => world.t.checkout.prisma.familyMember.findMany({ where: { familyId }, orderBy: { invitedAt: 'asc' } });

describe('POST /family/members', () => {
  test('a new person: identity creates a customer with a 16-character temporary password; pending membership; invite e-mail with the password, sent through the notifier rpc and stored nowhere', async () => {
    const { ownerId, family } = await world.client.newFamily('Keluarga Tan');
    const email = uniqueEmail('mei');
    const res = await world.client.invite(ownerId, { email: `  ${email.toUpperCase()} `, fullName: 'Tan Mei Ling' }).expect(202);
    expect(res.body).toEqual({ email, status: 'pending' });

    // the pending membership is written, but the family view lists active members only
    const listed = await http().get('/api/v1/family').set(asCustomer(ownerId)).expect(200);
    expect(listed.body.members.map((m: { email: string }) => m.email)).not.toContain(email);
    const user = world.identity.userByEmail(email);
    expect(await world.t.checkout.prisma.familyMember.findFirstOrThrow({ where: { familyId: family.id, email } })).toMatchObject({
      userId: user?.id,
      fullName: 'Tan Mei Ling',
      status: 'pending',
      mustChangePassword: true,
      joinedAt: null,
    });

    const sent = world.identity.requests.find((r) => r.email === email);
    expect(sent).toEqual({
      email,
      fullName: 'Tan Mei Ling',
      role: 'customer',
      password: expect.stringMatching(/^[\w-]{16}$/),
      mustChangePassword: true,
      idempotencyKey: `family-invite:${family.id}:${email}`,
    });

    const [invite] = sentInvites(email);
    expect(invite).toEqual({
      messageId: expect.any(String),
      to: email,
      template: 'invite',
      vars: {
        fullName: 'Tan Mei Ling',
        inviterName: `${ownerId}@example.test`,
        groupName: 'Keluarga Tan',
        email,
        temporaryPassword: sent?.password,
        setupUrl: 'http://127.0.0.1:8080/account/setup',
      },
    });
    expect((await membersOf(family.id)).map((m) => m.userId)).toEqual([ownerId, user?.id]);
    // no password in any persisted message: no outbox row (so nothing on JetStream) carries the invite
    expect(await outboxEmails(email)).toEqual([]);
    const outbox = await world.t.checkout.prisma.outbox.findMany();
    expect(JSON.stringify(outbox)).not.toContain(sent?.password);
    expect(world.mailbox.get(email)).toBeUndefined();
  });

  test('an existing account: the same answer as for a new person (the owner cannot tell), and no password in the e-mail', async () => {
    const { ownerId } = await world.client.newFamily();
    const email = uniqueEmail('existing');
    const existing = world.identity.existing(email, 'customer', 'Ahmad Existing');
    const res = await world.client.invite(ownerId, { email, fullName: 'Whatever Name' }).expect(202);
    const newcomer = await world.client.invite(ownerId, { email: uniqueEmail('new'), fullName: 'Whatever Name' }).expect(202);
    expect({ ...res.body, email: '-' }).toEqual({ ...newcomer.body, email: '-' });
    const member = await world.t.checkout.prisma.familyMember.findFirstOrThrow({ where: { email } });
    expect(member).toMatchObject({ userId: existing.id, fullName: 'Whatever Name', status: 'pending', mustChangePassword: true });
    const [invite] = sentInvites(email);
    expect(invite.template === 'invite' && invite.vars).toMatchObject({ fullName: 'Whatever Name', temporaryPassword: null });
  });

  test('inviting a pending member again sends the invite again, with the password identity now holds (same idempotency key)', async () => {
    const { ownerId, family } = await world.client.newFamily();
    const email = uniqueEmail('again');
    const first = await world.client.invited(ownerId, { email, fullName: 'Again' });
    const second = await world.client.invited(ownerId, { email, fullName: 'Again' });
    expect(second.id).toBe(first.id);
    const requests = world.identity.requests.filter((r) => r.email === email);
    expect(requests.map((r) => r.idempotencyKey)).toEqual([`family-invite:${family.id}:${email}`, `family-invite:${family.id}:${email}`]);
    const invites = sentInvites(email);
    expect(invites.map((i) => i.template === 'invite' && i.vars.temporaryPassword)).toEqual([requests[0].password, requests[1].password]);
    expect(await membersOf(family.id)).toHaveLength(2);
  });

  test('answers 503 when the notifier does not answer, 502 invite_email_failed when it refuses; inviting again then sends it', async () => {
    const { ownerId, family } = await world.client.newFamily();
    const email = uniqueEmail('mailless');
    await world.notifier.stop();
    try {
      expect((await world.client.invite(ownerId, { email, fullName: 'Mailless' }).expect(503)).body.code).toBe('dependency_unavailable');
    } finally {
      await world.notifier.start();
    }
    world.notifier.refusal = 'smtp_failed';
    try {
      expect((await world.client.invite(ownerId, { email, fullName: 'Mailless' }).expect(502)).body.code).toBe('invite_email_failed');
    } finally {
      world.notifier.refusal = null;
    }
    expect(sentInvites(email)).toEqual([]);
    await world.client.invite(ownerId, { email, fullName: 'Mailless' }).expect(202);
    expect(sentInvites(email)).toHaveLength(1);
    expect((await membersOf(family.id)).filter((m) => m.email === email)).toHaveLength(1);
  });

  test('a member of another family: the same answer as an invite, nothing written, no account created, nothing sent', async () => {
    const first = await world.client.newFamily();
    const second = await world.client.newFamily();
    const email = uniqueEmail('taken');
    await world.client.invite(first.ownerId, { email, fullName: 'Taken' }).expect(202);
    const before = world.identity.requests.length;

    const res = await world.client.invite(second.ownerId, { email, fullName: 'Taken' }).expect(202);
    expect(res.body).toEqual({ email, status: 'pending' });
    expect(world.identity.requests.length).toBe(before);
    expect(await membersOf(second.family.id)).toHaveLength(1);
    expect(sentInvites(email)).toHaveLength(1);
  });

  test('the account is a member under another e-mail (checked by user id): the same answer, nothing written or sent', async () => {
    const { ownerId } = await world.client.newFamily();
    const otherOwner = await world.client.newFamily();
    // identity answers a user that checkout knows as a member under another e-mail
    const email = uniqueEmail('owner');
    const user = world.identity.existing(email);
    await world.t.checkout.prisma.familyMember.updateMany({ where: { userId: otherOwner.ownerId }, data: { userId: user.id } });

    const res = await world.client.invite(ownerId, { email, fullName: 'Owner Elsewhere' }).expect(202);
    expect(res.body).toEqual({ email, status: 'pending' });
    expect(await world.t.checkout.prisma.familyMember.count({ where: { email } })).toBe(0);
    expect(sentInvites(email)).toEqual([]);
  });

  test('the owner inviting their own e-mail: the same answer, nothing changes', async () => {
    const ownerId = randomUUID();
    const ownerEmail = uniqueEmail('self');
    await http().post('/api/v1/family').set(asCustomer(ownerId, ownerEmail)).send({ name: 'Self' }).expect(201);
    await world.client.invite(ownerId, { email: ownerEmail, fullName: 'Me' }).expect(202, { email: ownerEmail, status: 'pending' });
    expect(await world.t.checkout.prisma.familyMember.findFirstOrThrow({ where: { userId: ownerId } })).toMatchObject({ status: 'active' });
  });

  test(`answers 409 family_full for member number ${MAX_FAMILY_MEMBERS + 1} (the owner counts), and writes nothing`, async () => {
    const { ownerId, family } = await world.client.newFamily();
    for (let i = 1; i < MAX_FAMILY_MEMBERS; i++) await world.client.invite(ownerId, { email: uniqueEmail(`m${i}`), fullName: `Member ${i}` }).expect(202);
    const email = uniqueEmail('eleventh');
    const res = await world.client.invite(ownerId, { email, fullName: 'One Too Many' }).expect(409);
    expect(res.body).toMatchObject({ code: 'family_full' });
    expect(world.identity.userByEmail(email)).toBeUndefined();
    expect(await membersOf(family.id)).toHaveLength(MAX_FAMILY_MEMBERS);
    expect(sentInvites(email)).toEqual([]);
  });

  test('keeps the member limit when many invites race', async () => {
    const { ownerId, family } = await world.client.newFamily();
    const answers = await Promise.all(
      Array.from({ length: MAX_FAMILY_MEMBERS + 5 }, (_, i) => world.client.invite(ownerId, { email: uniqueEmail(`race${i}`), fullName: `Racer ${i}` })),
    );
    expect(answers.filter((r) => r.status === 202)).toHaveLength(MAX_FAMILY_MEMBERS - 1);
    expect(answers.filter((r) => r.status === 409).every((r) => r.body.code === 'family_full')).toBe(true);
    expect(await membersOf(family.id)).toHaveLength(MAX_FAMILY_MEMBERS);
  });

  test('one person invited by two families at once joins exactly one', async () => {
    const [a, b] = await Promise.all([world.client.newFamily('A'), world.client.newFamily('B')]);
    const email = uniqueEmail('wanted');
    const answers = await Promise.all([world.client.invite(a.ownerId, { email, fullName: 'Wanted' }), world.client.invite(b.ownerId, { email, fullName: 'Wanted' })]);
    expect(answers.map((r) => r.status)).toEqual([202, 202]);
    const user = world.identity.userByEmail(email);
    expect(await world.t.checkout.prisma.familyMember.count({ where: { userId: user?.id } })).toBe(1);
    expect(sentInvites(email)).toHaveLength(1);
  });

  test('a vendor or administrator account: the same answer and the same family view as any invite (customer, member elsewhere, unknown), nothing written or sent', async () => {
    const { ownerId, family } = await world.client.newFamily();
    const email = uniqueEmail('vendor');
    world.identity.existing(email, 'vendor');
    const adminEmail = uniqueEmail('admin');
    world.identity.existing(adminEmail, 'admin');
    const customerEmail = uniqueEmail('customer');
    world.identity.existing(customerEmail, 'customer');
    const elsewhere = await world.client.newFamily();
    const elsewhereEmail = uniqueEmail('elsewhere');
    await world.client.invited(elsewhere.ownerId, { email: elsewhereEmail, fullName: 'Elsewhere' });
    const view = async () => {
      const res = await http().get('/api/v1/family').set(asCustomer(ownerId));
      return { status: res.status, body: res.body };
    };
    const before = await view();
    const answers = [];
    for (const address of [email, adminEmail, customerEmail, elsewhereEmail, uniqueEmail('new')]) {
      const res = await world.client.invite(ownerId, { email: address, fullName: 'Someone' }).expect(202);
      answers.push({ ...res.body, email: res.body.email === address });
      // the view after each invite is the view before it: nothing tells the owner what the e-mail is
      expect(await view()).toEqual(before);
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(await membersOf(family.id)).toHaveLength(3);
    expect(sentInvites(email)).toEqual([]);
    expect(sentInvites(adminEmail)).toEqual([]);
  });

  test('answers 503 when identity does not answer, and writes nothing', async () => {
    const { ownerId, family } = await world.client.newFamily();
    const email = uniqueEmail('offline');
    await world.identity.stop();
    try {
      const res = await world.client.invite(ownerId, { email, fullName: 'Offline' }).expect(503);
      expect(res.body).toMatchObject({ code: 'dependency_unavailable' });
    } finally {
      await world.identity.start();
    }
    expect(await membersOf(family.id)).toHaveLength(1);
    expect(sentInvites(email)).toEqual([]);
  });

  test('answers 502 identity_refused when identity refuses, and writes nothing', async () => {
    const { ownerId, family } = await world.client.newFamily();
    world.identity.refusal = 'invalid_request';
    try {
      const res = await world.client.invite(ownerId, { email: uniqueEmail('refused'), fullName: 'Refused' }).expect(502);
      expect(res.body).toMatchObject({ code: 'identity_refused' });
    } finally {
      world.identity.refusal = null;
    }
    expect(await membersOf(family.id)).toHaveLength(1);
  });

  test('answers 403 for a member who is not the owner, 404 for a customer without a family; no account is created', async () => {
    const { ownerId } = await world.client.newFamily();
    const memberEmail = uniqueEmail('plain');
    const member = await world.client.invited(ownerId, { email: memberEmail, fullName: 'Plain' });
    const before = world.identity.requests.length;
    expect((await world.client.invite(member.userId, { email: uniqueEmail(), fullName: 'X' }).expect(403)).body.code).toBe('forbidden');
    await world.client.invite(randomUUID(), { email: uniqueEmail(), fullName: 'X' }).expect(404);
    expect(world.identity.requests.length).toBe(before);
  });

  test.each([[{ email: 'not-an-email', fullName: 'X' }], [{ email: 'a@example.test' }], [{ email: 'a@example.test', fullName: '' }], [{ email: 'a@example.test', fullName: 'X', role: 'admin' }]])(
    'answers 400 for the body %j and asks identity nothing',
    async (body) => {
      const { ownerId } = await world.client.newFamily();
      const before = world.identity.requests.length;
      expect((await world.client.invite(ownerId, body).expect(400)).body.code).toBe('validation_failed');
      expect(world.identity.requests.length).toBe(before);
    },
  );
});

describe('DELETE /family/members/{id}', () => {
  test('answers 204; the member becomes inactive and may be invited again (pending, same row)', async () => {
    const { ownerId, family } = await world.client.newFamily();
    const email = uniqueEmail('again');
    const member = await world.client.invited(ownerId, { email, fullName: 'Again' });
    await http().delete(`/api/v1/family/members/${member.id}`).set(asCustomer(ownerId)).expect(204);
    expect((await world.t.checkout.prisma.familyMember.findUniqueOrThrow({ where: { id: member.id } })).status).toBe('inactive');
    await http().delete(`/api/v1/family/members/${member.id}`).set(asCustomer(ownerId)).expect(204);

    const again = await world.client.invited(ownerId, { email, fullName: 'Again' });
    expect(again).toMatchObject({ id: member.id, status: 'pending', mustChangePassword: true });
    expect(await membersOf(family.id)).toHaveLength(2);
    expect(sentInvites(email)).toHaveLength(2);
  });

  test('answers 409 cannot_remove_owner for the owner themself', async () => {
    const { ownerId, family } = await world.client.newFamily();
    const res = await http().delete(`/api/v1/family/members/${family.members[0].id}`).set(asCustomer(ownerId)).expect(409);
    expect(res.body.code).toBe('cannot_remove_owner');
    expect((await world.t.checkout.prisma.familyMember.findUniqueOrThrow({ where: { id: family.members[0].id } })).status).toBe('active');
  });

  test("answers 404 for another family's member and an unknown id, and changes nothing", async () => {
    const mine = await world.client.newFamily();
    const theirs = await world.client.newFamily();
    const theirMember = await world.client.invited(theirs.ownerId, { email: uniqueEmail(), fullName: 'Theirs' });
    await http().delete(`/api/v1/family/members/${theirMember.id}`).set(asCustomer(mine.ownerId)).expect(404);
    await http().delete(`/api/v1/family/members/${theirs.family.members[0].id}`).set(asCustomer(mine.ownerId)).expect(404);
    await http().delete(`/api/v1/family/members/${randomUUID()}`).set(asCustomer(mine.ownerId)).expect(404);
    expect((await world.t.checkout.prisma.familyMember.findUniqueOrThrow({ where: { id: theirMember.id } })).status).toBe('pending');
  });

  test('answers 403 for a member who is not the owner', async () => {
    const { ownerId, family } = await world.client.newFamily();
    const member = await world.client.invited(ownerId, { email: uniqueEmail(), fullName: 'Member' });
    await http().delete(`/api/v1/family/members/${family.members[0].id}`).set(asCustomer(member.userId)).expect(403);
    await http().delete(`/api/v1/family/members/${member.id}`).set(asCustomer(member.userId)).expect(403);
    expect((await world.t.checkout.prisma.familyMember.findUniqueOrThrow({ where: { id: member.id } })).status).toBe('pending');
  });
});

describe('world.identity.account.setup_completed', () => {
  type SetupCompleted = EventData<typeof identityAccountSetupCompleted>;

  function setupCompleted(userId: string): EventEnvelope<SetupCompleted> {
    return {
      id: randomUUID(),
      type: identityAccountSetupCompleted.type,
      source: 'gateway',
      occurredAt: new Date().toISOString(),
      data: { userId, fullName: 'Set Up', phone: null, address: null, billing: null, completedAt: new Date().toISOString() },
    };
  }

  /** Publishes as the gateway's relay would and waits until checkout's activation consumer acknowledged it. */
  async function deliver(envelope: EventEnvelope<SetupCompleted>, msgID = envelope.id): Promise<void> {
    const { bus } = world.t.peer;
    const ack = await bus.js.publish(bus.naming.eventSubject(envelope), JSON.stringify(envelope), { msgID });
    const jsm = await bus.jsm;
    await waitFor(async () => {
      const info = await jsm.consumers.info(bus.naming.stream('IDENTITY'), bus.naming.durable('checkout', 'family-activation'));
      return info.ack_floor.stream_seq >= ack.seq;
    });
  }

  test('makes the pending membership active (joined now) and clears must_change_password; the family cart opens', async () => {
    const { ownerId } = await world.client.newFamily();
    const member = await world.client.invited(ownerId, { email: uniqueEmail('setup'), fullName: 'Set Up' });
    expect((await http().get('/api/v1/family/cart').set(asCustomer(member.userId)).expect(403)).body.code).toBe('membership_pending');

    const before = Date.now();
    await deliver(setupCompleted(member.userId));
    const row = await world.t.checkout.prisma.familyMember.findUniqueOrThrow({ where: { id: member.id } });
    expect(row).toMatchObject({ status: 'active', mustChangePassword: false });
    expect(row.joinedAt?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    await http().get('/api/v1/family/cart').set(asCustomer(member.userId)).expect(200);
  });

  test('delivered twice, it has its effect once', async () => {
    const { ownerId } = await world.client.newFamily();
    const member = await world.client.invited(ownerId, { email: uniqueEmail('twice'), fullName: 'Twice' });
    const event = setupCompleted(member.userId);
    await deliver(event);
    // if the handler ran again it would make this pending row active again
    await world.t.checkout.prisma.familyMember.update({ where: { id: member.id }, data: { status: 'pending', joinedAt: null, mustChangePassword: true } });
    await deliver(event, randomUUID()); // past JetStream's duplicate window, as a late redelivery
    expect(await world.t.checkout.prisma.familyMember.findUniqueOrThrow({ where: { id: member.id } })).toMatchObject({ status: 'pending', joinedAt: null });
    expect(await world.t.checkout.prisma.inbox.count({ where: { eventId: event.id, consumer: 'checkout_family-activation' } })).toBe(1);
  });

  test('leaves a removed (inactive) membership inactive, and other users alone', async () => {
    const { ownerId } = await world.client.newFamily();
    const removed = await world.client.invited(ownerId, { email: uniqueEmail('gone'), fullName: 'Gone' });
    const other = await world.client.invited(ownerId, { email: uniqueEmail('other'), fullName: 'Other' });
    await http().delete(`/api/v1/family/members/${removed.id}`).set(asCustomer(ownerId)).expect(204);
    await deliver(setupCompleted(removed.userId));
    expect(await world.t.checkout.prisma.familyMember.findUniqueOrThrow({ where: { id: removed.id } })).toMatchObject({ status: 'inactive', mustChangePassword: false });
    expect(await world.t.checkout.prisma.familyMember.findUniqueOrThrow({ where: { id: other.id } })).toMatchObject({ status: 'pending', mustChangePassword: true });
  });
});
