import { randomUUID } from 'node:crypto';
import { family as familySchema } from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import { activateDirectly, asCustomer, asVendor, uniqueEmail, useFamilyWorld } from './test-fixtures';

const world = useFamilyWorld();

const http = () => world.client.http();

const homeAddress = {
  fullName: 'Aminah Rahman',
  phone: '+60123456789',
  addressLine1: '12 Jalan Ampang',
  city: 'Kuala Lumpur',
  postcode: '50450',
  state: 'Wilayah Persekutuan',
};

/** A family with one member who accepted (active) and one who has not yet (pending). */
async function familyWithMembers() {
  const { ownerId, family } = await world.client.newFamily();
  const active = await world.client.invited(ownerId, { email: uniqueEmail('active'), fullName: 'Active One' });
  const pending = await world.client.invited(ownerId, { email: uniqueEmail('pending'), fullName: 'Pending One' });
  await activateDirectly(world.t, active.userId);
  return { ownerId, family, activeUserId: active.userId as string, pendingUserId: pending.userId as string };
}

describe('POST /family', () => {
  test('answers 201 with a Location and the family; the caller is its owner and first active member', async () => {
    const ownerId = randomUUID();
    await world.t.checkout.prisma.userReplica.create({
      data: { userId: ownerId, email: 'aminah@example.test', fullName: 'Aminah Rahman', phone: null, role: 'customer', updatedAt: new Date() },
    });
    const res = await http().post('/api/v1/family').set(asCustomer(ownerId, 'aminah@example.test')).send({ name: '  Keluarga Rahman ' }).expect(201);
    expect(res.headers.location).toBe('/api/v1/family');
    const family = familySchema.parse(res.body);
    expect(family).toEqual({
      id: expect.any(String),
      name: 'Keluarga Rahman',
      ownerId,
      isOwner: true,
      address: null,
      members: [
        {
          id: expect.any(String),
          userId: ownerId,
          email: 'aminah@example.test',
          fullName: 'Aminah Rahman',
          status: 'active',
          mustChangePassword: false,
          invitedAt: expect.stringMatching(/Z$/),
          joinedAt: family.members[0].invitedAt,
        },
      ],
    });
  });

  test('without a user replica the owner is named by their e-mail', async () => {
    const ownerId = randomUUID();
    const res = await http().post('/api/v1/family').set(asCustomer(ownerId, 'noreplica@example.test')).send({ name: 'Family' }).expect(201);
    expect(res.body.members[0]).toMatchObject({ email: 'noreplica@example.test', fullName: 'noreplica@example.test' });
  });

  test('answers 409 already_in_family for an owner creating a second family', async () => {
    const { ownerId } = await world.client.newFamily();
    const res = await http().post('/api/v1/family').set(asCustomer(ownerId)).send({ name: 'Second' }).expect(409);
    expect(res.body).toMatchObject({ code: 'already_in_family' });
    expect(await world.t.checkout.prisma.familyAccount.count({ where: { ownerId } })).toBe(1);
  });

  test('answers 409 already_in_family for a pending or active member of another family', async () => {
    const { activeUserId, pendingUserId } = await familyWithMembers();
    for (const userId of [activeUserId, pendingUserId]) {
      const res = await http().post('/api/v1/family').set(asCustomer(userId)).send({ name: 'Mine' }).expect(409);
      expect(res.body.code).toBe('already_in_family');
      expect(await world.t.checkout.prisma.familyAccount.count({ where: { ownerId: userId } })).toBe(0);
    }
  });

  test('a removed (inactive) member may create their own family', async () => {
    const { ownerId, activeUserId } = await familyWithMembers();
    const member = await world.t.checkout.prisma.familyMember.findFirstOrThrow({ where: { userId: activeUserId } });
    await http().delete(`/api/v1/family/members/${member.id}`).set(asCustomer(ownerId)).expect(204);
    await http().post('/api/v1/family').set(asCustomer(activeUserId)).send({ name: 'Own one' }).expect(201);
  });

  test('10 concurrent creates by one user make exactly one family', async () => {
    const ownerId = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => http().post('/api/v1/family').set(asCustomer(ownerId)).send({ name: `Try ${i}` })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    expect(await world.t.checkout.prisma.familyMember.count({ where: { userId: ownerId } })).toBe(1);
  });

  test.each([[{}], [{ name: '' }], [{ name: '   ' }], [{ name: 'x'.repeat(201) }], [{ name: 'ok', extra: 1 }], [{ name: 7 }]])(
    'answers 400 for the body %j and writes nothing',
    async (body) => {
      const ownerId = randomUUID();
      const res = await http().post('/api/v1/family').set(asCustomer(ownerId)).send(body).expect(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', errors: expect.any(Array) });
      expect(await world.t.checkout.prisma.familyAccount.count({ where: { ownerId } })).toBe(0);
    },
  );
});

describe('GET /family', () => {
  test('the owner, an active and a pending member see the family with its active members, the owner first; a pending invite is not listed', async () => {
    const { ownerId, family, activeUserId, pendingUserId } = await familyWithMembers();
    const asOwner = familySchema.parse((await http().get('/api/v1/family').set(asCustomer(ownerId)).expect(200)).body);
    expect(asOwner).toMatchObject({ id: family.id, name: 'Keluarga Rahman', ownerId, isOwner: true });
    expect(asOwner.members.map((m) => [m.userId, m.status])).toEqual([
      [ownerId, 'active'],
      [activeUserId, 'active'],
    ]);
    expect(asOwner.members[1].joinedAt).not.toBeNull();

    for (const userId of [activeUserId, pendingUserId]) {
      const asMember = (await http().get('/api/v1/family').set(asCustomer(userId)).expect(200)).body;
      expect(asMember).toMatchObject({ id: family.id, isOwner: false });
      expect(asMember.members.map((m: { userId: string }) => m.userId)).toEqual([ownerId, activeUserId]);
    }
    // once their account setup is done, listed
    await activateDirectly(world.t, pendingUserId);
    const after = (await http().get('/api/v1/family').set(asCustomer(ownerId)).expect(200)).body;
    expect(after.members.map((m: { userId: string }) => m.userId)).toEqual([ownerId, activeUserId, pendingUserId]);
  });

  test('a removed member is no longer listed and no longer sees the family', async () => {
    const { ownerId, activeUserId } = await familyWithMembers();
    const member = await world.t.checkout.prisma.familyMember.findFirstOrThrow({ where: { userId: activeUserId } });
    await http().delete(`/api/v1/family/members/${member.id}`).set(asCustomer(ownerId)).expect(204);
    const family = (await http().get('/api/v1/family').set(asCustomer(ownerId)).expect(200)).body;
    expect(family.members.map((m: { userId: string }) => m.userId)).not.toContain(activeUserId);
    const res = await http().get('/api/v1/family').set(asCustomer(activeUserId)).expect(404);
    expect(res.body).toMatchObject({ code: 'not_found' });
  });

  test('answers 404 for a customer without a family', async () => {
    await http().get('/api/v1/family').set(asCustomer(randomUUID())).expect(404);
  });
});

describe('PUT /family/address', () => {
  test('answers 204; the family then shows the address (an empty addressLine2 is none)', async () => {
    const { ownerId, activeUserId } = await familyWithMembers();
    await http().put('/api/v1/family/address').set(asCustomer(ownerId)).send({ ...homeAddress, addressLine2: '' }).expect(204);
    const seen = (await http().get('/api/v1/family').set(asCustomer(activeUserId)).expect(200)).body;
    expect(seen.address).toEqual({ ...homeAddress, addressLine2: null });

    await http().put('/api/v1/family/address').set(asCustomer(ownerId)).send({ ...homeAddress, city: 'Shah Alam', addressLine2: 'Level 3' }).expect(204);
    const changed = (await http().get('/api/v1/family').set(asCustomer(ownerId)).expect(200)).body;
    expect(changed.address).toEqual({ ...homeAddress, city: 'Shah Alam', addressLine2: 'Level 3' });
  });

  test('answers 403 for an active or pending member who is not the owner, and changes nothing', async () => {
    const { family, activeUserId, pendingUserId } = await familyWithMembers();
    for (const userId of [activeUserId, pendingUserId]) {
      const res = await http().put('/api/v1/family/address').set(asCustomer(userId)).send(homeAddress).expect(403);
      expect(res.body).toMatchObject({ code: 'forbidden' });
    }
    expect((await world.t.checkout.prisma.familyAccount.findUniqueOrThrow({ where: { id: family.id } })).city).toBeNull();
  });

  test('answers 404 for a customer without a family', async () => {
    await http().put('/api/v1/family/address').set(asCustomer(randomUUID())).send(homeAddress).expect(404);
  });

  test('answers 400 for a missing field and changes nothing', async () => {
    const { ownerId, family } = await world.client.newFamily();
    const { phone: _phone, ...withoutPhone } = homeAddress;
    const res = await http().put('/api/v1/family/address').set(asCustomer(ownerId)).send(withoutPhone).expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: ['phone'] })]);
    expect((await world.t.checkout.prisma.familyAccount.findUniqueOrThrow({ where: { id: family.id } })).addressLine1).toBeNull();
  });
});

describe('who may call the family endpoints', () => {
  const someId = randomUUID();
  // every row has three entries: with fewer, jest would pass its `done` callback as the body
  const endpoints: [string, string, object | null][] = [
    ['post', '/api/v1/family', { name: 'Family' }],
    ['get', '/api/v1/family', null],
    ['put', '/api/v1/family/address', homeAddress],
    ['post', '/api/v1/family/members', { email: 'x@example.test', fullName: 'X' }],
    ['delete', `/api/v1/family/members/${someId}`, null],
    ['get', '/api/v1/family/cart', null],
    ['post', '/api/v1/family/cart/items', { productId: someId, quantity: 1 }],
    ['delete', `/api/v1/family/cart/items/${someId}`, null],
  ];

  function call(method: string, path: string, headers: Record<string, string>, body: object | null) {
    const req = http()[method as 'get' | 'post' | 'put' | 'delete'](path).set(headers);
    return body ? req.send(body) : req;
  }

  test.each(endpoints)('%s %s answers 401 without the gateway signature', async (method, path, body) => {
    const res = await call(method, path, {}, body);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'unauthenticated' });
  });

  test.each(endpoints)('%s %s answers 401 for an anonymous signed request', async (method, path, body) => {
    expect((await call(method, path, signedHeaders(null), body)).status).toBe(401);
  });

  test.each(endpoints)('%s %s answers 403 for the vendor role and writes nothing', async (method, path, body) => {
    const vendorId = randomUUID();
    const res = await call(method, path, asVendor(vendorId), body);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'forbidden' });
    expect(await world.t.checkout.prisma.familyMember.count({ where: { userId: vendorId } })).toBe(0);
  });

  test.each(endpoints)('%s %s answers 403 for the admin role', async (method, path, body) => {
    expect((await call(method, path, signedHeaders({ role: 'admin' }), body)).status).toBe(403);
  });

  test('path ids that are not uuids answer 400', async () => {
    const { ownerId } = await world.client.newFamily();
    await http().delete('/api/v1/family/members/not-a-uuid').set(asCustomer(ownerId)).expect(400);
    await http().delete('/api/v1/family/cart/items/not-a-uuid').set(asCustomer(ownerId)).expect(400);
  });
});
