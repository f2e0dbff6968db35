/**
 * The vendor lists that answer a plain array are paged with `?page&limit` (limit 1..200, default
 * 50): shipping methods (oldest first) and pickup addresses (default first, then oldest). The
 * answer stays an array; a bad page or limit is a 400.
 */
import request from 'supertest';
import { givenStore, startTestVendor, type TestStore, type TestVendor } from '../test/vendor';

let t: TestVendor;

beforeAll(async () => {
  t = await startTestVendor();
});
afterAll(async () => {
  await t?.stop();
});

const http = () => request(t.vendor.url);

async function walk(path: string, store: TestStore, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  for (let page = 1; page <= 100 && pages[pages.length - 1]?.length !== 0; page += 1) {
    const res = await http().get(`${path}?page=${page}&limit=${limit}`).set(store.headers()).expect(200);
    expect(Array.isArray(res.body)).toBe(true);
    pages.push((res.body as { id: string }[]).map((row) => row.id));
  }
  return pages;
}

async function expectBadPaging(path: string, store: TestStore) {
  for (const query of ['limit=0', 'limit=201', 'limit=x', 'page=0', 'page=2.5']) {
    const res = await http().get(`${path}?${query}`).set(store.headers());
    expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status: 400, code: 'validation_failed' });
  }
}

test('GET /vendor/shipping-methods: pages of the own store, oldest first, default 50', async () => {
  const store = await givenStore(t);
  const other = await givenStore(t);
  const created = new Date(Date.UTC(2026, 0, 1));
  await t.vendor.prisma.shippingMethod.createMany({
    data: Array.from({ length: 53 }, (_, i) => ({
      storeId: store.storeId,
      name: `Method ${i}`,
      provider: 'carrier_a' as const,
      type: 'flat' as const,
      rateConfig: { rate: 5 },
      createdAt: new Date(created.getTime() + i * 1000),
    })),
  });
  await t.vendor.prisma.shippingMethod.create({ data: { storeId: other.storeId, name: 'Not mine', provider: 'carrier_a', type: 'flat', rateConfig: { rate: 1 } } });
  const all = (await t.vendor.prisma.shippingMethod.findMany({ where: { storeId: store.storeId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map((m) => m.id);

  const byDefault = await http().get('/api/v1/vendor/shipping-methods').set(store.headers()).expect(200);
  expect((byDefault.body as { id: string }[]).map((m) => m.id)).toEqual(all.slice(0, 50));
  const pages = await walk('/api/v1/vendor/shipping-methods', store, 20);
  expect(pages.map((p) => p.length)).toEqual([20, 20, 13, 0]);
  expect(pages.flat()).toEqual(all);
  await expectBadPaging('/api/v1/vendor/shipping-methods', store);
});

test('GET /vendor/pickup-addresses: pages with the default first, then oldest', async () => {
  const store = await givenStore(t);
  const created = new Date(Date.UTC(2026, 0, 1));
  await t.vendor.prisma.pickupAddress.createMany({
    data: Array.from({ length: 7 }, (_, i) => ({
      storeId: store.storeId,
      label: `Gudang ${i}`,
      addressLine1: `${i} Jalan Gudang`,
      postcode: '40000',
      state: 'Selangor',
      isDefault: i === 4,
      createdAt: new Date(created.getTime() + i * 1000),
    })),
  });
  const all = (await t.vendor.prisma.pickupAddress.findMany({ where: { storeId: store.storeId }, orderBy: [{ isDefault: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }] })).map((a) => a.id);

  const pages = await walk('/api/v1/vendor/pickup-addresses', store, 3);
  expect(pages.map((p) => p.length)).toEqual([3, 3, 1, 0]);
  expect(pages.flat()).toEqual(all);
  await expectBadPaging('/api/v1/vendor/pickup-addresses', store);
});
