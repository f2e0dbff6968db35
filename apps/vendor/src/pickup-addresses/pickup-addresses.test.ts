import { randomUUID } from 'node:crypto';
import { vendorPickupAddress } from '@pasar/contracts';
import request from 'supertest';
import { z } from 'zod';
import { givenStore, startTestVendor, type TestStore, type TestVendor } from '../../test/vendor';

const BASE = '/api/v1/vendor/pickup-addresses';
let t: TestVendor;

beforeAll(async () => {
  t = await startTestVendor();
});
afterAll(async () => {
  await t?.stop();
});

const http = () => request(t.vendor.url);

function sampleAddress(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { label: 'Warehouse', address_line_1: '1 Jalan Gudang', postcode: '40000', state: 'Selangor', ...overrides };
}

async function addAddress(store: TestStore, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await http().post(BASE).set(store.headers()).send(sampleAddress(overrides)).expect(201);
  const match = /^\/api\/v1\/vendor\/pickup-addresses\/([0-9a-f-]{36})$/.exec(res.headers.location ?? '');
  if (!match) throw new Error(`unexpected Location ${res.headers.location}`);
  return match[1];
}

async function addressesOf(store: TestStore) {
  const res = await http().get(BASE).set(store.headers()).expect(200);
  return z.array(vendorPickupAddress).parse(res.body);
}

async function defaultsOf(store: TestStore): Promise<string[]> {
  const rows = await t.vendor.prisma.pickupAddress.findMany({ where: { storeId: store.storeId, isDefault: true } });
  return rows.map((row) => row.id);
}

describe('GET /vendor/pickup-addresses', () => {
  test('answers the spec resource in snake_case: the default first, then oldest first, only the own store', async () => {
    const store = await givenStore(t);
    expect(await addressesOf(store)).toEqual([]);
    const first = await addAddress(store, { label: 'First' });
    const second = await addAddress(store, { label: 'Second', is_default: true });
    const third = await addAddress(store, { label: 'Third' });
    await addAddress(await givenStore(t), { label: 'Not mine' });

    const list = await addressesOf(store);
    expect(list.map((a) => a.id)).toEqual([second, first, third]);
    expect(list[1]).toEqual({
      id: first,
      store_id: store.storeId,
      label: 'First',
      address_line_1: '1 Jalan Gudang',
      postcode: '40000',
      state: 'Selangor',
      is_default: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });
});

describe('POST /vendor/pickup-addresses', () => {
  test('answers 201 with a Location and an empty body; not the default unless asked', async () => {
    const store = await givenStore(t);
    const res = await http().post(BASE).set(store.headers()).send(sampleAddress({ label: '  Shop  ' })).expect(201);
    expect(res.text).toBe('');
    const [created] = await addressesOf(store);
    expect(res.headers.location).toBe(`${BASE}/${created.id}`);
    expect(created).toMatchObject({ label: 'Shop', is_default: false });
  });

  test("is_default=true unsets the store's other default, leaving other stores alone", async () => {
    const store = await givenStore(t);
    const neighbour = await givenStore(t);
    const theirs = await addAddress(neighbour, { is_default: true });
    const first = await addAddress(store, { is_default: true });
    expect(await defaultsOf(store)).toEqual([first]);
    const second = await addAddress(store, { is_default: true });
    expect(await defaultsOf(store)).toEqual([second]);
    expect(await defaultsOf(neighbour)).toEqual([theirs]);
  });

  test('keeps a single default when many defaults are created at once', async () => {
    const store = await givenStore(t);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => http().post(BASE).set(store.headers()).send(sampleAddress({ label: `A${i}`, is_default: true }))));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(await defaultsOf(store)).toHaveLength(1);
  });

  test.each([
    ['a missing postcode', { postcode: undefined }, 'postcode'],
    ['a blank label', { label: '  ' }, 'label'],
    ['a non-boolean is_default', { is_default: 'yes' }, 'is_default'],
    ['a field the contract does not know', { city: 'Shah Alam' }, ''],
  ])('answers 400 validation_failed for %s and writes nothing', async (_case, overrides, path) => {
    const store = await givenStore(t);
    const res = await http().post(BASE).set(store.headers()).send(sampleAddress(overrides)).expect(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
    if (path) expect(res.body.errors.map((e: { path: string[] }) => e.path.join('.'))).toContain(path);
    expect(await addressesOf(store)).toEqual([]);
  });
});

describe('PUT /vendor/pickup-addresses/{id}', () => {
  test('answers 204 and replaces the fields; absent is_default keeps it', async () => {
    const store = await givenStore(t);
    const id = await addAddress(store, { is_default: true });
    const changes = { label: 'Shop', address_line_1: '2 Jalan Kedai', postcode: '50000', state: 'Kuala Lumpur' };
    const res = await http().put(`${BASE}/${id}`).set(store.headers()).send(changes).expect(204);
    expect(res.text).toBe('');
    expect((await addressesOf(store))[0]).toMatchObject({ id, ...changes, is_default: true });
  });

  test('is_default=true moves the default to it; false unsets it', async () => {
    const store = await givenStore(t);
    const first = await addAddress(store, { is_default: true });
    const second = await addAddress(store);
    await http().put(`${BASE}/${second}`).set(store.headers()).send(sampleAddress({ is_default: true })).expect(204);
    expect(await defaultsOf(store)).toEqual([second]);
    await http().put(`${BASE}/${first}`).set(store.headers()).send(sampleAddress({ is_default: false })).expect(204);
    expect(await defaultsOf(store)).toEqual([second]);
    await http().put(`${BASE}/${second}`).set(store.headers()).send(sampleAddress({ is_default: false })).expect(204);
    expect(await defaultsOf(store)).toEqual([]);
  });

  test('answers 404 for an unknown id and 400 for a bad body, changing nothing', async () => {
    const store = await givenStore(t);
    const id = await addAddress(store);
    await http().put(`${BASE}/${randomUUID()}`).set(store.headers()).send(sampleAddress()).expect(404);
    await http().put(`${BASE}/${id}`).set(store.headers()).send({ label: 'Only' }).expect(400);
    expect((await addressesOf(store))[0].label).toBe('Warehouse');
  });
});

describe('DELETE /vendor/pickup-addresses/{id}', () => {
  test('answers 204 and removes it; a second delete is 404', async () => {
    const store = await givenStore(t);
    const kept = await addAddress(store);
    const id = await addAddress(store, { is_default: true });
    const res = await http().delete(`${BASE}/${id}`).set(store.headers()).expect(204);
    expect(res.text).toBe('');
    expect((await addressesOf(store)).map((a) => a.id)).toEqual([kept]);
    await http().delete(`${BASE}/${id}`).set(store.headers()).expect(404);
  });
});
