import type { PostalAddress } from '@pasar/contracts';
import type { PricedFrom } from './order-batch';
import { catalogFrom, catalogProductOf, type Catalog, type CatalogMethod, type CatalogProduct, type CatalogRow } from './place-order';

/** A catalog row as the submit's read answers it, with its catalog_version. */
export type VersionedCatalogRow = CatalogRow & { version: string };
/** A customer's address as the submit's read answers it, with its address_version. */
export type VersionedAddress = PostalAddress & { version: string };

/** How long a remembered row may be priced from (a row that changed meanwhile is caught by its version anyway). */
export const PRICING_CACHE_TTL_MS = 60_000;
/** Rows of each kind remembered at most (the oldest go first). */
export const PRICING_CACHE_MAX_ROWS = 20_000;

interface Remembered<T> {
  value: T;
  until: number;
}

/** A Map that forgets its entries after `ttlMs` and its oldest entries beyond `max`. */
class Expiring<T> {
  private readonly entries = new Map<string, Remembered<T>>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  get(key: string, now: number): T | undefined {
    const found = this.entries.get(key);
    if (!found) return undefined;
    if (found.until > now) return found.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: T, now: number): void {
    this.entries.delete(key); // re-inserted: the newest again
    this.entries.set(key, { value, until: now + this.ttlMs });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** What a submit may be priced from without reading: the cart's catalog and the address, with what to expect of them. */
export interface RememberedCart {
  address: PostalAddress;
  catalog: Catalog;
  pricedFrom: PricedFrom;
}

/** A remembered catalog row, parsed once (catalogProductOf) for every submit priced from it. */
interface RememberedProduct {
  product: CatalogProduct;
  methods: readonly CatalogMethod[];
  version: string;
}

/**
 * The catalog rows and customers' addresses recent submits read, so that the next submit of the
 * same cart is priced without a read: its write (place_orders) checks that each row still has the
 * version it was priced from, and a row that changed answers `stale` (the submit then reads afresh).
 * So nothing here needs to be told of changes, and a process's copy may be stale without harm;
 * stock in a remembered row is never relied on (the write takes the stock). One per process.
 */
export class PricingCache {
  private readonly products: Expiring<RememberedProduct>;
  private readonly addresses: Expiring<VersionedAddress>;

  constructor(
    ttlMs = PRICING_CACHE_TTL_MS,
    maxRows = PRICING_CACHE_MAX_ROWS,
    private readonly clock: () => number = Date.now,
  ) {
    this.products = new Expiring(ttlMs, maxRows);
    this.addresses = new Expiring(ttlMs, maxRows);
  }

  /** Remembers what a fresh read answered; answers its catalog, parsed once for the cache and the submit that read it. */
  remember(customerId: string, addressId: string, address: VersionedAddress | null, catalog: readonly VersionedCatalogRow[]): Catalog {
    const now = this.clock();
    if (address) this.addresses.set(addressKey(customerId, addressId), address, now);
    const products = catalog.map((row): RememberedProduct => ({ product: catalogProductOf(row), methods: row.methods, version: row.version }));
    for (const remembered of products) this.products.set(remembered.product.id, remembered, now);
    return catalogFrom(products);
  }

  /** The cart's rows when every one of them is remembered; undefined otherwise. */
  cart(customerId: string, addressId: string, productIds: readonly string[]): RememberedCart | undefined {
    const now = this.clock();
    const address = this.addresses.get(addressKey(customerId, addressId), now);
    if (!address) return undefined;
    const products: RememberedProduct[] = [];
    for (const id of productIds) {
      const remembered = this.products.get(id, now);
      if (!remembered) return undefined;
      products.push(remembered);
    }
    const { version, ...postal } = address;
    return {
      address: postal,
      catalog: catalogFrom(products),
      pricedFrom: { address: { id: addressId, version }, products: products.map((p) => ({ id: p.product.id, version: p.version })) },
    };
  }

  /** Forgets a cart's rows (its write found one of them changed). */
  forget(customerId: string, addressId: string, productIds: readonly string[]): void {
    this.addresses.delete(addressKey(customerId, addressId));
    for (const id of productIds) this.products.delete(id);
  }

  /** Rows remembered now, by kind. */
  get sizes(): { products: number; addresses: number } {
    return { products: this.products.size, addresses: this.addresses.size };
  }
}

const addressKey = (customerId: string, addressId: string) => `${customerId}/${addressId}`;
