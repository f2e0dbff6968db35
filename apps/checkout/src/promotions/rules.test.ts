import { Prisma } from '../generated/prisma/client';
import {
  discountDefinitionProblem,
  discountOn,
  roundToCents,
  usabilityRejection,
  voucherDefinitionProblem,
  voucherDiscount,
  voucherRejection,
  type VoucherTerms,
  type VoucherUse,
} from './rules';

const d = (value: string | number) => new Prisma.Decimal(value);
const NOW = new Date('2026-03-01T12:00:00.000Z');
const STORE = '11111111-1111-4111-8111-111111111111';
const OTHER_STORE = '22222222-2222-4222-8222-222222222222';

function voucher(overrides: Partial<VoucherTerms> = {}): VoucherTerms {
  return {
    tier: 'platform',
    storeId: null,
    discountType: 'percentage',
    discountValue: d(10),
    minOrderAmount: d(0),
    maxUses: null,
    usedCount: 0,
    startsAt: null,
    endsAt: null,
    isActive: true,
    ...overrides,
  };
}

function use(overrides: Partial<VoucherUse> = {}): VoucherUse {
  return { tier: 'platform', storeIds: [STORE], subtotal: d(100), now: NOW, ...overrides };
}

describe('roundToCents', () => {
  test.each([
    ['1.005', '1.01'],
    ['1.004', '1.00'],
    ['2.675', '2.68'],
    ['0.125', '0.13'],
    ['10', '10.00'],
  ])('%s → %s (half-up)', (input, expected) => {
    expect(roundToCents(d(input)).toFixed(2)).toBe(expected);
  });
});

describe('discountOn', () => {
  test('a percentage of the base, rounded half-up to cents', () => {
    expect(discountOn(d('33.33'), 'percentage', d(15)).toFixed(2)).toBe('5.00'); // 4.9995
    expect(discountOn(d('10.05'), 'percentage', d(10)).toFixed(2)).toBe('1.01'); // 1.005
    expect(discountOn(d('10.04'), 'percentage', d(10)).toFixed(2)).toBe('1.00'); // 1.004
  });

  test('100 percent takes the whole base', () => {
    expect(discountOn(d('59.90'), 'percentage', d(100)).toFixed(2)).toBe('59.90');
  });

  test('a fixed amount as it is while the base covers it', () => {
    expect(discountOn(d(50), 'fixed', d('12.50')).toFixed(2)).toBe('12.50');
  });

  test('a fixed amount is clamped to the base', () => {
    expect(discountOn(d('8.40'), 'fixed', d(20)).toFixed(2)).toBe('8.40');
  });

  test('nothing off an empty base', () => {
    expect(discountOn(d(0), 'fixed', d(5)).toFixed(2)).toBe('0.00');
    expect(discountOn(d(0), 'percentage', d(50)).toFixed(2)).toBe('0.00');
  });
});

describe('voucherDiscount', () => {
  test('follows the voucher type and is clamped to the subtotal', () => {
    expect(voucherDiscount(voucher({ discountType: 'percentage', discountValue: d(25) }), d('80.02')).toFixed(2)).toBe('20.01'); // 20.005
    expect(voucherDiscount(voucher({ discountType: 'fixed', discountValue: d(30) }), d('19.99')).toFixed(2)).toBe('19.99');
  });
});

describe('usabilityRejection', () => {
  test('a usable voucher passes', () => {
    expect(usabilityRejection(voucher(), NOW)).toBeNull();
  });

  test('inactive', () => {
    expect(usabilityRejection(voucher({ isActive: false }), NOW)).toBe('voucher_inactive');
  });

  test('the window opens at startsAt (inclusive)', () => {
    expect(usabilityRejection(voucher({ startsAt: new Date(NOW.getTime() + 1) }), NOW)).toBe('voucher_not_started');
    expect(usabilityRejection(voucher({ startsAt: NOW }), NOW)).toBeNull();
  });

  test('the window closes at endsAt (exclusive)', () => {
    expect(usabilityRejection(voucher({ endsAt: NOW }), NOW)).toBe('voucher_expired');
    expect(usabilityRejection(voucher({ endsAt: new Date(NOW.getTime() + 1) }), NOW)).toBeNull();
  });

  test('used up at max uses; unlimited without one', () => {
    expect(usabilityRejection(voucher({ maxUses: 3, usedCount: 3 }), NOW)).toBe('voucher_exhausted');
    expect(usabilityRejection(voucher({ maxUses: 3, usedCount: 2 }), NOW)).toBeNull();
    expect(usabilityRejection(voucher({ maxUses: null, usedCount: 1_000_000 }), NOW)).toBeNull();
  });
});

describe('voucherRejection', () => {
  test('a voucher that passes every check', () => {
    expect(voucherRejection(voucher(), use())).toBeNull();
  });

  test('the tier the client asserts must be the voucher tier; an unasserted tier is not checked', () => {
    expect(voucherRejection(voucher(), use({ tier: 'store' }))).toBe('voucher_tier_mismatch');
    expect(voucherRejection(voucher(), use({ tier: 'PLATFORM' }))).toBe('voucher_tier_mismatch');
    expect(voucherRejection(voucher(), use({ tier: null }))).toBeNull();
  });

  test('a store voucher applies only to a cart of its own store', () => {
    const storeVoucher = voucher({ tier: 'store', storeId: STORE });
    expect(voucherRejection(storeVoucher, use({ tier: 'store', storeIds: [STORE] }))).toBeNull();
    expect(voucherRejection(storeVoucher, use({ tier: 'store', storeIds: [OTHER_STORE] }))).toBe('voucher_store_scope');
    expect(voucherRejection(storeVoucher, use({ tier: 'store', storeIds: [STORE, OTHER_STORE] }))).toBe('voucher_store_scope');
    expect(voucherRejection(storeVoucher, use({ tier: 'store', storeIds: [] }))).toBe('voucher_store_scope');
  });

  test('a platform voucher applies to any store, or none named', () => {
    expect(voucherRejection(voucher(), use({ storeIds: [OTHER_STORE] }))).toBeNull();
    expect(voucherRejection(voucher(), use({ storeIds: [] }))).toBeNull();
  });

  test('the subtotal must reach the minimum order amount (equal is enough)', () => {
    expect(voucherRejection(voucher({ minOrderAmount: d('100.00') }), use({ subtotal: d('99.99') }))).toBe('voucher_min_order');
    expect(voucherRejection(voucher({ minOrderAmount: d('100.00') }), use({ subtotal: d('100.00') }))).toBeNull();
  });

  test('reports the first failed check: active, window, uses, tier, scope, minimum', () => {
    const everythingWrong = voucher({
      isActive: false,
      endsAt: NOW,
      maxUses: 1,
      usedCount: 1,
      tier: 'store',
      storeId: OTHER_STORE,
      minOrderAmount: d(1000),
    });
    const wrongUse = use({ tier: 'platform', storeIds: [STORE], subtotal: d(1) });
    expect(voucherRejection(everythingWrong, wrongUse)).toBe('voucher_inactive');
    expect(voucherRejection({ ...everythingWrong, isActive: true }, wrongUse)).toBe('voucher_expired');
    expect(voucherRejection({ ...everythingWrong, isActive: true, endsAt: null }, wrongUse)).toBe('voucher_exhausted');
    expect(voucherRejection({ ...everythingWrong, isActive: true, endsAt: null, maxUses: null }, wrongUse)).toBe('voucher_tier_mismatch');
    expect(voucherRejection({ ...everythingWrong, isActive: true, endsAt: null, maxUses: null }, { ...wrongUse, tier: 'store' })).toBe(
      'voucher_store_scope',
    );
    expect(
      voucherRejection({ ...everythingWrong, isActive: true, endsAt: null, maxUses: null, storeId: STORE }, { ...wrongUse, tier: 'store' }),
    ).toBe('voucher_min_order');
  });
});

describe('discountDefinitionProblem', () => {
  test('a positive fixed amount and a percentage up to 100 are fine', () => {
    expect(discountDefinitionProblem('fixed', d('0.01'))).toBeNull();
    expect(discountDefinitionProblem('fixed', d(5000))).toBeNull();
    expect(discountDefinitionProblem('percentage', d(100))).toBeNull();
  });

  test('zero is refused', () => {
    expect(discountDefinitionProblem('fixed', d(0))?.code).toBe('invalid_discount_value');
    expect(discountDefinitionProblem('percentage', d(0))?.code).toBe('invalid_discount_value');
  });

  test('a percentage over 100 is refused', () => {
    expect(discountDefinitionProblem('percentage', d('100.01'))?.code).toBe('percentage_over_100');
  });
});

describe('voucherDefinitionProblem', () => {
  test('a consistent platform and store voucher', () => {
    expect(voucherDefinitionProblem(voucher())).toBeNull();
    expect(voucherDefinitionProblem(voucher({ tier: 'store', storeId: STORE }))).toBeNull();
  });

  test('checks the discount first', () => {
    expect(voucherDefinitionProblem(voucher({ discountValue: d(101), tier: 'store' }))?.code).toBe('percentage_over_100');
  });

  test('a store voucher needs a store; a platform voucher has none', () => {
    expect(voucherDefinitionProblem(voucher({ tier: 'store', storeId: null }))?.code).toBe('store_id_required');
    expect(voucherDefinitionProblem(voucher({ tier: 'platform', storeId: STORE }))?.code).toBe('store_id_not_allowed');
  });

  test('the window must end after it starts', () => {
    expect(voucherDefinitionProblem(voucher({ startsAt: NOW, endsAt: NOW }))?.code).toBe('invalid_window');
    expect(voucherDefinitionProblem(voucher({ startsAt: NOW, endsAt: new Date(NOW.getTime() - 1) }))?.code).toBe('invalid_window');
    expect(voucherDefinitionProblem(voucher({ startsAt: NOW, endsAt: new Date(NOW.getTime() + 1) }))).toBeNull();
    expect(voucherDefinitionProblem(voucher({ startsAt: null, endsAt: NOW }))).toBeNull();
  });

  test('max uses may not fall below the uses counted', () => {
    expect(voucherDefinitionProblem(voucher({ maxUses: 4, usedCount: 5 }))?.code).toBe('max_uses_below_used');
    expect(voucherDefinitionProblem(voucher({ maxUses: 5, usedCount: 5 }))).toBeNull();
  });
});
