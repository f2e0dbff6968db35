import { Prisma } from '../generated/prisma/client';
import { availableStock, cardPrice, chooseVariant, effectiveUnitPrice, escapeLikePattern, nextFreeSlug, pageCount, planVariants, publicStorageUrl, slugify, stockEditRefusal, stockVersion } from './rules';

const d = (value: string) => new Prisma.Decimal(value);

describe('slugify', () => {
  test.each([
    ['Kopi Tenom 500g', 'kopi-tenom-500g'],
    ['  Crème Brûlée -- Set!  ', 'creme-brulee-set'],
    ['Home & Kitchen', 'home-kitchen'],
    ['ÆØ 100%', '100'],
  ])('%j → %j', (name, slug) => {
    expect(slugify(name, 'product')).toBe(slug);
  });

  test('falls back when nothing of the name survives', () => {
    expect(slugify('科技', 'product')).toBe('product');
    expect(slugify('!!!', 'category')).toBe('category');
  });

  test('keeps at most 80 characters and never ends with a dash', () => {
    const slug = slugify(`${'a'.repeat(79)} b`, 'product');
    expect(slug).toBe('a'.repeat(79));
    expect(slugify('x'.repeat(200), 'product')).toHaveLength(80);
  });
});

describe('nextFreeSlug', () => {
  test('the base when free, else the first free -2, -3, ...', () => {
    expect(nextFreeSlug('shoe', new Set())).toBe('shoe');
    expect(nextFreeSlug('shoe', new Set(['shoe']))).toBe('shoe-2');
    expect(nextFreeSlug('shoe', new Set(['shoe', 'shoe-2', 'shoe-4']))).toBe('shoe-3');
    expect(nextFreeSlug('shoe', new Set(['shoe-2']))).toBe('shoe');
  });
});

describe('prices', () => {
  test('a variant override wins over the base price; none (or null) leaves the base price', () => {
    expect(effectiveUnitPrice(d('10.00'), d('7.50')).toFixed(2)).toBe('7.50');
    expect(effectiveUnitPrice(d('10.00'), d('0.00')).toFixed(2)).toBe('0.00');
    expect(effectiveUnitPrice(d('10.00'), null).toFixed(2)).toBe('10.00');
    expect(effectiveUnitPrice(d('10.00'), undefined).toFixed(2)).toBe('10.00');
  });

  test('a card shows the base price without variants, else the lowest effective variant price', () => {
    expect(cardPrice(d('10.00'), []).toFixed(2)).toBe('10.00');
    expect(cardPrice(d('10.00'), [{ priceOverride: d('12.00') }, { priceOverride: d('11.00') }]).toFixed(2)).toBe('11.00');
    expect(cardPrice(d('10.00'), [{ priceOverride: d('12.00') }, { priceOverride: null }]).toFixed(2)).toBe('10.00');
    expect(cardPrice(d('10.00'), [{ priceOverride: d('9.99') }, { priceOverride: null }]).toFixed(2)).toBe('9.99');
  });
});

describe('availableStock', () => {
  test("the product's stock without variants, else the sum of the variants'", () => {
    expect(availableStock(7, [])).toBe(7);
    expect(availableStock(7, [{ stock: 2 }, { stock: 0 }, { stock: 5 }])).toBe(7);
    expect(availableStock(100, [{ stock: 1 }])).toBe(1);
  });
});

describe('publicStorageUrl', () => {
  test('joins the base and the path with one slash; no path is null', () => {
    expect(publicStorageUrl('http://cdn.test/storage', 'products/a.jpg')).toBe('http://cdn.test/storage/products/a.jpg');
    expect(publicStorageUrl('http://cdn.test/storage/', '/products/a.jpg')).toBe('http://cdn.test/storage/products/a.jpg');
    expect(publicStorageUrl('http://cdn.test/storage', null)).toBeNull();
    expect(publicStorageUrl('http://cdn.test/storage', '')).toBeNull();
  });
});

describe('planVariants', () => {
  test('keeps requested ids that exist, creates entries without id, removes the rest, reports foreign ids', () => {
    const plan = planVariants(['a', 'b', 'c'], [{ id: 'b', name: 'B' }, { name: 'New' }, { id: 'x', name: 'X' }]);
    expect(plan.keep).toEqual([{ id: 'b', name: 'B' }]);
    expect(plan.create).toEqual([{ name: 'New' }]);
    expect(plan.remove).toEqual(['a', 'c']);
    expect(plan.unknown).toEqual(['x']);
  });

  test('an empty request removes every current variant; on create every id is unknown', () => {
    expect(planVariants(['a'], []).remove).toEqual(['a']);
    expect(planVariants([], [{ id: 'a' }]).unknown).toEqual(['a']);
  });
});

describe('escapeLikePattern', () => {
  test('escapes the LIKE wildcards and the escape character', () => {
    expect(escapeLikePattern('50%_off\\')).toBe('50\\%\\_off\\\\');
    expect(escapeLikePattern('plain')).toBe('plain');
  });
});

describe('pageCount', () => {
  test('rounds up; none for no items', () => {
    expect(pageCount(0, 20)).toBe(0);
    expect(pageCount(1, 20)).toBe(1);
    expect(pageCount(20, 20)).toBe(1);
    expect(pageCount(21, 20)).toBe(2);
  });
});

describe('chooseVariant', () => {
  test('a product without variants is bought as itself; with variants, as one of its own', () => {
    expect(chooseVariant([], undefined)).toEqual({ ok: true, variantId: null });
    expect(chooseVariant([], null)).toEqual({ ok: true, variantId: null });
    expect(chooseVariant(['v1', 'v2'], 'v2')).toEqual({ ok: true, variantId: 'v2' });
  });

  test('refuses a missing variant for a product with variants, and a variant that is not the product’s', () => {
    expect(chooseVariant(['v1'], undefined)).toEqual({ ok: false, code: 'variant_required' });
    expect(chooseVariant(['v1'], 'v9')).toEqual({ ok: false, code: 'unknown_variant' });
    expect(chooseVariant([], 'v1')).toEqual({ ok: false, code: 'unknown_variant' });
  });
});

describe('stockVersion and stockEditRefusal', () => {
  const v1 = '00000000-0000-4000-8000-000000000001';
  const v2 = '00000000-0000-4000-8000-000000000002';
  const current = { stock: 0, variants: [{ id: v1, stock: 5 }, { id: v2, stock: 3 }] };

  test('the version changes with any stock value and not with the variants order', () => {
    expect(stockVersion(current)).toBe(stockVersion({ stock: 0, variants: [...current.variants].reverse() }));
    expect(stockVersion(current)).not.toBe(stockVersion({ stock: 0, variants: [{ id: v1, stock: 4 }, { id: v2, stock: 3 }] }));
    expect(stockVersion({ stock: 7, variants: [] })).not.toBe(stockVersion({ stock: 6, variants: [] }));
  });

  test('with the current version any edit goes; with an old one it is stock_changed', () => {
    const edit = { stock: 0, variants: [{ id: v1, stock: 50 }] };
    expect(stockEditRefusal(current, { ...edit, stockVersion: stockVersion(current) })).toBeNull();
    expect(stockEditRefusal(current, { ...edit, stockVersion: stockVersion({ stock: 0, variants: [{ id: v1, stock: 6 }, { id: v2, stock: 3 }] }) })).toBe('stock_changed');
  });

  test('without a version, only an edit leaving existing stock values as they are goes', () => {
    expect(stockEditRefusal(current, { stock: 0, variants: [{ id: v1, stock: 5 }, { stock: 99 }] })).toBeNull();
    expect(stockEditRefusal(current, { stock: 0, variants: [{ id: v1, stock: 6 }] })).toBe('stock_version_required');
    expect(stockEditRefusal({ stock: 4, variants: [] }, { stock: 5, variants: [] })).toBe('stock_version_required');
  });
});
