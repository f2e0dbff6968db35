import {
  DEFAULT_TOLERANCES,
  actionAllowed,
  billableGrams,
  centsOf,
  declaredGrams,
  flagsOf,
  foldBills,
  gramsOf,
  kgOf,
  moneyOf,
  statusOf,
  volumetricGrams,
  type ParcelFacts,
} from './rules';

const NOW = new Date('2026-11-27T12:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);

type Bill = { cents: number; grams: number | null };
type Overrides = Partial<Omit<ParcelFacts, 'bills'>> & { bills?: Bill[] };

/** A booked 1.000 kg parcel quoted 10.00, shipped yesterday, billed once as booked (the bills given one by one, folded). */
const parcel = ({ bills = [{ cents: 1000, grams: 1000 }], ...overrides }: Overrides = {}): ParcelFacts => ({
  known: true,
  declaredGrams: 1000,
  volumetricGrams: null,
  expectedCents: 1000,
  shipmentStatus: 'shipped',
  shippedAt: daysAgo(1),
  ...overrides,
  bills: foldBills(bills),
});
const flags = (overrides: Overrides) => flagsOf(parcel(overrides), DEFAULT_TOLERANCES, NOW);

describe('foldBills', () => {
  test.each([
    ['none', [], { count: 0, largestCents: null, heaviestGrams: null }],
    ['one', [{ cents: 725, grams: 800 }], { count: 1, largestCents: 725, heaviestGrams: 800 }],
    ['the largest amount and the heaviest weight, from different bills', [{ cents: 900, grams: 500 }, { cents: 700, grams: 1200 }, { cents: 100, grams: null }], { count: 3, largestCents: 900, heaviestGrams: 1200 }],
    ['no weight on any bill', [{ cents: 1, grams: null }, { cents: 2, grams: null }], { count: 2, largestCents: 2, heaviestGrams: null }],
  ])('%s', (_name, bills: Bill[], fold) => {
    expect(foldBills(bills)).toEqual(fold);
  });
});

describe('flagsOf', () => {
  test('a parcel billed as booked has no flag', () => {
    expect(flags({})).toEqual([]);
  });

  test.each<[string, Overrides, boolean]>([
    ['2.0 kg billed for a 1.0 kg parcel', { bills: [{ cents: 1000, grams: 2000 }] }, true],
    ['0.1 kg over 1.0 kg: within max(0.1 kg, 5 %)', { bills: [{ cents: 1000, grams: 1100 }] }, false],
    ['0.101 kg over 1.0 kg', { bills: [{ cents: 1000, grams: 1101 }] }, true],
    ['10 kg parcel, 0.5 kg over: within 5 %', { declaredGrams: 10_000, bills: [{ cents: 1000, grams: 10_500 }] }, false],
    ['10 kg parcel, 0.501 kg over', { declaredGrams: 10_000, bills: [{ cents: 1000, grams: 10_501 }] }, true],
    ['volumetric 3 kg counts: 2.9 kg billed on a 1 kg declared parcel', { volumetricGrams: 3000, bills: [{ cents: 1000, grams: 2900 }] }, false],
    ['volumetric smaller than declared: the declared counts', { volumetricGrams: 500, bills: [{ cents: 1000, grams: 2000 }] }, true],
    ['no expected weight: not judged', { declaredGrams: null, bills: [{ cents: 1000, grams: 9000 }] }, false],
    ['no billed weight: not judged', { bills: [{ cents: 1000, grams: null }] }, false],
    ['billed lighter than booked', { bills: [{ cents: 1000, grams: 500 }] }, false],
  ])('weight_over: %s → %s', (_name, overrides, flagged) => {
    expect(flags(overrides).includes('weight_over')).toBe(flagged);
  });

  test.each<[string, Overrides, boolean]>([
    ['10.50 for 10.00 quoted: 0.50 is within', { bills: [{ cents: 1050, grams: 1000 }] }, false],
    ['10.51 for 10.00', { bills: [{ cents: 1051, grams: 1000 }] }, true],
    ['102.00 for 100.00: 2 % is within', { expectedCents: 10_000, bills: [{ cents: 10_200, grams: 1000 }] }, false],
    ['102.01 for 100.00', { expectedCents: 10_000, bills: [{ cents: 10_201, grams: 1000 }] }, true],
    ['no quote: not judged', { expectedCents: null, bills: [{ cents: 99_999, grams: 1000 }] }, false],
    ['billed less than quoted', { bills: [{ cents: 100, grams: 1000 }] }, false],
    ['two bills each as quoted: not cost_over (duplicate_bill says it)', { bills: [{ cents: 1000, grams: 1000 }, { cents: 1000, grams: 1000 }] }, false],
  ])('cost_over: %s → %s', (_name, overrides, flagged) => {
    expect(flags(overrides).includes('cost_over')).toBe(flagged);
  });

  test.each<[string, Overrides, boolean]>([
    ['billed once', {}, false],
    ['billed twice (two files or two dates)', { bills: [{ cents: 1000, grams: 1000 }, { cents: 1000, grams: 1000 }] }, true],
    ['billed three times, unknown parcel too', { known: false, bills: [1, 2, 3].map(() => ({ cents: 1, grams: null })) }, true],
    ['never billed', { bills: [] }, false],
  ])('duplicate_bill: %s → %s', (_name, overrides, flagged) => {
    expect(flags(overrides).includes('duplicate_bill')).toBe(flagged);
  });

  test.each<[string, Overrides, boolean]>([
    ['a bill for a tracking id no shipment has', { known: false, declaredGrams: null, expectedCents: null, shipmentStatus: null, shippedAt: null }, true],
    ['a bill for a known parcel', {}, false],
    ['a known parcel never billed', { bills: [] }, false],
  ])('unknown_parcel: %s → %s', (_name, overrides, flagged) => {
    expect(flags(overrides).includes('unknown_parcel')).toBe(flagged);
  });

  test.each<[string, Overrides, boolean]>([
    ['a cancelled shipment billed', { shipmentStatus: 'cancelled' }, true],
    ['a delivered shipment billed', { shipmentStatus: 'delivered' }, false],
    ['a cancelled shipment not billed', { shipmentStatus: 'cancelled', bills: [] }, false],
  ])('billed_cancelled: %s → %s', (_name, overrides, flagged) => {
    expect(flags(overrides).includes('billed_cancelled')).toBe(flagged);
  });

  test.each<[string, Overrides, boolean]>([
    ['shipped 46 days ago, never billed', { bills: [], shippedAt: daysAgo(46) }, true],
    ['shipped 45 days ago exactly: not yet', { bills: [], shippedAt: daysAgo(45) }, false],
    ['shipped 10 days ago, never billed', { bills: [], shippedAt: daysAgo(10) }, false],
    ['shipped 90 days ago and billed', { shippedAt: daysAgo(90) }, false],
    ['cancelled 90 days ago, never billed', { bills: [], shippedAt: daysAgo(90), shipmentStatus: 'cancelled' }, false],
    ['never shipped', { bills: [], shippedAt: null }, false],
  ])('unbilled: %s → %s', (_name, overrides, flagged) => {
    expect(flags(overrides).includes('unbilled')).toBe(flagged);
  });

  test('tolerances come from config: zero tolerance flags a gram or a cent over', () => {
    const strict = { ...DEFAULT_TOLERANCES, weightGrams: 0, weightPercent: 0, costCents: 0, costPercent: 0, unbilledAfterMs: 86_400_000 };
    expect(flagsOf(parcel({ bills: [{ cents: 1001, grams: 1001 }] }), strict, NOW)).toEqual(['weight_over', 'cost_over']);
    expect(flagsOf(parcel({ bills: [], shippedAt: daysAgo(2) }), strict, NOW)).toEqual(['unbilled']);
  });

  test('several flags at once, in a fixed order', () => {
    expect(flags({ shipmentStatus: 'cancelled', bills: [{ cents: 5000, grams: 3000 }, { cents: 5000, grams: 3000 }] })).toEqual([
      'weight_over',
      'cost_over',
      'duplicate_bill',
      'billed_cancelled',
    ]);
  });
});

describe('weights', () => {
  test('billable weight is the larger of declared and volumetric', () => {
    expect(billableGrams({ declaredGrams: 1000, volumetricGrams: 2500 })).toBe(2500);
    expect(billableGrams({ declaredGrams: 1000, volumetricGrams: null })).toBe(1000);
    expect(billableGrams({ declaredGrams: null, volumetricGrams: 700 })).toBe(700);
    expect(billableGrams({ declaredGrams: null, volumetricGrams: null })).toBeNull();
  });

  test('volumetric: Σ quantity × L × W × H / divisor, rounded up to the gram; unknown when a parcel has no dimensions', () => {
    const box = { lengthCm: '30', widthCm: '20', heightCm: '10' }; // 6000 cm³
    expect(volumetricGrams([{ quantity: 1, dimensionsCm: box }], 6000)).toBe(1000);
    expect(volumetricGrams([{ quantity: 1, dimensionsCm: box }], 5000)).toBe(1200);
    expect(volumetricGrams([{ quantity: 2, dimensionsCm: box }, { quantity: 1, dimensionsCm: { lengthCm: '10', widthCm: '10', heightCm: '10.5' } }], 6000)).toBe(2175);
    expect(volumetricGrams([{ quantity: 1, dimensionsCm: { lengthCm: '1', widthCm: '1', heightCm: '1' } }], 7000)).toBe(1);
    expect(volumetricGrams([{ quantity: 1, dimensionsCm: box }, { quantity: 1, dimensionsCm: null }], 6000)).toBeNull();
    expect(volumetricGrams([{ quantity: 1, dimensionsCm: undefined }], 6000)).toBeNull();
    expect(volumetricGrams([], 6000)).toBeNull();
  });

  test('declared: Σ quantity × weight; unknown when an item has none', () => {
    expect(declaredGrams([{ quantity: 2, weightKg: '0.300' }, { quantity: 1, weightKg: '1.5' }])).toBe(2100);
    expect(declaredGrams([{ quantity: 2, weightKg: '0.300' }, { quantity: 1, weightKg: null }])).toBeNull();
    expect(declaredGrams([])).toBeNull();
  });
});

describe('money and weight strings', () => {
  test.each([
    ['12.50', 1250],
    ['12.5', 1250],
    ['12', 1200],
    ['0.07', 7],
    ['-0.30', -30],
    ['123456789.99', 12_345_678_999],
  ])('centsOf(%s) = %d and back', (text, cents) => {
    expect(centsOf(text)).toBe(cents);
    expect(centsOf(moneyOf(cents))).toBe(cents);
  });

  test('moneyOf writes two decimals and the sign', () => {
    expect([0, 7, 1250, -30, -1250].map(moneyOf)).toEqual(['0.00', '0.07', '12.50', '-0.30', '-12.50']);
  });

  test('sums in cents are exact where floats are not', () => {
    const amounts = Array.from({ length: 1000 }, () => '0.10');
    expect(moneyOf(amounts.reduce((sum, a) => sum + centsOf(a), 0))).toBe('100.00');
  });

  test('grams and kg', () => {
    expect([gramsOf('1'), gramsOf('1.25'), gramsOf('0.001'), gramsOf('12.345')]).toEqual([1000, 1250, 1, 12_345]);
    expect([kgOf(1000), kgOf(1250), kgOf(1), kgOf(0)]).toEqual(['1.000', '1.250', '0.001', '0.000']);
  });
});

describe('status and actions', () => {
  test.each<[Parameters<typeof statusOf>[0], Parameters<typeof statusOf>[1], string]>([
    [[], null, 'ok'],
    [['weight_over'], null, 'open'],
    [['weight_over'], 'dispute', 'disputed'],
    [[], 'dispute', 'disputed'],
    [['weight_over'], 'resolve', 'resolved'],
  ])('flags %j, last action %s → %s', (f, last, status) => {
    expect(statusOf(f, last)).toBe(status);
  });

  test('a resolved line takes no more actions; the others do', () => {
    expect(actionAllowed('resolved')).toEqual({ ok: false, code: 'already_resolved', detail: expect.any(String) });
    for (const status of ['ok', 'open', 'disputed'] as const) expect(actionAllowed(status)).toEqual({ ok: true });
  });
});
