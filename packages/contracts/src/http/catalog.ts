import { z } from 'zod';
import { money, pageQuery } from './common';

/** Catalog pages (public and the vendor's own) hold this many products. */
export const CATALOG_PAGE_SIZE = 20;
/** A product has at most this many variants. */
export const MAX_VARIANTS_PER_PRODUCT = 50;
/** Stock of a product or a variant is a whole number from 0 to this. */
export const MAX_STOCK = 1_000_000;

export const productStatusSchema = z.enum(['draft', 'live', 'archived']);
export type ProductStatus = z.infer<typeof productStatusSchema>;

/**
 * A non-negative decimal sent as a string ("12.50") or a JSON number (12.5), with at most
 * `decimals` places and `integerDigits` digits before the point; answered as the string.
 */
function decimalInput(integerDigits: number, decimals: number, positive: boolean) {
  const pattern = new RegExp(`^\\d{1,${integerDigits}}(\\.\\d{1,${decimals}})?$`);
  const shape = `${positive ? 'a positive' : 'a non-negative'} number with at most ${decimals} decimals and ${integerDigits} digits before the point`;
  return z
    .union([z.string(), z.number()])
    .transform((value) => (typeof value === 'number' ? String(value) : value.trim()))
    .pipe(
      z
        .string()
        .regex(pattern, shape)
        .refine((value) => !positive || /[1-9]/.test(value), shape),
    );
}

/** A price: >= 0, at most 2 decimals (Decimal(12,2)). */
export const priceInput = decimalInput(10, 2, false).meta({ description: 'A price: "12.50" or 12.5; >= 0, at most 2 decimals.', example: '12.50' });
const weightInput = decimalInput(7, 3, true).meta({ description: 'Kilograms, > 0, at most 3 decimals.', example: '0.450' });
const dimensionInput = decimalInput(8, 2, true).meta({ description: 'Centimetres, > 0, at most 2 decimals.', example: '20.5' });
const stockInput = z.number().int().min(0).max(MAX_STOCK);

/** A path in public storage (no scheme, no leading slash, no `..`): `products/book.jpg`. */
const storagePath = z
  .string()
  .trim()
  .max(500)
  .regex(/^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._/-]*$/, 'a relative storage path such as products/book.jpg');

// ---------------------------------------------------------------- categories

export const categoryBody = z.object({ name: z.string().trim().min(1).max(100) }).strict().meta({ id: 'CategoryRequest' });
export type CategoryBody = z.infer<typeof categoryBody>;

export const category = z.object({ id: z.uuid(), name: z.string(), slug: z.string() }).meta({ id: 'Category' });
export type CategoryJson = z.infer<typeof category>;

// ---------------------------------------------------------------- public catalog

/** The spec's Product card. `price`: the base price, or with variants the lowest effective price. */
export const productCard = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    price: money,
    image_url: z.string().nullable().meta({ description: 'PUBLIC_STORAGE_URL + the stored image path; null without an image.' }),
    avg_rating: z.string().meta({ example: '4.50' }),
    store_id: z.uuid(),
    store_name: z.string(),
  })
  .meta({ id: 'ProductCard' });
export type ProductCard = z.infer<typeof productCard>;

/** A Product card in the catalog listing, with the units available (the product's, or the sum of its variants'). */
export const catalogProductCard = productCard.extend({ stock: z.number().int() }).meta({ id: 'CatalogProductCard' });
export type CatalogProductCard = z.infer<typeof catalogProductCard>;

export const catalogProductDetail = catalogProductCard
  .extend({
    description: z.string(),
    category_id: z.uuid().nullable(),
    weight_kg: z.string().nullable(),
    length_cm: z.string().nullable(),
    width_cm: z.string().nullable(),
    height_cm: z.string().nullable(),
    variants: z.array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        price: money.meta({ description: "The variant's price override, else the base price." }),
        stock: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'CatalogProductDetail' });
export type CatalogProductDetail = z.infer<typeof catalogProductDetail>;

export const catalogProductsQuery = pageQuery.extend({
  storeId: z.uuid().optional(),
  categoryId: z.uuid().optional(),
  q: z.string().trim().max(100).optional().meta({ description: 'Part of the product name (case-insensitive).' }),
});
export type CatalogProductsQuery = z.infer<typeof catalogProductsQuery>;

function pageOf<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({ products: z.array(item), page: z.number().int(), totalPages: z.number().int(), total: z.number().int() })
    .meta({ id });
}

export const catalogProductPage = pageOf(catalogProductCard, 'CatalogProductPage');
export type CatalogProductPage = z.infer<typeof catalogProductPage>;

// ---------------------------------------------------------------- the vendor's own catalog

const variantBody = z
  .object({
    id: z.uuid().optional().meta({ description: 'An existing variant of this product to keep; absent: a new variant.' }),
    name: z.string().trim().min(1).max(100),
    priceOverride: priceInput.nullish(),
    stock: stockInput,
  })
  .strict();

/** Body of POST /vendor/products and PUT /vendor/products/{id} (DESIGN §7). */
export const vendorProductBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().trim().max(5000).default(''),
    categoryId: z.uuid().nullish(),
    basePrice: priceInput,
    status: productStatusSchema.default('draft'),
    imagePath: storagePath.nullish(),
    weightKg: weightInput.nullish(),
    lengthCm: dimensionInput.nullish(),
    widthCm: dimensionInput.nullish(),
    heightCm: dimensionInput.nullish(),
    stock: stockInput.default(0).meta({ description: 'Units of a product without variants; with variants stock lives on each variant (send 0 or leave it out).' }),
    variants: z
      .array(variantBody)
      .max(MAX_VARIANTS_PER_PRODUCT)
      .default([])
      .meta({ description: 'PUT replaces the list: ids given are kept, entries without id are created, the others are deleted (409 variant_in_use if an order holds one).' }),
    stockVersion: z
      .string()
      .max(64)
      .nullish()
      .meta({
        description:
          'PUT: the stockVersion of the product as you read it. Required to change an existing stock value (409 stock_version_required); ' +
          'if the stock changed since (a sale), 409 stock_changed and nothing is written, so an edit never undoes a concurrent sale.',
      }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.variants.length > 0 && body.stock !== 0) {
      ctx.addIssue({ code: 'custom', path: ['stock'], message: 'a product with variants keeps its stock on the variants' });
    }
    const seen = new Set<string>();
    body.variants.forEach((variant, index) => {
      if (!variant.id) return;
      if (seen.has(variant.id)) ctx.addIssue({ code: 'custom', path: ['variants', index, 'id'], message: 'a variant id appears twice' });
      seen.add(variant.id);
    });
  })
  .meta({ id: 'VendorProductRequest' });
export type VendorProductBody = z.infer<typeof vendorProductBody>;

export const vendorProduct = z
  .object({
    id: z.uuid(),
    storeId: z.uuid(),
    categoryId: z.uuid().nullable(),
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    status: productStatusSchema,
    basePrice: money,
    imagePath: z.string().nullable(),
    imageUrl: z.string().nullable(),
    weightKg: z.string().nullable(),
    lengthCm: z.string().nullable(),
    widthCm: z.string().nullable(),
    heightCm: z.string().nullable(),
    stock: z.number().int().meta({ description: 'Units of a product without variants (0 with variants: see each variant), as in the request.' }),
    avgRating: z.string(),
    variants: z.array(z.object({ id: z.uuid(), name: z.string(), priceOverride: money.nullable(), stock: z.number().int() })),
    stockVersion: z.string().meta({ description: 'Changes whenever any stock value of the product changes; send it back with a PUT that edits stock.' }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'VendorProduct' });
export type VendorProduct = z.infer<typeof vendorProduct>;

export const vendorProductPage = pageOf(vendorProduct, 'VendorProductPage');
export type VendorProductPage = z.infer<typeof vendorProductPage>;
