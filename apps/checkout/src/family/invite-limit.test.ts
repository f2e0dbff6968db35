import { uniqueEmail, useFamilyWorld } from './test-fixtures';

const LIMIT = 3;
const world = useFamilyWorld({ env: { FAMILY_INVITES_PER_DAY: String(LIMIT) } });

describe('POST /family/members: invites per family per day (FAMILY_INVITES_PER_DAY)', () => {
  test('past the cap the family gets 429 invite_limit_reached with Retry-After, and nothing is asked or sent', async () => {
    const { ownerId } = await world.client.newFamily();
    for (let i = 0; i < LIMIT; i++) await world.client.invite(ownerId, { email: uniqueEmail(`m${i}`), fullName: `Member ${i}` }).expect(202);
    const before = world.identity.requests.length;
    const email = uniqueEmail('over');
    const res = await world.client.invite(ownerId, { email, fullName: 'Over' }).expect(429);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 429, code: 'invite_limit_reached' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(23 * 3600);
    expect(world.identity.requests.length).toBe(before);
    expect(world.notifier.sent.get(email)).toBeUndefined();
  });

  test('refused invites count too (probing e-mails spends the budget), and another family keeps its own', async () => {
    const { ownerId } = await world.client.newFamily();
    const taken = await world.client.newFamily();
    const member = uniqueEmail('taken');
    await world.client.invite(taken.ownerId, { email: member, fullName: 'Taken' }).expect(202);
    // not invited (the person is in another family), with the same answer, and counted
    for (let i = 0; i < LIMIT; i++) await world.client.invite(ownerId, { email: member, fullName: 'Taken' }).expect(202);
    expect((await world.client.invite(ownerId, { email: uniqueEmail(), fullName: 'Next' }).expect(429)).body.code).toBe('invite_limit_reached');
    await world.client.invite(taken.ownerId, { email: uniqueEmail(), fullName: 'Other family' }).expect(202);
  });

  test('invites past the day leave the window', async () => {
    const { ownerId, family } = await world.client.newFamily();
    for (let i = 0; i < LIMIT; i++) await world.client.invite(ownerId, { email: uniqueEmail(`d${i}`), fullName: `Day ${i}` }).expect(202);
    await world.client.invite(ownerId, { email: uniqueEmail(), fullName: 'Over' }).expect(429);
    const yesterday = new Date(Date.now() - 24 * 3600 * 1000 - 1000);
    await world.t.checkout.prisma.familyInvite.updateMany({ where: { familyId: family.id }, data: { createdAt: yesterday } });
    await world.client.invite(ownerId, { email: uniqueEmail(), fullName: 'Next day' }).expect(202);
  });
});
