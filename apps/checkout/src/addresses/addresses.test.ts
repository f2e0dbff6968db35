import { randomUUID } from 'node:crypto';
import { MAX_ADDRESSES_PER_CUSTOMER, customerAddress, type CustomerAddress } from '@pasar/contracts';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { z } from 'zod';
import { useTestCheckout } from '../../test/checkout';

const BASE = '/api/v1/account/addresses';
const t = useTestCheckout();

const http = () => request(t.checkout.url);
const asCustomer = (userId: string) => signedHeaders({ userId, role: 'customer' });

function sampleAddress(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    label: 'Home',
    full_name: 'Siti Aminah',
    phone: '+60123456789',
    address_line_1: '12 Jalan Ampang',
    city: 'Kuala Lumpur',
    postcode: '50450',
    state: 'Wilayah Persekutuan',
    ...overrides,
  };
}

async function addAddress(userId: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await http().post(BASE).set(asCustomer(userId)).send(sampleAddress(overrides)).expect(201);
  const match = /^\/api\/v1\/account\/addresses\/([0-9a-f-]{36})$/.exec(res.headers.location ?? '');
  if (!match) throw new Error(`unexpected Location ${res.headers.location}`);
  return match[1];
}

async function addressesOf(userId: string): Promise<CustomerAddress[]> {
  const res = await http().get(BASE).set(asCustomer(userId)).expect(200);
  return z.array(customerAddress).parse(res.body);
}

async function defaultsOf(customerId: string): Promise<string[]> {
  const rows = await t.checkout.prisma.customerAddress.findMany({ where: { customerId, isDefault: true } });
  return rows.map((row) => row.id);
}

describe('GET /account/addresses', () => {
  test('answers an empty array for a customer without addresses', async () => {
    expect(await addressesOf(randomUUID())).toEqual([]);
  });

  test('answers the Customer address resource in snake_case: the default first, then newest first', async () => {
    const userId = randomUUID();
    const first = await addAddress(userId, { label: 'First' });
    const second = await addAddress(userId, { label: 'Second', address_line_2: 'Level 3' });
    const third = await addAddress(userId, { label: 'Third' });

    const list = await addressesOf(userId);
    expect(list.map((a) => a.id)).toEqual([first, third, second]);
    expect(list[2]).toEqual({
      id: second,
      customer_id: userId,
      label: 'Second',
      full_name: 'Siti Aminah',
      phone: '+60123456789',
      address_line_1: '12 Jalan Ampang',
      address_line_2: 'Level 3',
      city: 'Kuala Lumpur',
      postcode: '50450',
      state: 'Wilayah Persekutuan',
      is_default: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(list[0].is_default).toBe(true);
    expect(list[1].address_line_2).toBeNull();
  });

  test("never shows another customer's addresses", async () => {
    const owner = randomUUID();
    await addAddress(owner);
    expect(await addressesOf(randomUUID())).toEqual([]);
  });
});

describe('POST /account/addresses', () => {
  test('answers 201 with a Location and an empty body; the first address becomes the default', async () => {
    const userId = randomUUID();
    const res = await http().post(BASE).set(asCustomer(userId)).send(sampleAddress({ is_default: false })).expect(201);
    expect(res.text).toBe('');
    const [created] = await addressesOf(userId);
    expect(res.headers.location).toBe(`${BASE}/${created.id}`);
    expect(created.is_default).toBe(true);
  });

  test('a later address is not the default unless is_default=true, which unsets the other default', async () => {
    const userId = randomUUID();
    const first = await addAddress(userId);
    const second = await addAddress(userId);
    expect(await defaultsOf(userId)).toEqual([first]);
    const third = await addAddress(userId, { is_default: true });
    expect(await defaultsOf(userId)).toEqual([third]);
    expect((await addressesOf(userId)).map((a) => [a.id, a.is_default])).toEqual([
      [third, true],
      [second, false],
      [first, false],
    ]);
  });

  test('trims the fields and stores an empty address_line_2 as null', async () => {
    const userId = randomUUID();
    await addAddress(userId, { label: '  Office  ', address_line_2: '' });
    const [address] = await addressesOf(userId);
    expect(address.label).toBe('Office');
    expect(address.address_line_2).toBeNull();
  });

  test(`answers 409 address_limit for address number ${MAX_ADDRESSES_PER_CUSTOMER + 1}`, async () => {
    const userId = randomUUID();
    for (let i = 0; i < MAX_ADDRESSES_PER_CUSTOMER; i += 1) await addAddress(userId, { label: `Address ${i}` });
    const res = await http().post(BASE).set(asCustomer(userId)).send(sampleAddress()).expect(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 409, code: 'address_limit' });
    expect(await addressesOf(userId)).toHaveLength(MAX_ADDRESSES_PER_CUSTOMER);
  });

  test('keeps the limit and the single default when many creates race', async () => {
    const userId = randomUUID();
    const extra = 5;
    const results = await Promise.all(
      Array.from({ length: MAX_ADDRESSES_PER_CUSTOMER + extra }, (_, i) =>
        http().post(BASE).set(asCustomer(userId)).send(sampleAddress({ label: `Race ${i}`, is_default: i % 2 === 0 })),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_ADDRESSES_PER_CUSTOMER);
    expect(statuses.filter((s) => s === 409)).toHaveLength(extra);
    expect(await t.checkout.prisma.customerAddress.count({ where: { customerId: userId } })).toBe(MAX_ADDRESSES_PER_CUSTOMER);
    expect(await defaultsOf(userId)).toHaveLength(1);
  });

  test.each([
    ['a missing required field', { ...sampleAddress(), city: undefined }, 'city'],
    ['a blank label', sampleAddress({ label: '   ' }), 'label'],
    ['a field the contract does not know', sampleAddress({ country: 'MY' }), ''],
    ['a non-boolean is_default', sampleAddress({ is_default: 'yes' }), 'is_default'],
    ['a number where a string belongs', sampleAddress({ postcode: 50450 }), 'postcode'],
  ])('answers 400 validation_failed with errors for %s', async (_case, body, path) => {
    const userId = randomUUID();
    const res = await http().post(BASE).set(asCustomer(userId)).send(body).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
    const errors = z.array(z.object({ path: z.array(z.union([z.string(), z.number()])) })).parse(res.body.errors);
    expect(errors.length).toBeGreaterThan(0);
    if (path) expect(errors.map((e) => e.path.join('.'))).toContain(path);
    expect(await addressesOf(userId)).toEqual([]);
  });

  test('answers 400 for a request without a body', async () => {
    const res = await http().post(BASE).set(asCustomer(randomUUID())).expect(400);
    expect(res.body.code).toBe('validation_failed');
  });

  test('answers 400 malformed_json for a body that is not valid JSON', async () => {
    const res = await http().post(BASE).set(asCustomer(randomUUID())).set('Content-Type', 'application/json').send('{"label":');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('malformed_json');
  });

  test('answers 415 for a body that is not JSON', async () => {
    const userId = randomUUID();
    const res = await http().post(BASE).set(asCustomer(userId)).set('Content-Type', 'text/plain').send('label=Home').expect(415);
    expect(res.body).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    expect(await addressesOf(userId)).toEqual([]);
  });
});

describe('PUT /account/addresses/{id}', () => {
  test('answers 204 and replaces the fields', async () => {
    const userId = randomUUID();
    const id = await addAddress(userId, { address_line_2: 'Level 3' });
    const changes = { label: 'Work', full_name: 'Ahmad Faizal', phone: '+60198765432', address_line_1: '1 Jalan Sultan', city: 'Penang', postcode: '10200', state: 'Pulau Pinang' };
    const res = await http().put(`${BASE}/${id}`).set(asCustomer(userId)).send(changes).expect(204);
    expect(res.text).toBe('');
    const [address] = await addressesOf(userId);
    expect(address).toMatchObject({ id, ...changes, address_line_2: null, is_default: true });
  });

  test('is_default=true makes it the default; false or absent leaves the default where it is', async () => {
    const userId = randomUUID();
    const first = await addAddress(userId);
    const second = await addAddress(userId);
    await http().put(`${BASE}/${first}`).set(asCustomer(userId)).send(sampleAddress({ is_default: false })).expect(204);
    expect(await defaultsOf(userId)).toEqual([first]);
    await http().put(`${BASE}/${second}`).set(asCustomer(userId)).send(sampleAddress()).expect(204);
    expect(await defaultsOf(userId)).toEqual([first]);
    await http().put(`${BASE}/${second}`).set(asCustomer(userId)).send(sampleAddress({ is_default: true })).expect(204);
    expect(await defaultsOf(userId)).toEqual([second]);
  });

  test('answers 400 with errors for a bad body and changes nothing', async () => {
    const userId = randomUUID();
    const id = await addAddress(userId, { label: 'Home' });
    const res = await http().put(`${BASE}/${id}`).set(asCustomer(userId)).send({ label: 'Only a label' }).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.length).toBeGreaterThan(0);
    expect((await addressesOf(userId))[0].label).toBe('Home');
  });

  test('answers 415 for a body that is not JSON', async () => {
    const userId = randomUUID();
    const id = await addAddress(userId);
    await http().put(`${BASE}/${id}`).set(asCustomer(userId)).set('Content-Type', 'text/plain').send('label=Work').expect(415);
  });
});

describe('DELETE /account/addresses/{id}', () => {
  test('answers 204; deleting another address leaves the default alone', async () => {
    const userId = randomUUID();
    const first = await addAddress(userId);
    const second = await addAddress(userId);
    const res = await http().delete(`${BASE}/${second}`).set(asCustomer(userId)).expect(204);
    expect(res.text).toBe('');
    expect((await addressesOf(userId)).map((a) => [a.id, a.is_default])).toEqual([[first, true]]);
  });

  test('deleting the default promotes the newest remaining address', async () => {
    const userId = randomUUID();
    const first = await addAddress(userId);
    const second = await addAddress(userId);
    const third = await addAddress(userId);
    await http().patch(`${BASE}/${second}/default`).set(asCustomer(userId)).expect(204);
    await http().delete(`${BASE}/${second}`).set(asCustomer(userId)).expect(204);
    expect((await addressesOf(userId)).map((a) => [a.id, a.is_default])).toEqual([
      [third, true],
      [first, false],
    ]);
  });

  test('deleting the last address leaves none, and the next one becomes the default again', async () => {
    const userId = randomUUID();
    const only = await addAddress(userId);
    await http().delete(`${BASE}/${only}`).set(asCustomer(userId)).expect(204);
    expect(await addressesOf(userId)).toEqual([]);
    const next = await addAddress(userId);
    expect(await defaultsOf(userId)).toEqual([next]);
  });
});

describe('PATCH /account/addresses/{id}/default', () => {
  test('answers 204 and makes the address the only default', async () => {
    const userId = randomUUID();
    const first = await addAddress(userId);
    const second = await addAddress(userId);
    const res = await http().patch(`${BASE}/${second}/default`).set(asCustomer(userId)).expect(204);
    expect(res.text).toBe('');
    expect(await defaultsOf(userId)).toEqual([second]);
    await http().patch(`${BASE}/${second}/default`).set(asCustomer(userId)).expect(204);
    expect(await defaultsOf(userId)).toEqual([second]);
    expect((await addressesOf(userId)).map((a) => a.id)).toEqual([second, first]);
  });

  test('20 concurrent calls on different addresses of one customer leave exactly one default', async () => {
    const userId = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push(await addAddress(userId, { label: `Address ${i}` }));
    for (let round = 0; round < 3; round += 1) {
      const results = await Promise.all(ids.map((id) => http().patch(`${BASE}/${id}/default`).set(asCustomer(userId))));
      expect(results.map((r) => r.status)).toEqual(ids.map(() => 204));
      const defaults = await defaultsOf(userId);
      expect(defaults).toHaveLength(1);
      expect(ids).toContain(defaults[0]);
      expect((await addressesOf(userId)).filter((a) => a.is_default)).toHaveLength(1);
    }
  });

  test('the database itself refuses a second default for one customer', async () => {
    const userId = randomUUID();
    await addAddress(userId);
    const second = await addAddress(userId);
    await expect(
      t.checkout.prisma.customerAddress.update({ where: { id: second }, data: { isDefault: true } }),
    ).rejects.toThrow(/Unique constraint/i);
  });
});

describe('who may call the address endpoints', () => {
  const endpoints = [
    ['GET', ''],
    ['POST', ''],
    ['PUT', '/:id'],
    ['DELETE', '/:id'],
    ['PATCH', '/:id/default'],
  ] as const;

  function call(method: (typeof endpoints)[number][0], path: string) {
    const url = `${BASE}${path}`;
    const agent = http();
    switch (method) {
      case 'GET':
        return agent.get(url);
      case 'POST':
        return agent.post(url).send(sampleAddress());
      case 'PUT':
        return agent.put(url).send(sampleAddress());
      case 'DELETE':
        return agent.delete(url);
      case 'PATCH':
        return agent.patch(url);
    }
  }

  test.each(endpoints)('%s %s answers 401 without the gateway signature', async (method, path) => {
    const res = await call(method, path.replace(':id', randomUUID()));
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  test.each(endpoints)('%s %s answers 401 for a forged signature', async (method, path) => {
    const headers = { ...asCustomer(randomUUID()), 'x-pasar-role': 'admin' };
    const res = await call(method, path.replace(':id', randomUUID())).set(headers);
    expect(res.status).toBe(401);
  });

  test.each(endpoints)('%s %s answers 403 for the vendor role', async (method, path) => {
    const vendor = randomUUID();
    const owner = randomUUID();
    const id = await addAddress(owner);
    const res = await call(method, path.replace(':id', id)).set(signedHeaders({ userId: vendor, role: 'vendor' }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ status: 403, code: 'forbidden' });
  });

  test.each(endpoints.filter(([, path]) => path !== ''))("%s %s answers 404 for another customer's address and changes nothing", async (method, path) => {
    const owner = randomUUID();
    const first = await addAddress(owner, { label: 'Mine' });
    const second = await addAddress(owner, { label: 'Also mine' });
    const before = await addressesOf(owner);
    const res = await call(method, path.replace(':id', second)).set(asCustomer(randomUUID()));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
    expect(await addressesOf(owner)).toEqual(before);
    expect(await defaultsOf(owner)).toEqual([first]);
  });

  test.each(endpoints.filter(([, path]) => path !== ''))('%s %s answers 404 for an unknown id', async (method, path) => {
    const res = await call(method, path.replace(':id', randomUUID())).set(asCustomer(randomUUID()));
    expect(res.status).toBe(404);
  });

  test.each(endpoints.filter(([, path]) => path !== ''))('%s %s answers 400 validation_failed for an id that is not a uuid', async (method, path) => {
    const res = await call(method, path.replace(':id', 'not-a-uuid')).set(asCustomer(randomUUID()));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { path: string[] }) => e.path.join('.'))).toContain('id');
  });
});
