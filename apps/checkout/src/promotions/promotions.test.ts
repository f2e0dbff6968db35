import { randomUUID } from 'node:crypto';
import { adminKolCode, adminVoucher, validateKolCodeResponse, validateVoucherResponse } from '@pasar/contracts';
import { isUniqueViolation } from '@pasar/db';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { z } from 'zod';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import { as, seedCategory, seedKolCode, seedVoucher } from '../orders/test-fixtures';

let t: TestCheckout;
let categoryId: string;

beforeAll(async () => {
  t = await startTestCheckout();
  categoryId = await seedCategory(t.checkout.prisma);
});
afterAll(async () => {
  await t?.stop();
});

const http = () => request(t.checkout.url);
const admin = () => as('admin');
const uniqueCode = (prefix = 'V') => `${prefix}${randomUUID().slice(0, 8)}`;

function voucherBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { code: uniqueCode(), tier: 'platform', discountType: 'percentage', discountValue: 10, minOrderAmount: '50.00', maxUses: 100, ...overrides };
}

async function createVoucher(overrides: Record<string, unknown> = {}) {
  const res = await http().post('/api/v1/admin/vouchers').set(admin()).send(voucherBody(overrides)).expect(201);
  return adminVoucher.parse(res.body);
}

describe('POST /admin/vouchers', () => {
  test('answers 201, the Location and the voucher in the summary fields plus the admin fields', async () => {
    const storeId = randomUUID();
    const res = await http()
      .post('/api/v1/admin/vouchers')
      .set(admin())
      .send(voucherBody({ code: ' store-deal_1 ', tier: 'store', storeId, discountType: 'fixed', discountValue: '12.5', startsAt: '2026-01-01T00:00:00+08:00', endsAt: '2027-01-01T00:00:00Z', isActive: false }))
      .expect(201);
    const voucher = adminVoucher.parse(res.body);
    expect(res.headers.location).toBe(`/api/v1/admin/vouchers/${voucher.id}`);
    expect(res.body).toEqual({
      id: voucher.id,
      code: 'STORE-DEAL_1',
      tier: 'store',
      discount_type: 'fixed',
      discount_value: '12.50',
      min_order_amount: '50.00',
      store_id: storeId,
      max_uses: 100,
      used_count: 0,
      starts_at: '2025-12-31T16:00:00.000Z',
      ends_at: '2027-01-01T00:00:00.000Z',
      is_active: false,
      created_at: expect.any(String),
    });
  });

  test('is active by default; maxUses null is unlimited', async () => {
    const voucher = await createVoucher({ maxUses: null });
    expect(voucher).toMatchObject({ is_active: true, max_uses: null, starts_at: null, ends_at: null, store_id: null });
  });

  test('answers 409 duplicate_code for a code taken (codes are upper-cased)', async () => {
    const code = uniqueCode('DUP');
    await createVoucher({ code });
    const res = await http().post('/api/v1/admin/vouchers').set(admin()).send(voucherBody({ code: code.toLowerCase() })).expect(409);
    expect(res.body.code).toBe('duplicate_code');
    expect(await t.checkout.prisma.voucher.count({ where: { code: code.toUpperCase() } })).toBe(1);
  });

  test.each([
    ['a store voucher without a store', { tier: 'store' }, 'store_id_required'],
    ['a platform voucher with a store', { storeId: randomUUID() }, 'store_id_not_allowed'],
    ['a percentage over 100', { discountValue: '100.01' }, 'percentage_over_100'],
    ['a zero discount', { discountValue: 0 }, 'invalid_discount_value'],
    ['a window that ends before it starts', { startsAt: '2026-05-01T00:00:00Z', endsAt: '2026-04-01T00:00:00Z' }, 'invalid_window'],
    ['a missing field', { minOrderAmount: undefined }, 'validation_failed'],
    ['three decimals', { discountValue: '1.234' }, 'validation_failed'],
    ['an unknown tier', { tier: 'vip' }, 'validation_failed'],
    ['a code with spaces inside', { code: 'TWO WORDS' }, 'validation_failed'],
    ['max uses of zero', { maxUses: 0 }, 'validation_failed'],
    ['an unknown field', { owner: 'me' }, 'validation_failed'],
  ])('answers 400 for %s (%s) and writes nothing', async (_case, overrides, code) => {
    const body = voucherBody(overrides);
    const res = await http().post('/api/v1/admin/vouchers').set(admin()).send(body).expect(400);
    expect(res.body.code).toBe(code);
    expect(await t.checkout.prisma.voucher.count({ where: { code: String(body.code).trim().toUpperCase() } })).toBe(0);
  });
});

describe('GET /admin/vouchers', () => {
  test('lists every voucher, newest first, in the admin shape', async () => {
    const older = await createVoucher();
    const newer = await createVoucher();
    const res = await http().get('/api/v1/admin/vouchers').set(admin()).expect(200);
    const list = z.array(adminVoucher).parse(res.body);
    const ids = list.map((v) => v.id);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
  });
});

describe('PATCH /admin/vouchers/{id}', () => {
  test('changes the given fields only and answers the voucher', async () => {
    const voucher = await createVoucher({ maxUses: 5 });
    const res = await http()
      .patch(`/api/v1/admin/vouchers/${voucher.id}`)
      .set(admin())
      .send({ discountValue: 15, isActive: false, endsAt: '2030-01-01T00:00:00Z' })
      .expect(200);
    expect(adminVoucher.parse(res.body)).toEqual({ ...voucher, discount_value: '15.00', is_active: false, ends_at: '2030-01-01T00:00:00.000Z' });
  });

  test('null clears the window ends', async () => {
    const voucher = await createVoucher({ startsAt: '2026-01-01T00:00:00Z' });
    const res = await http().patch(`/api/v1/admin/vouchers/${voucher.id}`).set(admin()).send({ startsAt: null }).expect(200);
    expect(res.body.starts_at).toBeNull();
  });

  test('the result must be consistent: tier store needs a store, in the same request', async () => {
    const voucher = await createVoucher();
    const refused = await http().patch(`/api/v1/admin/vouchers/${voucher.id}`).set(admin()).send({ tier: 'store' }).expect(400);
    expect(refused.body.code).toBe('store_id_required');
    const storeId = randomUUID();
    const res = await http().patch(`/api/v1/admin/vouchers/${voucher.id}`).set(admin()).send({ tier: 'store', storeId }).expect(200);
    expect(res.body).toMatchObject({ tier: 'store', store_id: storeId });
  });

  test('answers 400 max_uses_below_used when the limit would fall below the uses counted', async () => {
    const voucher = await createVoucher({ maxUses: 10 });
    await t.checkout.prisma.voucher.update({ where: { id: voucher.id }, data: { usedCount: 4 } });
    const res = await http().patch(`/api/v1/admin/vouchers/${voucher.id}`).set(admin()).send({ maxUses: 3 }).expect(400);
    expect(res.body.code).toBe('max_uses_below_used');
    await http().patch(`/api/v1/admin/vouchers/${voucher.id}`).set(admin()).send({ maxUses: 4 }).expect(200);
  });

  test('answers 409 duplicate_code for another voucher’s code', async () => {
    const taken = await createVoucher();
    const voucher = await createVoucher();
    const res = await http().patch(`/api/v1/admin/vouchers/${voucher.id}`).set(admin()).send({ code: taken.code }).expect(409);
    expect(res.body.code).toBe('duplicate_code');
  });

  test('answers 404 for an unknown voucher and 400 for an empty change', async () => {
    await http().patch(`/api/v1/admin/vouchers/${randomUUID()}`).set(admin()).send({ isActive: true }).expect(404);
    const voucher = await createVoucher();
    const res = await http().patch(`/api/v1/admin/vouchers/${voucher.id}`).set(admin()).send({}).expect(400);
    expect(res.body.code).toBe('validation_failed');
  });
});

describe('KOL codes (admin)', () => {
  const kolBody = (overrides: Record<string, unknown> = {}) => ({ code: uniqueCode('KOL'), discountType: 'percentage', discountValue: 15, categoryId, ...overrides });

  test('POST answers 201, the Location and the KOL code; GET lists it first', async () => {
    const res = await http().post('/api/v1/admin/kol-codes').set(admin()).send(kolBody({ code: 'aisyah-15' })).expect(201);
    const kol = adminKolCode.parse(res.body);
    expect(res.headers.location).toBe(`/api/v1/admin/kol-codes/${kol.id}`);
    expect(res.body).toEqual({
      id: kol.id,
      code: 'AISYAH-15',
      discount_type: 'percentage',
      discount_value: '15.00',
      category_id: categoryId,
      is_active: true,
      used_count: 0,
      created_at: expect.any(String),
    });
    const list = z.array(adminKolCode).parse((await http().get('/api/v1/admin/kol-codes').set(admin()).expect(200)).body);
    expect(list[0].id).toBe(kol.id);
  });

  test('answers 409 duplicate_code, 400 category_not_found, 400 percentage_over_100', async () => {
    const code = uniqueCode('KOL');
    await http().post('/api/v1/admin/kol-codes').set(admin()).send(kolBody({ code })).expect(201);
    expect((await http().post('/api/v1/admin/kol-codes').set(admin()).send(kolBody({ code })).expect(409)).body.code).toBe('duplicate_code');
    expect((await http().post('/api/v1/admin/kol-codes').set(admin()).send(kolBody({ categoryId: randomUUID() })).expect(400)).body.code).toBe(
      'category_not_found',
    );
    expect((await http().post('/api/v1/admin/kol-codes').set(admin()).send(kolBody({ discountValue: 101 })).expect(400)).body.code).toBe(
      'percentage_over_100',
    );
  });

  test('PATCH changes fields; a percentage over 100 after the change, an unknown category or id are refused', async () => {
    const created = adminKolCode.parse((await http().post('/api/v1/admin/kol-codes').set(admin()).send(kolBody({ discountType: 'fixed', discountValue: 150 })).expect(201)).body);
    const url = `/api/v1/admin/kol-codes/${created.id}`;
    expect((await http().patch(url).set(admin()).send({ discountType: 'percentage' }).expect(400)).body.code).toBe('percentage_over_100');
    expect((await http().patch(url).set(admin()).send({ categoryId: randomUUID() }).expect(400)).body.code).toBe('category_not_found');
    const res = await http().patch(url).set(admin()).send({ discountValue: 20, isActive: false }).expect(200);
    expect(res.body).toMatchObject({ discount_type: 'fixed', discount_value: '20.00', is_active: false });
    await http().patch(`/api/v1/admin/kol-codes/${randomUUID()}`).set(admin()).send({ isActive: true }).expect(404);
  });
});

describe('POST /checkout/validate-voucher', () => {
  const validate = (body: Record<string, unknown>, headers = as('customer')) => http().post('/api/v1/checkout/validate-voucher').set(headers).send(body);

  test('answers the Voucher summary and the discount, rounded half-up to cents', async () => {
    const voucher = await seedVoucher(t.checkout.prisma, { discountType: 'percentage', discountValue: '12.5', minOrderAmount: '10.00' });
    const res = await validate({ voucherId: voucher.id, tier: 'platform', cartSubtotal: 80.04 }).expect(200);
    expect(validateVoucherResponse.parse(res.body)).toEqual({
      voucher: {
        id: voucher.id,
        code: voucher.code,
        tier: 'platform',
        discount_type: 'percentage',
        discount_value: '12.50',
        min_order_amount: '10.00',
      },
      discount: '10.01', // 10.005
    });
  });

  test('a fixed discount is clamped to the cart subtotal', async () => {
    const voucher = await seedVoucher(t.checkout.prisma, { discountType: 'fixed', discountValue: '30.00' });
    const res = await validate({ voucherId: voucher.id, tier: 'platform', cartSubtotal: 19.9 }).expect(200);
    expect(res.body.discount).toBe('19.90');
  });

  test('a store voucher passes for its own store', async () => {
    const storeId = randomUUID();
    const voucher = await seedVoucher(t.checkout.prisma, { tier: 'store', storeId });
    await validate({ voucherId: voucher.id, tier: 'store', cartSubtotal: 100, storeId }).expect(200);
  });

  const past = new Date(Date.now() - 86_400_000);
  const future = new Date(Date.now() + 86_400_000);
  test.each([
    ['voucher_inactive', { isActive: false }, {}],
    ['voucher_not_started', { startsAt: future }, {}],
    ['voucher_expired', { endsAt: past }, {}],
    ['voucher_exhausted', { maxUses: 2, usedCount: 2 }, {}],
    ['voucher_min_order', { minOrderAmount: '100.00' }, { cartSubtotal: 99.99 }],
    ['voucher_tier_mismatch', {}, { tier: 'store' }],
    ['voucher_store_scope', { tier: 'store' as const, storeId: randomUUID() }, { tier: 'store', storeId: randomUUID() }],
    ['voucher_store_scope', { tier: 'store' as const, storeId: randomUUID() }, { tier: 'store' }],
  ])('answers 400 %s', async (code, fields, request) => {
    const voucher = await seedVoucher(t.checkout.prisma, fields);
    const res = await validate({ voucherId: voucher.id, tier: 'platform', cartSubtotal: 150, ...request }).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code });
  });

  test('answers 404 voucher_not_found for an unknown voucher', async () => {
    const res = await validate({ voucherId: randomUUID(), tier: 'platform', cartSubtotal: 10 }).expect(404);
    expect(res.body.code).toBe('voucher_not_found');
  });

  test.each([
    ['a voucherId that is not a uuid', { voucherId: 'x', tier: 'platform', cartSubtotal: 10 }],
    ['a negative subtotal', { voucherId: randomUUID(), tier: 'platform', cartSubtotal: -1 }],
    ['a subtotal as text', { voucherId: randomUUID(), tier: 'platform', cartSubtotal: '10' }],
    ['no tier', { voucherId: randomUUID(), cartSubtotal: 10 }],
  ])('answers 400 validation_failed for %s', async (_case, body) => {
    expect((await validate(body).expect(400)).body.code).toBe('validation_failed');
  });

  test('answers 401 without the gateway signature', async () => {
    await http().post('/api/v1/checkout/validate-voucher').send({ voucherId: randomUUID(), tier: 'platform', cartSubtotal: 1 }).expect(401);
  });
});

describe('POST /checkout/validate-kol-code', () => {
  const validate = (code: unknown) => http().post('/api/v1/checkout/validate-kol-code').set(as('customer')).send({ code });

  test('answers the KOL code summary; the code matches case-insensitively', async () => {
    const code = await seedKolCode(t.checkout.prisma, categoryId, { discountType: 'fixed', discountValue: '7.00' });
    const res = await validate(` ${code.toLowerCase()} `).expect(200);
    const { kolCode } = validateKolCodeResponse.parse(res.body);
    expect(kolCode).toEqual({ id: expect.any(String), code, discount_type: 'fixed', discount_value: '7.00', category_id: categoryId });
  });

  test('answers 404 kol_code_not_found and 400 kol_code_inactive', async () => {
    expect((await validate('NOPE-123').expect(404)).body.code).toBe('kol_code_not_found');
    const inactive = await seedKolCode(t.checkout.prisma, categoryId, { isActive: false });
    expect((await validate(inactive).expect(400)).body.code).toBe('kol_code_inactive');
    expect((await validate('').expect(400)).body.code).toBe('validation_failed');
  });
});

describe('who may call the promotion endpoints', () => {
  const adminEndpoints = [
    ['get', '/api/v1/admin/vouchers'],
    ['post', '/api/v1/admin/vouchers'],
    ['patch', `/api/v1/admin/vouchers/${randomUUID()}`],
    ['get', '/api/v1/admin/kol-codes'],
    ['post', '/api/v1/admin/kol-codes'],
    ['patch', `/api/v1/admin/kol-codes/${randomUUID()}`],
  ] as const;

  test.each(adminEndpoints)('%s %s answers 401 unsigned and 403 for customer and vendor', async (method, url) => {
    // a body only where the method has one (a GET with a body is 400 body_not_allowed)
    const call = (headers: Record<string, string> = {}) => {
      const req = http()[method](url).set(headers);
      return method === 'get' ? req : req.send({});
    };
    expect((await call()).status).toBe(401);
    for (const role of ['customer', 'vendor'] as const) {
      const res = await call(signedHeaders({ role }));
      expect(res.status).toBe(403);
    }
  });

  test('validate-kol-code answers 401 unsigned', async () => {
    await http().post('/api/v1/checkout/validate-kol-code').send({ code: 'X' }).expect(401);
  });
});

describe('isUniqueViolation', () => {
  test('recognises a duplicate key from a model query and from a raw query, and nothing else', async () => {
    const { prisma } = t.checkout;
    const [voucher, other] = [await seedVoucher(prisma), await seedVoucher(prisma)];
    const fromModel = await prisma.voucher.create({ data: { ...voucher, id: randomUUID() } }).catch((err: unknown) => err);
    const fromRaw = await prisma.$executeRaw`UPDATE voucher SET code = ${voucher.code} WHERE id = ${other.id}::uuid`.catch((err: unknown) => err);
    const otherRaw = await prisma.$executeRaw`UPDATE voucher SET max_uses = 0 WHERE id = ${voucher.id}::uuid`.catch((err: unknown) => err);
    expect(isUniqueViolation(fromModel)).toBe(true);
    expect(isUniqueViolation(fromRaw)).toBe(true);
    expect(otherRaw).toBeInstanceOf(Error);
    expect(isUniqueViolation(otherRaw)).toBe(false);
  });
});
