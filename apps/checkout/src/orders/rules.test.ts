import { Prisma } from '../generated/prisma/client';
import {
  allocate,
  canonicalJson,
  chooseShipping,
  familyOrderNotes,
  linesInLockOrder,
  planOrder,
  priceChanges,
  quoteShipping,
  requestHash,
  pooledRandomBytes,
  shortOrderId,
  type PlanInput,
  type ShippableLine,
  type ShippingCandidate,
} from './rules';

const d = (value: string | number) => new Prisma.Decimal(value);
const money = (values: readonly Prisma.Decimal[]) => values.map((v) => v.toFixed(2));

function line(overrides: Partial<ShippableLine> = {}): ShippableLine {
  return { quantity: 1, weightKg: d('0.5'), lengthCm: d(10), widthCm: d(20), heightCm: d(5), ...overrides };
}

describe('linesInLockOrder', () => {
  test('product rows by product id first, then variant rows by variant id', () => {
    const sorted = linesInLockOrder([
      { productId: 'b', variantId: 'y', quantity: 1 },
      { productId: 'c', variantId: null, quantity: 1 },
      { productId: 'a', variantId: 'z', quantity: 1 },
      { productId: 'b', variantId: 'x', quantity: 1 },
      { productId: 'b', quantity: 1 },
    ]);
    expect(sorted.map((l) => `${l.productId}/${l.variantId}`)).toEqual(['b/null', 'c/null', 'b/x', 'b/y', 'a/z']);
  });

  test('merges repeated (product, variant) lines by adding quantities', () => {
    const merged = linesInLockOrder([
      { productId: 'a', variantId: 'v', quantity: 2 },
      { productId: 'a', variantId: 'v', quantity: 3 },
      { productId: 'a', quantity: 1 },
      { productId: 'a', variantId: null, quantity: 4 },
    ]);
    expect(merged).toEqual([
      { productId: 'a', variantId: null, quantity: 5 },
      { productId: 'a', variantId: 'v', quantity: 5 },
    ]);
  });
});

describe('quoteShipping', () => {
  test('flat: the rate, whatever the cart', () => {
    const quote = quoteShipping({ type: 'flat', rateConfig: { rate: 8 } }, [line({ quantity: 3 }), line()]);
    expect(quote).toEqual({ ok: true, fee: d(8) });
  });

  test('flat: a numeric string works too', () => {
    const quote = quoteShipping({ type: 'flat', rateConfig: { rate: '6.50' } }, [line()]);
    expect(quote.ok && quote.fee.toFixed(2)).toBe('6.50');
  });

  test('weight: base_rate + per_kg × the kg of all lines (unit weight × quantity)', () => {
    const quote = quoteShipping({ type: 'weight', rateConfig: { base_rate: 5, per_kg: '2.5' } }, [
      line({ weightKg: d('0.520'), quantity: 2 }),
      line({ weightKg: d('1.250'), quantity: 1 }),
    ]);
    // 5 + 2.5 × (1.04 + 1.25) = 10.725 → 10.73
    expect(quote.ok && quote.fee.toFixed(2)).toBe('10.73');
  });

  test('dimension: base_rate + per_cm3 × the cm³ of all lines, rounded half-up to cents', () => {
    const quote = quoteShipping({ type: 'dimension', rateConfig: { base_rate: '3', per_cm3: 0.001 } }, [
      line({ lengthCm: d(10), widthCm: d(20), heightCm: d(5), quantity: 3 }),
      line({ lengthCm: d('12.5'), widthCm: d(10), heightCm: d(1), quantity: 1 }),
    ]);
    // 3 + 0.001 × (3000 + 125) = 6.125 → 6.13
    expect(quote.ok && quote.fee.toFixed(2)).toBe('6.13');
  });

  test.each([
    ['flat without rate', { type: 'flat', rateConfig: {} }],
    ['flat with a negative rate', { type: 'flat', rateConfig: { rate: -1 } }],
    ['flat with a word for a rate', { type: 'flat', rateConfig: { rate: 'free' } }],
    ['weight without per_kg', { type: 'weight', rateConfig: { base_rate: 5 } }],
    ['weight without base_rate', { type: 'weight', rateConfig: { per_kg: 5 } }],
    ['dimension without per_cm3', { type: 'dimension', rateConfig: { base_rate: 5 } }],
    ['a rate_config that is not an object', { type: 'flat', rateConfig: 7 }],
    ['a rate_config that is an array', { type: 'flat', rateConfig: [7] }],
    ['a null rate_config', { type: 'flat', rateConfig: null }],
    ['an unknown type', { type: 'distance', rateConfig: { rate: 5 } }],
    ['an infinite rate', { type: 'flat', rateConfig: { rate: Infinity } }],
  ])('no quote for %s', (_case, method) => {
    expect(quoteShipping(method, [line()]).ok).toBe(false);
  });

  test('weight: no quote when a line has no weight', () => {
    expect(quoteShipping({ type: 'weight', rateConfig: { base_rate: 5, per_kg: 1 } }, [line(), line({ weightKg: null })]).ok).toBe(false);
  });

  test('dimension: no quote when a line lacks a dimension', () => {
    expect(quoteShipping({ type: 'dimension', rateConfig: { base_rate: 5, per_cm3: 1 } }, [line({ heightCm: null })]).ok).toBe(false);
  });

  test('zero rates are a free quote, not a missing one', () => {
    const quote = quoteShipping({ type: 'weight', rateConfig: { base_rate: 0, per_kg: 0 } }, [line()]);
    expect(quote.ok && quote.fee.toFixed(2)).toBe('0.00');
  });
});

describe('chooseShipping', () => {
  const flat = (id: string, rate: number, isActive = true): ShippingCandidate => ({ id, type: 'flat', rateConfig: { rate }, isActive });
  const broken = (id: string): ShippingCandidate => ({ id, type: 'weight', rateConfig: {}, isActive: true });

  test('the chosen active method and its fee', () => {
    expect(chooseShipping([flat('m1', 5), flat('m2', 9)], 'm2', [line()])).toEqual({ ok: true, methodId: 'm2', fee: d(9) });
  });

  test('a chosen method that is inactive or not the store’s is refused', () => {
    expect(chooseShipping([flat('m1', 5, false)], 'm1', [line()])).toMatchObject({ ok: false, code: 'shipping_method_unavailable' });
    expect(chooseShipping([flat('m1', 5)], 'elsewhere', [line()])).toMatchObject({ ok: false, code: 'shipping_method_unavailable' });
  });

  test('a chosen method that cannot quote is shipping_unavailable', () => {
    expect(chooseShipping([broken('m1')], 'm1', [line()])).toMatchObject({ ok: false, code: 'shipping_unavailable' });
  });

  test('without a choice: the cheapest active method that quotes', () => {
    const methods = [flat('m1', 9), flat('m2', 4, false), broken('m3'), flat('m4', 6)];
    expect(chooseShipping(methods, null, [line()])).toEqual({ ok: true, methodId: 'm4', fee: d(6) });
  });

  test('a tie goes to the smaller id', () => {
    expect(chooseShipping([flat('m9', 5), flat('m1', 5)], null, [line()])).toEqual({ ok: true, methodId: 'm1', fee: d(5) });
  });

  test('no active method: free shipping without a method', () => {
    expect(chooseShipping([flat('m1', 5, false)], null, [line()])).toEqual({ ok: true, methodId: null, fee: d(0) });
    expect(chooseShipping([], null, [line()])).toEqual({ ok: true, methodId: null, fee: d(0) });
  });

  test('active methods of which none can quote: shipping_unavailable', () => {
    expect(chooseShipping([broken('m1')], null, [line()])).toMatchObject({ ok: false, code: 'shipping_unavailable' });
  });
});

describe('allocate', () => {
  test('in proportion to the weights, adding up exactly', () => {
    expect(money(allocate(d(10), [d(1), d(1), d(1)]))).toEqual(['3.34', '3.33', '3.33']);
    expect(money(allocate(d('0.05'), [d(30), d(10)]))).toEqual(['0.04', '0.01']);
  });

  test('the remaining cents go to the largest remainders', () => {
    // exact shares 1.666..., 3.333...: floors 1.66, 3.33; one cent left goes to 1.666... (remainder .0066 > .0033)
    expect(money(allocate(d(5), [d(1), d(2)]))).toEqual(['1.67', '3.33']);
  });

  test('no share exceeds its weight when the amount is the whole', () => {
    const weights = [d('0.01'), d('99.99'), d('0.03')];
    const shares = allocate(d('100.03'), weights);
    expect(money(shares)).toEqual(['0.01', '99.99', '0.03']);
  });

  test('a single weight takes everything; no weights, nothing', () => {
    expect(money(allocate(d('7.77'), [d(3)]))).toEqual(['7.77']);
    expect(allocate(d(1), [])).toEqual([]);
  });

  test('zero to share gives zeros', () => {
    expect(money(allocate(d(0), [d(5), d(6)]))).toEqual(['0.00', '0.00']);
  });
});

describe('planOrder', () => {
  const STORE_A = 'store-a';
  const STORE_B = 'store-b';
  const FOOD = 'cat-food';
  const BOOKS = 'cat-books';

  function plan(overrides: Partial<PlanInput> = {}) {
    return planOrder({
      lines: [
        { storeId: STORE_A, categoryId: FOOD, lineTotal: d('60.00') },
        { storeId: STORE_A, categoryId: BOOKS, lineTotal: d('40.00') },
      ],
      kolCode: null,
      voucherDiscount: d(0),
      points: 0,
      shippingFees: new Map([[STORE_A, d('5.00')]]),
      ...overrides,
    });
  }

  test('without discounts: subtotal + shipping', () => {
    const result = plan();
    if (!result.ok) throw new Error(result.code);
    expect(result.plan.subtotal.toFixed(2)).toBe('100.00');
    expect(result.plan.discountTotal.toFixed(2)).toBe('0.00');
    expect(result.plan.shippingTotal.toFixed(2)).toBe('5.00');
    expect(result.plan.total.toFixed(2)).toBe('105.00');
    expect(result.plan.subOrders).toHaveLength(1);
    expect(result.plan.subOrders[0].total.toFixed(2)).toBe('105.00');
  });

  test('a KOL percentage discounts only the lines of its category', () => {
    const result = plan({ kolCode: { categoryId: FOOD, discountType: 'percentage', discountValue: d(10) } });
    if (!result.ok) throw new Error(result.code);
    expect(result.plan.kolDiscount.toFixed(2)).toBe('6.00');
    expect(money(result.plan.lineDiscounts)).toEqual(['6.00', '0.00']);
    expect(result.plan.total.toFixed(2)).toBe('99.00');
  });

  test('a fixed KOL discount is clamped to the lines of its category', () => {
    const result = plan({ kolCode: { categoryId: BOOKS, discountType: 'fixed', discountValue: d(50) } });
    if (!result.ok) throw new Error(result.code);
    expect(money(result.plan.lineDiscounts)).toEqual(['0.00', '40.00']);
  });

  test('a KOL code for a category the cart does not hold is refused', () => {
    expect(plan({ kolCode: { categoryId: 'cat-toys', discountType: 'fixed', discountValue: d(1) } })).toMatchObject({
      ok: false,
      code: 'kol_code_not_applicable',
    });
  });

  test('the voucher discount never exceeds what the KOL code left', () => {
    const result = plan({ kolCode: { categoryId: FOOD, discountType: 'percentage', discountValue: d(100) }, voucherDiscount: d(70) });
    if (!result.ok) throw new Error(result.code);
    expect(result.plan.voucherDiscount.toFixed(2)).toBe('40.00');
    expect(result.plan.total.toFixed(2)).toBe('5.00');
  });

  test('points: 100 points = MYR 1.00, counted in discountTotal', () => {
    const result = plan({ points: 1250 });
    if (!result.ok) throw new Error(result.code);
    expect(result.plan.pointsValue.toFixed(2)).toBe('12.50');
    expect(result.plan.discountTotal.toFixed(2)).toBe('12.50');
    expect(result.plan.total.toFixed(2)).toBe('92.50');
  });

  test('points up to exactly 50% of the subtotal; one more is refused', () => {
    expect(plan({ points: 5000 }).ok).toBe(true);
    expect(plan({ points: 5001 })).toMatchObject({ ok: false, code: 'loyalty_points_limit' });
  });

  test('points never pay more than is left after the other discounts', () => {
    const withVoucher = { voucherDiscount: d(80) };
    expect(plan({ ...withVoucher, points: 2000 }).ok).toBe(true);
    expect(plan({ ...withVoucher, points: 2001 })).toMatchObject({ ok: false, code: 'loyalty_points_limit' });
  });

  test('voucher and points are shared over the lines by what each still costs', () => {
    const result = plan({ voucherDiscount: d(10), points: 1000, kolCode: { categoryId: FOOD, discountType: 'fixed', discountValue: d(20) } });
    if (!result.ok) throw new Error(result.code);
    // after KOL: 40 and 40 → the 20.00 of voucher + points split evenly
    expect(money(result.plan.lineDiscounts)).toEqual(['30.00', '10.00']);
    expect(result.plan.discountTotal.toFixed(2)).toBe('40.00');
    expect(result.plan.total.toFixed(2)).toBe('65.00');
  });

  test('one sub-order per store with its own shipping; sub-order totals add up to the order total', () => {
    const result = plan({
      lines: [
        { storeId: STORE_A, categoryId: FOOD, lineTotal: d('33.33') },
        { storeId: STORE_B, categoryId: FOOD, lineTotal: d('66.67') },
        { storeId: STORE_A, categoryId: BOOKS, lineTotal: d('10.00') },
      ],
      voucherDiscount: d('9.99'),
      shippingFees: new Map([
        [STORE_A, d('4.00')],
        [STORE_B, d('7.50')],
      ]),
    });
    if (!result.ok) throw new Error(result.code);
    const { subOrders, total } = result.plan;
    expect(subOrders.map((s) => [s.storeId, s.subtotal.toFixed(2), s.shippingFee.toFixed(2)])).toEqual([
      [STORE_A, '43.33', '4.00'],
      [STORE_B, '66.67', '7.50'],
    ]);
    const sum = subOrders.reduce((acc, s) => acc.add(s.total), d(0));
    expect(sum.toFixed(2)).toBe(total.toFixed(2));
    expect(total.toFixed(2)).toBe('111.51'); // 110.00 - 9.99 + 11.50
    for (const s of subOrders) expect(s.total.equals(s.subtotal.sub(s.discount).add(s.shippingFee))).toBe(true);
  });

  test('a store without a fee ships free', () => {
    const result = plan({ shippingFees: new Map() });
    if (!result.ok) throw new Error(result.code);
    expect(result.plan.shippingTotal.toFixed(2)).toBe('0.00');
  });
});

describe('shortOrderId', () => {
  test('PSR- and 8 base32 characters from 40 random bits', () => {
    expect(shortOrderId(Buffer.from([0, 0, 0, 0, 0]))).toBe('PSR-AAAAAAAA');
    expect(shortOrderId(Buffer.from([255, 255, 255, 255, 255]))).toBe('PSR-77777777');
    expect(shortOrderId(Buffer.from([0x08, 0x42, 0x10, 0x84, 0x21]))).toBe('PSR-BBBBBBBB');
  });

  test('random ids have the form and differ', () => {
    const ids = new Set(Array.from({ length: 200 }, () => shortOrderId()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^PSR-[A-Z2-7]{8}$/);
  });

  test('ids cut from the random pool stay distinct across its refills', () => {
    const ids = new Set(Array.from({ length: 3000 }, () => shortOrderId()));
    expect(ids.size).toBe(3000);
  });
});

describe('pooledRandomBytes', () => {
  test('hands out each pooled byte once: consecutive draws are disjoint slices, a draw larger than the pool works', () => {
    const a = pooledRandomBytes(16);
    const b = pooledRandomBytes(16);
    expect(a).toHaveLength(16);
    expect(a.equals(b)).toBe(false);
    a.fill(0);
    expect(b.some((byte) => byte !== 0)).toBe(true);
    expect(pooledRandomBytes(10_000)).toHaveLength(10_000);
  });
});

describe('requestHash', () => {
  test('canonical JSON ignores key order and undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[1,{"y":2,"z":1}]},"b":1}');
  });

  test('the same body hashes the same whatever the key order', () => {
    expect(requestHash('submit', { a: 1, b: [2] })).toBe(requestHash('submit', { b: [2], a: 1 }));
  });

  test('a body hashes as it always did (request_hash of earlier orders is compared with it)', () => {
    const body = {
      items: [{ quantity: 2, productId: '0b7e6f4c-1a2b-4c3d-8e9f-001122334455', variantId: null }],
      addressId: '6f1d2c3b-4a5e-4f60-8a7b-8c9d0e1f2a3b',
      voucherId: undefined,
      kolCode: 'RAYA',
      loyaltyPoints: 0,
    };
    expect(requestHash('submit', body)).toBe('45bbc9b795fc5e558d74aaeba444bcba2e6d2d61ea56139e824673d5a45328dc');
  });

  test('canonical JSON writes the text the former map/join implementation wrote, for any JSON-like value', () => {
    const former = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map(former).join(',')}]`;
      if (value !== null && typeof value === 'object') {
        const entries = Object.entries(value as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${former(v)}`).join(',')}}`;
      }
      return JSON.stringify(value);
    };
    // eslint-disable-next-line no-sparse-arrays
    const odd: unknown[] = [[], {}, [undefined, 1, undefined], [, 2], { a: undefined }, { z: undefined, a: 1 }, { a: undefined, b: undefined, c: [null] }];
    const leaves: unknown[] = [null, undefined, true, false, 0, -1.5, 1e21, 'x', '', 'é\u2028"\\', 'a"b', new Date(0)];
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const build = (depth: number): unknown => {
      const pick = random();
      if (depth > 3 || pick < 0.4) return leaves[Math.floor(random() * leaves.length)];
      if (pick < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => build(depth + 1));
      const keys = ['b', 'a', 'B', 'é', '10', '9', 'a b', '"'];
      return Object.fromEntries(keys.filter(() => random() < 0.5).map((k) => [k, build(depth + 1)]));
    };
    for (const value of [...odd, ...Array.from({ length: 500 }, () => build(0))]) expect(canonicalJson(value)).toBe(former(value));
  });

  test('another body, or another kind of request, hashes differently', () => {
    expect(requestHash('submit', { a: 1 })).not.toBe(requestHash('submit', { a: 2 }));
    expect(requestHash('submit', { a: 1 })).not.toBe(requestHash('family-submit', { a: 1 }));
  });
});

describe('familyOrderNotes', () => {
  test('records the cart item ids as JSON', () => {
    expect(JSON.parse(familyOrderNotes(['i1', 'i2']))).toEqual({ familyCartItemIds: ['i1', 'i2'] });
  });
});

describe('priceChanges: a B2B order is priced at what its approver approved, or refused', () => {
  const line = (purchaseRequestId: string, productId: string, unitPrice: string, variantId: string | null = null) => ({ purchaseRequestId, productId, variantId, unitPrice });
  const catalog = new Map([
    ['chair/', d('249.90')],
    ['chair/red', d('259.90')],
    ['paper/', d('12.35')],
  ]);
  const current = (productId: string, variantId: string | null) => catalog.get(`${productId}/${variantId ?? ''}`)!;

  test.each([
    ['same price', line('a', 'chair', '249.90'), []],
    ['same amount, other writing', line('a', 'paper', '12.350'), []],
    ['price raised', line('a', 'chair', '239.90'), [{ purchaseRequestId: 'a', approvedPrice: '239.90', currentPrice: '249.90' }]],
    ['price lowered', line('a', 'paper', '13.00'), [{ purchaseRequestId: 'a', approvedPrice: '13.00', currentPrice: '12.35' }]],
    ['a cent', line('a', 'paper', '12.34'), [{ purchaseRequestId: 'a', approvedPrice: '12.34', currentPrice: '12.35' }]],
    ['the variant price counts, not the base price', line('a', 'chair', '249.90', 'red'), [{ purchaseRequestId: 'a', approvedPrice: '249.90', currentPrice: '259.90' }]],
  ])('%s', (_case, l, expected) => {
    expect(priceChanges([l], current)).toEqual(expected);
  });

  test('one entry per changed request, in the lines order, also when two requests share a product', () => {
    expect(priceChanges([line('a', 'chair', '249.90'), line('b', 'chair', '200.00'), line('c', 'paper', '12.35'), line('d', 'paper', '10.00')], current)).toEqual([
      { purchaseRequestId: 'b', approvedPrice: '200.00', currentPrice: '249.90' },
      { purchaseRequestId: 'd', approvedPrice: '10.00', currentPrice: '12.35' },
    ]);
  });
});
