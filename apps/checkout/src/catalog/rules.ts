import { createHash } from 'node:crypto';
import { Prisma } from '../generated/prisma/client';

type Decimal = Prisma.Decimal;

const MAX_SLUG_LENGTH = 80;

/** A URL slug from a name: lower-case ASCII letters and digits joined by single dashes. */
export function slugify(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, '');
  return slug || fallback;
}

/** `base` when nobody holds it, else the first of `base-2`, `base-3`, ... that is free. */
export function nextFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let suffix = 2; ; suffix += 1) {
    const candidate = `${base}-${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** The price a buyer pays for one unit: the variant's override when it has one, else the base price. */
export function effectiveUnitPrice(basePrice: Decimal, priceOverride: Decimal | null | undefined): Decimal {
  return priceOverride ?? basePrice;
}

/** The price a Product card shows: the base price, or with variants the lowest effective variant price. */
export function cardPrice(basePrice: Decimal, variants: readonly { priceOverride: Decimal | null }[]): Decimal {
  if (variants.length === 0) return basePrice;
  return Prisma.Decimal.min(...variants.map((v) => effectiveUnitPrice(basePrice, v.priceOverride)));
}

/** Units a buyer can order: the product's own stock, or with variants the sum of theirs. */
export function availableStock(productStock: number, variants: readonly { stock: number }[]): number {
  if (variants.length === 0) return productStock;
  return variants.reduce((sum, v) => sum + v.stock, 0);
}

/** A stored path as a public URL (DESIGN §7: PUBLIC_STORAGE_URL + path); null when there is no path. */
export function publicStorageUrl(baseUrl: string, path: string | null): string | null {
  if (!path) return null;
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** What a PUT does to a product's variants (the request's list replaces the current one). */
export interface VariantPlan<V extends { id?: string }> {
  /** Requested entries that carry the id of a current variant: updated in place. */
  keep: (V & { id: string })[];
  /** Requested entries without an id: created. */
  create: V[];
  /** Current variants the request leaves out: deleted. */
  remove: string[];
  /** Ids in the request that are not variants of this product. */
  unknown: string[];
}

export function planVariants<V extends { id?: string }>(currentIds: readonly string[], requested: readonly V[]): VariantPlan<V> {
  const current = new Set(currentIds);
  const plan: VariantPlan<V> = { keep: [], create: [], remove: [], unknown: [] };
  const kept = new Set<string>();
  for (const variant of requested) {
    const { id } = variant;
    if (id === undefined) plan.create.push(variant);
    else if (current.has(id)) {
      plan.keep.push({ ...variant, id });
      kept.add(id);
    } else plan.unknown.push(id);
  }
  plan.remove = currentIds.filter((id) => !kept.has(id));
  return plan;
}

/** Text as a literal inside a LIKE pattern (backslash is PostgreSQL's default escape). */
export function escapeLikePattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** How many pages `total` items fill (0 when there are none). */
export function pageCount(total: number, pageSize: number): number {
  return Math.ceil(total / pageSize);
}

/** What buying a product looks at: its variants and the one asked for (cart lines and submits). */
export type VariantChoice = { ok: true; variantId: string | null } | { ok: false; code: 'variant_required' | 'unknown_variant' };

/**
 * A product with variants is bought as one of them; a product without variants is bought as itself.
 * A variant id must name one of the product's own variants.
 */
export function chooseVariant(variantIds: readonly string[], requested: string | null | undefined): VariantChoice {
  if (requested == null) return variantIds.length === 0 ? { ok: true, variantId: null } : { ok: false, code: 'variant_required' };
  return variantIds.includes(requested) ? { ok: true, variantId: requested } : { ok: false, code: 'unknown_variant' };
}

/** Why a variant choice was refused, for the problem detail. */
export const VARIANT_PROBLEMS = {
  variant_required: 'the product has variants: choose one of them',
  unknown_variant: 'the variant is not one of the product variants',
} as const;

/** The stock values of a product: its own and each variant's. */
export interface StockState {
  stock: number;
  variants: readonly { id: string; stock: number }[];
}

/**
 * An opaque version of a product's stock values: it changes whenever any of them changes (a sale,
 * a release, an edit). A vendor echoes the one it read as `stockVersion` when it edits the product.
 */
export function stockVersion(state: StockState): string {
  const variants = [...state.variants].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((v) => `${v.id}=${v.stock}`);
  return createHash('sha256').update(`${state.stock};${variants.join(',')}`).digest('hex').slice(0, 16);
}

export type StockEditRefusal = 'stock_changed' | 'stock_version_required';

/**
 * Whether a product edit may write its stock values without undoing a concurrent sale: with a
 * `stockVersion`, it must be the current one (else `stock_changed`: read again); without one, the
 * edit may not change any existing stock value (`stock_version_required`), since a value read
 * before a sale would put the sold units back. New variants' stock is not a concern.
 */
export function stockEditRefusal(
  current: StockState,
  body: { stock: number; stockVersion?: string | null; variants: readonly { id?: string; stock: number }[] },
): StockEditRefusal | null {
  if (body.stockVersion) return body.stockVersion === stockVersion(current) ? null : 'stock_changed';
  if (body.stock !== current.stock) return 'stock_version_required';
  const kept = new Map(current.variants.map((v) => [v.id, v.stock]));
  const changed = body.variants.some((v) => v.id !== undefined && kept.has(v.id) && kept.get(v.id) !== v.stock);
  return changed ? 'stock_version_required' : null;
}
