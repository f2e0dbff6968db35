/**
 * Every checkout list that answers a plain array is paged with `?page&limit` (limit 1..200,
 * default 50): categories (public and admin), vouchers, KOL codes, account returns, vendor
 * returns. The answer stays an array; a bad page or limit is a 400.
 */
import { randomUUID } from 'node:crypto';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { addStore } from './catalog/test-fixtures';
import { seedOrder } from './returns/test-fixtures';
import { signedAs } from './wishlist/test-fixtures';
import { useTestCheckout } from '../test/checkout';

const t = useTestCheckout();
const http = () => request(t.checkout.url);
const admin = signedAs('admin', randomUUID());
const anonymous = signedHeaders(null);

/** GET `path` page by page with `limit` up to the first empty page, answering the ids of every page (each must be an array). */
async function walk(path: string, headers: Record<string, string>, limit: number): Promise<string[][]> {
  const result: string[][] = [];
  for (let page = 1; page <= 100 && result[result.length - 1]?.length !== 0; page += 1) {
    const separator = path.includes('?') ? '&' : '?';
    const res = await http().get(`${path}${separator}page=${page}&limit=${limit}`).set(headers).expect(200);
    expect(Array.isArray(res.body)).toBe(true);
    result.push((res.body as { id: string }[]).map((row) => row.id));
  }
  return result;
}

/** Pages of `limit` hold the `total` rows once each, in the list's order, then nothing. */
function expectPaged(pages: string[][], everything: string[], limit: number) {
  const full = Math.floor(everything.length / limit);
  pages.slice(0, full).forEach((page) => expect(page).toHaveLength(limit));
  expect(pages.flat()).toEqual(everything);
  expect(pages[pages.length - 1]).toEqual([]);
}

async function expectBadPaging(path: string, headers: Record<string, string>) {
  for (const query of ['limit=0', 'limit=201', 'limit=abc', 'page=0', 'page=-1', 'page=1.5', 'limit=99999999999999999999']) {
    const separator = path.includes('?') ? '&' : '?';
    const res = await http().get(`${path}${separator}${query}`).set(headers);
    expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status: 400, code: 'validation_failed' });
  }
}

describe('categories', () => {
  test('GET /catalog/categories and /admin/categories: pages by name, default 50, bounded', async () => {
    const names = Array.from({ length: 55 }, (_, i) => `Paging ${String(i).padStart(2, '0')}`);
    for (const name of names) await t.checkout.prisma.category.create({ data: { name, slug: name.toLowerCase().replace(' ', '-') } });
    const all = (await t.checkout.prisma.category.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }] })).map((c) => c.id);

    const byDefault = await http().get('/api/v1/catalog/categories').set(anonymous).expect(200);
    expect((byDefault.body as unknown[]).length).toBe(50);
    expectPaged(await walk('/api/v1/catalog/categories', anonymous, 20), all, 20);
    expectPaged(await walk('/api/v1/admin/categories', admin, 25), all, 25);
    await expectBadPaging('/api/v1/catalog/categories', anonymous);
    await expectBadPaging('/api/v1/admin/categories', admin);
  });
});

describe('vouchers and KOL codes', () => {
  test('GET /admin/vouchers: pages newest first', async () => {
    for (let i = 0; i < 7; i += 1) {
      await t.checkout.prisma.voucher.create({
        data: { code: `PAGE${i}${randomUUID().slice(0, 4).toUpperCase()}`, tier: 'platform', discountType: 'fixed', discountValue: '1', createdAt: new Date(Date.UTC(2026, 0, 1 + i)) },
      });
    }
    const all = (await t.checkout.prisma.voucher.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] })).map((v) => v.id);
    expectPaged(await walk('/api/v1/admin/vouchers', admin, 3), all, 3);
    await expectBadPaging('/api/v1/admin/vouchers', admin);
  });

  test('GET /admin/kol-codes: pages newest first', async () => {
    const category = await t.checkout.prisma.category.create({ data: { name: `KOL paging ${randomUUID()}`, slug: `kol-paging-${randomUUID()}` } });
    for (let i = 0; i < 5; i += 1) {
      await t.checkout.prisma.kolCode.create({
        data: { code: `KOLPAGE${i}${randomUUID().slice(0, 4).toUpperCase()}`, discountType: 'percentage', discountValue: '5', categoryId: category.id, createdAt: new Date(Date.UTC(2026, 1, 1 + i)) },
      });
    }
    const all = (await t.checkout.prisma.kolCode.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] })).map((k) => k.id);
    expectPaged(await walk('/api/v1/admin/kol-codes', admin, 2), all, 2);
    await expectBadPaging('/api/v1/admin/kol-codes', admin);
  });
});

describe('returns', () => {
  test('GET /account/returns and /vendor/returns: pages newest first; the vendor status filter still applies', async () => {
    const store = await addStore(t);
    const customerId = randomUUID();
    const order = await seedOrder(t.checkout.prisma, { customerId, lines: [{ storeId: store.storeId }] });
    const subOrder = await t.checkout.prisma.subOrder.findFirstOrThrow({ where: { orderId: order.orderId } });
    for (let i = 0; i < 5; i += 1) {
      await t.checkout.prisma.returnRequest.create({
        data: {
          orderId: order.orderId,
          subOrderId: subOrder.id,
          customerId,
          storeId: store.storeId,
          reason: 'wrong_item',
          ...(i % 2 === 0 ? { status: 'requested' } : { status: 'rejected', rejectionReason: 'not ours', vendorReviewedAt: new Date() }),
          createdAt: new Date(Date.UTC(2026, 2, 1 + i)),
        },
      });
    }
    const newestFirst = (await t.checkout.prisma.returnRequest.findMany({ where: { customerId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] })).map((r) => r.id);

    const customer = signedAs('customer', customerId);
    expectPaged(await walk('/api/v1/account/returns', customer, 2), newestFirst, 2);
    await expectBadPaging('/api/v1/account/returns', customer);

    const owner = signedAs('vendor', store.ownerUserId);
    expectPaged(await walk('/api/v1/vendor/returns', owner, 2), newestFirst, 2);
    const requested = (await t.checkout.prisma.returnRequest.findMany({ where: { customerId, status: 'requested' }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] })).map((r) => r.id);
    expectPaged(await walk('/api/v1/vendor/returns?status=requested', owner, 2), requested, 2);
    await expectBadPaging('/api/v1/vendor/returns', owner);
  });
});
