import { randomUUID } from 'node:crypto';
import type { Subscription } from '@nats-io/transport-node';
import { serveRpc } from '@pasar/bus';
import {
  checkoutProductsMissingDimensions,
  vendorShippingMethod,
  vendorShippingMethodDeleted,
  vendorShippingMethodUpserted,
} from '@pasar/contracts';
import request from 'supertest';
import { z } from 'zod';
import { givenStore, outboxEvents, startTestVendor, type TestStore, type TestVendor } from '../../test/vendor';

const BASE = '/api/v1/vendor/shipping-methods';
let t: TestVendor;

/** checkout's side of the activation check, served on the peer bus. */
const checkout = {
  missing: new Map<string, { id: string; name: string }[]>(),
  asked: [] as string[],
  subscription: undefined as Subscription | undefined,
  answer() {
    this.subscription = serveRpc(t.peer.bus, checkoutProductsMissingDimensions, async ({ storeId }) => {
      this.asked.push(storeId);
      return { products: this.missing.get(storeId) ?? [] };
    });
  },
  async stopAnswering() {
    this.subscription?.unsubscribe();
    await t.peer.bus.nc.flush();
  },
};

beforeAll(async () => {
  t = await startTestVendor();
  checkout.answer();
});
afterAll(async () => {
  await t?.stop();
});

const http = () => request(t.vendor.url);

function sampleMethod(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Standard', provider: 'carrier_a', type: 'weight', rate_config: { base_rate: '5.00', per_kg: '2.50' }, ...overrides };
}

async function addMethod(store: TestStore, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await http().post(BASE).set(store.headers()).send(sampleMethod(overrides)).expect(201);
  const match = /^\/api\/v1\/vendor\/shipping-methods\/([0-9a-f-]{36})$/.exec(res.headers.location ?? '');
  if (!match) throw new Error(`unexpected Location ${res.headers.location}`);
  return match[1];
}

async function methodsOf(store: TestStore) {
  const res = await http().get(BASE).set(store.headers()).expect(200);
  return z.array(vendorShippingMethod).parse(res.body);
}

const isActive = async (id: string) => (await t.vendor.prisma.shippingMethod.findUniqueOrThrow({ where: { id } })).isActive;
const upsertsOf = async (id: string) => (await outboxEvents(t, vendorShippingMethodUpserted)).filter((e) => e.id === id);

describe('GET /vendor/shipping-methods', () => {
  test('answers the spec resource in snake_case, oldest first, only the own store', async () => {
    const store = await givenStore(t);
    expect(await methodsOf(store)).toEqual([]);
    const first = await addMethod(store, { name: 'First', rate_config: { rate: '8.00', note: { nested: [1, 'two'] } }, type: 'flat' });
    const second = await addMethod(store, { name: 'Second', provider: 'carrier_b', estimated_days_min: 1, estimated_days_max: 3 });
    await addMethod(await givenStore(t), { name: 'Not mine' });

    const list = await methodsOf(store);
    expect(list.map((m) => m.id)).toEqual([first, second]);
    expect(list[0]).toEqual({
      id: first,
      store_id: store.storeId,
      name: 'First',
      provider: 'carrier_a',
      type: 'flat',
      rate_config: { rate: '8.00', note: { nested: [1, 'two'] } },
      estimated_days_min: null,
      estimated_days_max: null,
      is_active: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(list[1]).toMatchObject({ provider: 'carrier_b', type: 'weight', estimated_days_min: 1, estimated_days_max: 3 });
  });
});

describe('POST /vendor/shipping-methods', () => {
  test('answers 201 with a Location and an empty body; the method starts inactive and checkout hears of it', async () => {
    const store = await givenStore(t);
    const res = await http().post(BASE).set(store.headers()).send(sampleMethod({ rate_config: { anything: 'goes' } })).expect(201);
    expect(res.text).toBe('');
    const [created] = await methodsOf(store);
    expect(res.headers.location).toBe(`${BASE}/${created.id}`);
    expect(created).toMatchObject({ is_active: false, rate_config: { anything: 'goes' } });
    expect(await upsertsOf(created.id)).toEqual([
      {
        id: created.id,
        storeId: store.storeId,
        name: 'Standard',
        provider: 'carrier_a',
        type: 'weight',
        rateConfig: { anything: 'goes' },
        estimatedDaysMin: null,
        estimatedDaysMax: null,
        isActive: false,
        updatedAt: expect.any(String),
      },
    ]);
  });

  test.each([
    ['a missing name', { name: undefined }, 'name'],
    ['a provider the spec does not list', { provider: 'other' }, 'provider'],
    ['an unknown type', { type: 'volume' }, 'type'],
    ['a rate_config that is not an object', { rate_config: ['5.00'] }, 'rate_config'],
    ['a rate_config that is a string', { rate_config: 'flat 5' }, 'rate_config'],
    ['a rate_config over 16 KiB of JSON', { rate_config: { rate: '5.00', note: 'x'.repeat(16 * 1024) } }, 'rate_config'],
    ['a rate_config nested 6 levels deep', { rate_config: { a: { b: { c: { d: { e: { f: 1 } } } } } } }, 'rate_config'],
    ['estimated_days_min above estimated_days_max', { estimated_days_min: 5, estimated_days_max: 2 }, 'estimated_days_min'],
    ['negative estimated days', { estimated_days_max: -1 }, 'estimated_days_max'],
    ['a field the contract does not know', { is_active: true }, ''],
  ])('answers 400 validation_failed for %s and writes nothing', async (_case, overrides, path) => {
    const store = await givenStore(t);
    const res = await http().post(BASE).set(store.headers()).send(sampleMethod(overrides)).expect(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
    if (path) expect(res.body.errors.map((e: { path: string[] }) => e.path.join('.'))).toContain(path);
    expect(await methodsOf(store)).toEqual([]);
  });

  test('answers 415 for a body that is not JSON', async () => {
    const store = await givenStore(t);
    await http().post(BASE).set(store.headers()).set('Content-Type', 'text/plain').send('name=x').expect(415);
  });
});

describe('PUT /vendor/shipping-methods/{id}', () => {
  test('answers 204 and replaces the fields, keeping is_active; checkout hears of it', async () => {
    const store = await givenStore(t);
    const id = await addMethod(store, { estimated_days_min: 1, estimated_days_max: 2 });
    await t.vendor.prisma.shippingMethod.update({ where: { id }, data: { isActive: true } });
    const res = await http()
      .put(`${BASE}/${id}`)
      .set(store.headers())
      .send(sampleMethod({ name: 'Express', provider: 'carrier_b', type: 'dimension', rate_config: { base_rate: '3.00', per_cm3: '0.01' } }))
      .expect(204);
    expect(res.text).toBe('');
    const [method] = await methodsOf(store);
    expect(method).toMatchObject({ id, name: 'Express', provider: 'carrier_b', type: 'dimension', rate_config: { base_rate: '3.00', per_cm3: '0.01' }, estimated_days_min: null, is_active: true });
    expect((await upsertsOf(id)).map((e) => [e.name, e.isActive])).toEqual([['Standard', false], ['Express', true]]);
  });

  test('answers 404 for an unknown id and 400 for a bad body, changing nothing', async () => {
    const store = await givenStore(t);
    const id = await addMethod(store);
    await http().put(`${BASE}/${randomUUID()}`).set(store.headers()).send(sampleMethod()).expect(404);
    const res = await http().put(`${BASE}/${id}`).set(store.headers()).send({ name: 'Only a name' }).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect((await methodsOf(store))[0].name).toBe('Standard');
  });

  test('answers 400 for an oversized rate_config (a huge one makes an event NATS refuses), keeping the old one', async () => {
    const store = await givenStore(t);
    const id = await addMethod(store);
    const huge = { base_rate: '5.00', per_kg: '2.50', blob: 'x'.repeat(64 * 1024) };
    const res = await http().put(`${BASE}/${id}`).set(store.headers()).send(sampleMethod({ rate_config: huge })).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect((await methodsOf(store))[0].rate_config).toEqual({ base_rate: '5.00', per_kg: '2.50' });
  });

  test('accepts a rate_config at the bounds: 5 levels deep and just under 16 KiB', async () => {
    const store = await givenStore(t);
    const id = await addMethod(store);
    const deep = { a: { b: { c: { d: { e: 1 } } } }, note: 'x'.repeat(16 * 1024 - 60) };
    await http().put(`${BASE}/${id}`).set(store.headers()).send(sampleMethod({ rate_config: deep })).expect(204);
    expect((await methodsOf(store))[0].rate_config).toEqual(deep);
  });
});

describe('DELETE /vendor/shipping-methods/{id}', () => {
  test('answers 204, removes it and publishes vendor.shipping_method.deleted; a second delete is 404', async () => {
    const store = await givenStore(t);
    const kept = await addMethod(store, { name: 'Kept' });
    const id = await addMethod(store);
    const res = await http().delete(`${BASE}/${id}`).set(store.headers()).expect(204);
    expect(res.text).toBe('');
    expect((await methodsOf(store)).map((m) => m.id)).toEqual([kept]);
    const deleted = (await outboxEvents(t, vendorShippingMethodDeleted)).filter((e) => e.id === id);
    expect(deleted).toEqual([{ id, storeId: store.storeId, deletedAt: expect.any(String) }]);
    await http().delete(`${BASE}/${id}`).set(store.headers()).expect(404);
  });
});

describe('POST /vendor/shipping-methods/{id}/activate', () => {
  test('activates when checkout reports no product lacking weight or dimensions', async () => {
    const store = await givenStore(t);
    const id = await addMethod(store);
    const res = await http().post(`${BASE}/${id}/activate`).set(store.headers()).send({ active: true }).expect(200);
    expect(res.body).toEqual({ success: true, error: null, blockedProducts: [] });
    expect(checkout.asked).toContain(store.storeId);
    expect(await isActive(id)).toBe(true);
    expect((await upsertsOf(id)).at(-1)).toMatchObject({ isActive: true });
  });

  test('is refused in the body with the blocked products while any lacks weight or dimensions', async () => {
    const store = await givenStore(t);
    const blockedProducts = [
      { id: randomUUID(), name: 'Batik Scarf' },
      { id: randomUUID(), name: 'Songket' },
    ];
    checkout.missing.set(store.storeId, blockedProducts);
    const id = await addMethod(store, { provider: 'carrier_b' });
    const res = await http().post(`${BASE}/${id}/activate`).set(store.headers()).send({ active: true }).expect(200);
    expect(res.body).toEqual({ success: false, error: 'products lack weight or dimensions', blockedProducts });
    expect(await isActive(id)).toBe(false);
    expect(await upsertsOf(id)).toHaveLength(1);
  });

  test('deactivation always succeeds, even with blocked products', async () => {
    const store = await givenStore(t);
    const id = await addMethod(store);
    await t.vendor.prisma.shippingMethod.update({ where: { id }, data: { isActive: true } });
    checkout.missing.set(store.storeId, [{ id: randomUUID(), name: 'No weight' }]);
    const res = await http().post(`${BASE}/${id}/activate`).set(store.headers()).send({ active: false }).expect(200);
    expect(res.body).toEqual({ success: true, error: null, blockedProducts: [] });
    expect(await isActive(id)).toBe(false);
    expect((await upsertsOf(id)).at(-1)).toMatchObject({ isActive: false });
  });

  test('answers 400 for a body without a boolean active', async () => {
    const store = await givenStore(t);
    const id = await addMethod(store);
    await http().post(`${BASE}/${id}/activate`).set(store.headers()).send({ active: 'yes' }).expect(400);
    await http().post(`${BASE}/${id}/activate`).set(store.headers()).send({}).expect(400);
    await http().post(`${BASE}/${randomUUID()}/activate`).set(store.headers()).send({ active: true }).expect(404);
  });
});

describe('PATCH /vendor/shipping-methods/{id}/toggle-active', () => {
  test('answers the new value, on and off', async () => {
    const store = await givenStore(t);
    const id = await addMethod(store);
    expect((await http().patch(`${BASE}/${id}/toggle-active`).set(store.headers()).expect(200)).body).toBe(true);
    expect(await isActive(id)).toBe(true);
    expect((await http().patch(`${BASE}/${id}/toggle-active`).set(store.headers()).expect(200)).body).toBe(false);
    expect(await isActive(id)).toBe(false);
    expect((await upsertsOf(id)).map((e) => e.isActive)).toEqual([false, true, false]);
  });

  test('switching on is an activation: 409 activation_blocked while products lack weight or dimensions', async () => {
    const store = await givenStore(t);
    checkout.missing.set(store.storeId, [{ id: randomUUID(), name: 'No weight' }]);
    const id = await addMethod(store);
    const res = await http().patch(`${BASE}/${id}/toggle-active`).set(store.headers()).expect(409);
    expect(res.body).toMatchObject({ code: 'activation_blocked' });
    expect(await isActive(id)).toBe(false);
  });
});

describe('when checkout does not answer', () => {
  let store: TestStore;
  let inactive: string;
  let active: string;

  beforeAll(async () => {
    store = await givenStore(t);
    inactive = await addMethod(store);
    active = await addMethod(store);
    await t.vendor.prisma.shippingMethod.update({ where: { id: active }, data: { isActive: true } });
    await checkout.stopAnswering();
  });
  afterAll(() => checkout.answer());

  test('activation answers 503 and is never a silent yes', async () => {
    const res = await http().post(`${BASE}/${inactive}/activate`).set(store.headers()).send({ active: true }).expect(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 503, code: 'dependency_unavailable' });
    await http().patch(`${BASE}/${inactive}/toggle-active`).set(store.headers()).expect(503);
    expect(await isActive(inactive)).toBe(false);
    expect(await upsertsOf(inactive)).toHaveLength(1);
  });

  test('deactivation does not need checkout', async () => {
    expect((await http().patch(`${BASE}/${active}/toggle-active`).set(store.headers()).expect(200)).body).toBe(false);
    await t.vendor.prisma.shippingMethod.update({ where: { id: active }, data: { isActive: true } });
    const res = await http().post(`${BASE}/${active}/activate`).set(store.headers()).send({ active: false }).expect(200);
    expect(res.body.success).toBe(true);
    expect(await isActive(active)).toBe(false);
  });
});
