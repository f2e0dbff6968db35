import { randomUUID } from 'node:crypto';
import { MAX_ADDRESSES_PER_CUSTOMER, identityAccountSetupCompleted, type EventEnvelope } from '@pasar/contracts';
import { signedHeaders, waitFor } from '@pasar/testkit';
import request from 'supertest';
import { useTestCheckout } from '../../test/checkout';
import type { AccountSetupCompleted } from './profile';

const t = useTestCheckout();

const TIN = '/api/v1/account/tin';
const http = () => request(t.checkout.url);
const asCustomer = (userId: string) => signedHeaders({ userId, role: 'customer' });
const profileTin = async (customerId: string) => (await t.checkout.prisma.customerProfile.findUnique({ where: { customerId } }))?.tin ?? null;
const setTin = (userId: string, tin: unknown) => http().patch(TIN).set(asCustomer(userId)).send({ tin });

describe('PATCH /account/tin', () => {
  test.each([
    ['c-0012345', 'C12345'],
    [' ig 0123-4567-89 ', 'IG0123456789'],
    ['IG012345678', 'IG012345678'],
  ])('%p is stored normalised as %p (204)', async (input, stored) => {
    const userId = randomUUID();
    const res = await setTin(userId, input).expect(204);
    expect(res.text).toBe('');
    expect(await profileTin(userId)).toBe(stored);
    expect((await http().get(TIN).set(asCustomer(userId)).expect(200)).body).toEqual({ tin: stored });
  });

  test('replaces a TIN the profile already has', async () => {
    const userId = randomUUID();
    await setTin(userId, 'C1').expect(204);
    await setTin(userId, 'TN0002').expect(204);
    expect(await profileTin(userId)).toBe('TN2');
  });

  test.each([null, '', '   '])('%p clears the TIN', async (clear) => {
    const userId = randomUUID();
    await setTin(userId, 'C1').expect(204);
    await setTin(userId, clear).expect(204);
    expect(await profileTin(userId)).toBeNull();
    expect((await http().get(TIN).set(asCustomer(userId)).expect(200)).body).toEqual({ tin: null });
  });

  test.each(['X123', 'IG123', 'C000', 'C12A'])('%p answers 400 invalid_tin and keeps the TIN', async (bad) => {
    const userId = randomUUID();
    await setTin(userId, 'C1').expect(204);
    const res = await setTin(userId, bad).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code: 'invalid_tin' });
    expect(await profileTin(userId)).toBe('C1');
  });

  test.each([
    ['no tin field', {}],
    ['a number', { tin: 12345 }],
    ['an unknown field', { tin: 'C1', extra: true }],
  ])('answers 400 validation_failed for %s', async (_case, body) => {
    const userId = randomUUID();
    const res = await http().patch(TIN).set(asCustomer(userId)).send(body).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(await profileTin(userId)).toBeNull();
  });

  test("leaves the buyer_tin of the customer's existing orders alone", async () => {
    const userId = randomUUID();
    await setTin(userId, 'C1').expect(204);
    const order = await t.checkout.prisma.order.create({
      data: {
        shortId: `T${randomUUID().slice(0, 8)}`,
        customerId: userId,
        buyerTin: 'C1',
        subtotal: '10.00',
        total: '10.00',
        shipFullName: 'Nur',
        shipPhone: '+60111222333',
        shipAddressLine1: '1 Jalan Satu',
        shipCity: 'Ipoh',
        shipPostcode: '30000',
        shipState: 'Perak',
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    await setTin(userId, 'IG012345678').expect(204);
    await setTin(userId, null).expect(204);
    expect((await t.checkout.prisma.order.findUniqueOrThrow({ where: { id: order.id } })).buyerTin).toBe('C1');
  });

  test.each([
    ['GET', () => http().get(TIN)],
    ['PATCH', () => http().patch(TIN).send({ tin: 'C1' })],
  ] as const)('%s answers 401 without the gateway signature and 403 for a vendor', async (_method, call) => {
    const anonymous = await call().expect(401);
    expect(anonymous.body).toMatchObject({ status: 401, code: 'unauthenticated' });
    const vendor = randomUUID();
    const res = await call().set(signedHeaders({ userId: vendor, role: 'vendor' })).expect(403);
    expect(res.body).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await profileTin(vendor)).toBeNull();
  });
});

describe('identity.account.setup_completed', () => {
  const address = {
    fullName: 'Nur Aisyah',
    phone: '+60111222333',
    addressLine1: '12 Jalan Ampang',
    addressLine2: null,
    city: 'Kuala Lumpur',
    postcode: '50450',
    state: 'Wilayah Persekutuan',
  };

  function setupCompleted(data: Partial<AccountSetupCompleted> & { userId: string }): EventEnvelope<AccountSetupCompleted> {
    return {
      id: randomUUID(),
      type: identityAccountSetupCompleted.type,
      source: 'gateway',
      occurredAt: new Date().toISOString(),
      data: { fullName: 'Nur Aisyah', phone: '+60111222333', address, billing: { tin: 'IG012345678' }, completedAt: new Date().toISOString(), ...data },
    };
  }

  /** Publishes as the gateway's relay does (message id = event id unless told) and waits until checkout acknowledged it. */
  async function deliver(envelope: EventEnvelope<AccountSetupCompleted>, msgID = envelope.id): Promise<void> {
    const { bus } = t.peer;
    const ack = await bus.js.publish(bus.naming.eventSubject(envelope), JSON.stringify(envelope), { msgID });
    const jsm = await bus.jsm;
    const durable = bus.naming.durable('checkout', 'profile-account-setup');
    await waitFor(async () => (await jsm.consumers.info(bus.naming.stream('IDENTITY'), durable)).ack_floor.stream_seq >= ack.seq);
  }

  const addressesOf = (customerId: string) => t.checkout.prisma.customerAddress.findMany({ where: { customerId }, orderBy: { createdAt: 'asc' } });

  test('saves the address as the default address and the TIN as the profile TIN', async () => {
    const userId = randomUUID();
    await http().post('/api/v1/account/addresses').set(asCustomer(userId)).send({
      label: 'Old', full_name: 'Nur', phone: '+60100000000', address_line_1: '1 Old Road', city: 'Ipoh', postcode: '30000', state: 'Perak',
    }).expect(201);
    await deliver(setupCompleted({ userId, billing: { tin: 'c 0012345' } }));

    const [old, saved] = await addressesOf(userId);
    expect(old).toMatchObject({ label: 'Old', isDefault: false });
    expect(saved).toMatchObject({ label: 'Home', ...address, isDefault: true });
    expect(await profileTin(userId)).toBe('C12345');
  });

  test('the same event delivered twice saves one address', async () => {
    const userId = randomUUID();
    const event = setupCompleted({ userId });
    await deliver(event);
    await deliver(event, randomUUID()); // past JetStream's duplicate window: the inbox catches it
    expect(await addressesOf(userId)).toHaveLength(1);
    expect(await profileTin(userId)).toBe('IG012345678');
  });

  test('a second setup with the same address (another event id) makes the existing one the default again instead of adding it', async () => {
    const userId = randomUUID();
    await deliver(setupCompleted({ userId }));
    const [first] = await addressesOf(userId);
    await http().post('/api/v1/account/addresses').set(asCustomer(userId)).send({
      label: 'Office', full_name: 'Nur', phone: '+60100000000', address_line_1: '9 Office Road', city: 'Ipoh', postcode: '30000', state: 'Perak', is_default: true,
    }).expect(201);
    await deliver(setupCompleted({ userId }));
    const addresses = await addressesOf(userId);
    expect(addresses).toHaveLength(2);
    expect(addresses.find((a) => a.isDefault)?.id).toBe(first.id);
  });

  test('without billing, or with a null TIN, the profile TIN stays as it was', async () => {
    const userId = randomUUID();
    await setTin(userId, 'C1').expect(204);
    await deliver(setupCompleted({ userId, billing: null }));
    await deliver(setupCompleted({ userId, billing: { tin: null } }));
    expect(await profileTin(userId)).toBe('C1');
    expect(await addressesOf(userId)).toHaveLength(1);
  });

  test('an invalid TIN is not saved, and the address still is', async () => {
    const userId = randomUUID();
    await deliver(setupCompleted({ userId, billing: { tin: 'X123' } }));
    expect(await profileTin(userId)).toBeNull();
    expect(await addressesOf(userId)).toHaveLength(1);
  });

  test('an address the address rules refuse is skipped; the TIN is still saved', async () => {
    const userId = randomUUID();
    await deliver(setupCompleted({ userId, address: { ...address, city: 'x'.repeat(101) } }));
    expect(await addressesOf(userId)).toEqual([]);
    expect(await profileTin(userId)).toBe('IG012345678');
    expect(await t.checkout.prisma.parkedMessage.count()).toBe(0);
  });

  test('a customer who keeps the most addresses already gets none added (logged, not retried); the TIN is saved', async () => {
    const userId = randomUUID();
    const stored = { customerId: userId, label: 'Kept', fullName: 'Nur', phone: '+60100000000', addressLine1: '1 Road', city: 'Ipoh', postcode: '30000', state: 'Perak' };
    await t.checkout.prisma.customerAddress.createMany({
      data: Array.from({ length: MAX_ADDRESSES_PER_CUSTOMER }, (_, i) => ({ ...stored, addressLine1: `${i} Road`, isDefault: i === 0 })),
    });
    await deliver(setupCompleted({ userId }));
    expect(await addressesOf(userId)).toHaveLength(MAX_ADDRESSES_PER_CUSTOMER);
    expect(await profileTin(userId)).toBe('IG012345678');
    expect(await t.checkout.prisma.parkedMessage.count()).toBe(0);
  });
});
