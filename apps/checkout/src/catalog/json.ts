import type { CatalogProductCard, CatalogProductDetail, CategoryJson, VendorProduct } from '@pasar/contracts';
import type { Category } from '../generated/prisma/client';
import type { CatalogEntry } from './browse';
import type { ProductWithVariants } from './products';
import { availableStock, cardPrice, effectiveUnitPrice, publicStorageUrl, stockVersion } from './rules';

/** The Product card (spec, snake_case) plus the units available. */
export function toCatalogCard({ product, storeName }: CatalogEntry, storageUrl: string): CatalogProductCard {
  return {
    id: product.id,
    name: product.name,
    slug: product.slug,
    price: cardPrice(product.basePrice, product.variants).toFixed(2),
    image_url: publicStorageUrl(storageUrl, product.imagePath),
    avg_rating: product.avgRating.toFixed(2),
    store_id: product.storeId,
    store_name: storeName,
    stock: availableStock(product.stock, product.variants),
  };
}

/** The card plus what a product page shows: description, category, measures, variants with their prices. */
export function toCatalogDetail(entry: CatalogEntry, storageUrl: string): CatalogProductDetail {
  const { product } = entry;
  return {
    ...toCatalogCard(entry, storageUrl),
    description: product.description,
    category_id: product.categoryId,
    weight_kg: product.weightKg?.toFixed(3) ?? null,
    length_cm: product.lengthCm?.toFixed(2) ?? null,
    width_cm: product.widthCm?.toFixed(2) ?? null,
    height_cm: product.heightCm?.toFixed(2) ?? null,
    variants: product.variants.map((v) => ({
      id: v.id,
      name: v.name,
      price: effectiveUnitPrice(product.basePrice, v.priceOverride).toFixed(2),
      stock: v.stock,
    })),
  };
}

/** A product as its vendor edits it (camelCase, like the request). */
export function toVendorProduct(product: ProductWithVariants, storageUrl: string): VendorProduct {
  return {
    id: product.id,
    storeId: product.storeId,
    categoryId: product.categoryId,
    name: product.name,
    slug: product.slug,
    description: product.description,
    status: product.status,
    basePrice: product.basePrice.toFixed(2),
    imagePath: product.imagePath,
    imageUrl: publicStorageUrl(storageUrl, product.imagePath),
    weightKg: product.weightKg?.toFixed(3) ?? null,
    lengthCm: product.lengthCm?.toFixed(2) ?? null,
    widthCm: product.widthCm?.toFixed(2) ?? null,
    heightCm: product.heightCm?.toFixed(2) ?? null,
    stock: product.stock,
    avgRating: product.avgRating.toFixed(2),
    variants: product.variants.map((v) => ({ id: v.id, name: v.name, priceOverride: v.priceOverride?.toFixed(2) ?? null, stock: v.stock })),
    stockVersion: stockVersion(product),
    createdAt: product.createdAt.toISOString(),
    updatedAt: product.updatedAt.toISOString(),
  };
}

export function toCategory(category: Category): CategoryJson {
  return { id: category.id, name: category.name, slug: category.slug };
}
