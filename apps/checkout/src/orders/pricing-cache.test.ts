import { catalogOf } from './place-order';
import { PricingCache, type VersionedAddress, type VersionedCatalogRow } from './pricing-cache';

const address: VersionedAddress = { fullName: 'Siti', phone: '+60123456789', addressLine1: '1 Jalan', addressLine2: null, city: 'KL', postcode: '50450', state: 'WP', version: 'a1' };
const row = (id: string, version = `v-${id}`): VersionedCatalogRow => ({
  id,
  storeId: 'store',
  categoryId: null,
  name: `Product ${id}`,
  status: 'live',
  basePrice: '10.00',
  weightKg: null,
  lengthCm: null,
  widthCm: null,
  heightCm: null,
  stock: 5,
  variants: [],
  methods: [{ id: 'm1', storeId: 'store', type: 'flat', rateConfig: { rate: '5.00' }, isActive: true }],
  version,
});

describe('PricingCache', () => {
  test("a cart is remembered when its address and every product are: the rows to price from and the versions the write checks", () => {
    const cache = new PricingCache(60_000, 100, () => 0);
    cache.remember('c1', 'addr1', address, [row('p1'), row('p2')]);
    const cart = cache.cart('c1', 'addr1', ['p2', 'p1']);
    expect(cart).toMatchObject({
      address: { fullName: 'Siti', phone: '+60123456789', addressLine1: '1 Jalan', addressLine2: null, city: 'KL', postcode: '50450', state: 'WP' },
      pricedFrom: { address: { id: 'addr1', version: 'a1' }, products: [{ id: 'p2', version: 'v-p2' }, { id: 'p1', version: 'v-p1' }] },
    });
    expect(cart?.address).not.toHaveProperty('version');
    // the catalog as catalogOf makes it of the rows: decimals parsed, the stores' methods once each
    expect(cart?.catalog).toEqual(catalogOf([row('p2'), row('p1')]));
    expect(cart?.catalog.methods).toEqual([{ id: 'm1', storeId: 'store', type: 'flat', rateConfig: { rate: '5.00' }, isActive: true }]);
    // another product, another customer's key for the same address id, an address not found: no cart
    expect(cache.cart('c1', 'addr1', ['p1', 'p3'])).toBeUndefined();
    expect(cache.cart('c2', 'addr1', ['p1'])).toBeUndefined();
    cache.remember('c3', 'addr3', null, [row('p3')]);
    expect(cache.cart('c3', 'addr3', ['p3'])).toBeUndefined();
  });

  test('rows expire after the TTL; a fresh read of a row replaces it', () => {
    let now = 0;
    const cache = new PricingCache(1_000, 100, () => now);
    cache.remember('c1', 'addr1', address, [row('p1')]);
    now = 999;
    expect(cache.cart('c1', 'addr1', ['p1'])).toBeDefined();
    now = 1_000;
    expect(cache.cart('c1', 'addr1', ['p1'])).toBeUndefined();
    cache.remember('c1', 'addr1', address, [row('p1', 'v2')]);
    expect(cache.cart('c1', 'addr1', ['p1'])?.pricedFrom.products).toEqual([{ id: 'p1', version: 'v2' }]);
  });

  test('forget drops the cart (its write found a row changed); beyond the size limit the oldest rows go', () => {
    const cache = new PricingCache(60_000, 2, () => 0);
    cache.remember('c1', 'addr1', address, [row('p1')]);
    cache.forget('c1', 'addr1', ['p1']);
    expect(cache.sizes).toEqual({ products: 0, addresses: 0 });
    cache.remember('c1', 'addr1', address, [row('p1'), row('p2'), row('p3')]);
    expect(cache.sizes.products).toBe(2);
    expect(cache.cart('c1', 'addr1', ['p1'])).toBeUndefined();
    expect(cache.cart('c1', 'addr1', ['p2', 'p3'])).toBeDefined();
  });
});
