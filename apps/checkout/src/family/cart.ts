import { MAX_FAMILY_CART_QUANTITY, type AddFamilyCartItemBody } from '@pasar/contracts';
import { badRequest, conflict, notFound } from '@pasar/service-kit';
import { chooseVariant, effectiveUnitPrice, VARIANT_PROBLEMS } from '../catalog/rules';
import type { FamilyCartItem, Prisma, PrismaClient } from '../generated/prisma/client';
import { familyLock, familyOfMember, lockFamilyKeys, type FamilyDb } from './membership';
import { lineTotal, mergedQuantity, subtotal } from './rules';

export interface CartDeps {
  prisma: PrismaClient;
}

/** A family cart line priced server-side from the catalog as it is now. */
export interface PricedCartLine {
  id: string;
  productId: string;
  variantId: string | null;
  productName: string;
  variantName: string | null;
  unitPrice: Prisma.Decimal;
  quantity: number;
  lineTotal: Prisma.Decimal;
  storeId: string;
  addedBy: string;
  /** Whether the product is on sale (`live`) now; a line may outlive its product's sale. */
  productLive: boolean;
}

export interface PricedCart {
  items: PricedCartLine[];
  subtotal: Prisma.Decimal;
}

/** The shared cart of the caller's family (active members only). */
export async function getFamilyCart({ prisma }: CartDeps, userId: string): Promise<PricedCart> {
  const { family } = await familyOfMember(prisma, userId);
  const items = await familyCartLines(prisma, family.id);
  return { items, subtotal: subtotal(items.map((line) => line.lineTotal)) };
}

/**
 * Adds a live product (as one of its variants when it has them) to the family cart; the same
 * product and variant again adds to that line's quantity (409 `quantity_limit` past the line limit).
 */
export async function addFamilyCartItem({ prisma }: CartDeps, userId: string, body: AddFamilyCartItemBody): Promise<PricedCartLine> {
  return prisma.$transaction(async (tx) => {
    const { family } = await familyOfMember(tx, userId);
    const product = await tx.product.findUnique({ where: { id: body.productId }, include: { variants: { select: { id: true } } } });
    if (!product || product.status !== 'live') throw badRequest('product_unavailable', 'the product is not on sale');
    const choice = chooseVariant(product.variants.map((v) => v.id), body.variantId);
    if (!choice.ok) throw badRequest(choice.code, VARIANT_PROBLEMS[choice.code]);
    await lockFamilyKeys(tx, familyLock(family.id));
    const line = await tx.familyCartItem.findFirst({ where: { familyId: family.id, productId: product.id, variantId: choice.variantId } });
    let itemId: string;
    if (line) {
      const quantity = mergedQuantity(line.quantity, body.quantity);
      if (quantity === null) throw conflict('quantity_limit', `a cart line holds at most ${MAX_FAMILY_CART_QUANTITY} of one product`);
      await tx.familyCartItem.update({ where: { id: line.id }, data: { quantity } });
      itemId = line.id;
    } else {
      const created = await tx.familyCartItem.create({
        data: { familyId: family.id, productId: product.id, variantId: choice.variantId, quantity: body.quantity, addedBy: userId },
      });
      itemId = created.id;
    }
    const [priced] = await familyCartLines(tx, family.id, [itemId]);
    return priced;
  });
}

/** Removes a line from the caller's family cart; another family's line is 404. */
export async function removeFamilyCartItem({ prisma }: CartDeps, userId: string, itemId: string): Promise<void> {
  const { family } = await familyOfMember(prisma, userId);
  const { count } = await prisma.familyCartItem.deleteMany({ where: { id: itemId, familyId: family.id } });
  if (count === 0) throw notFound('cart item');
}

/**
 * The family's cart lines (all, or the ones with these ids), oldest first, priced from the
 * catalog now: the variant's price override over the product's base price. Lines whose product or
 * variant no longer exists are left out. Family submit reads the cart with it.
 */
export async function familyCartLines(db: FamilyDb, familyId: string, itemIds?: readonly string[]): Promise<PricedCartLine[]> {
  const items = await db.familyCartItem.findMany({
    where: { familyId, ...(itemIds ? { id: { in: [...itemIds] } } : {}) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const products = await db.product.findMany({
    where: { id: { in: [...new Set(items.map((item) => item.productId))] } },
    include: { variants: true },
  });
  const byId = new Map(products.map((product) => [product.id, product]));
  return items.flatMap((item) => {
    const product = byId.get(item.productId);
    const variant = item.variantId ? product?.variants.find((v) => v.id === item.variantId) : null;
    if (!product || variant === undefined) return [];
    return [pricedLine(item, product, variant)];
  });
}

function pricedLine(
  item: FamilyCartItem,
  product: { name: string; basePrice: Prisma.Decimal; storeId: string; status: string },
  variant: { name: string; priceOverride: Prisma.Decimal | null } | null,
): PricedCartLine {
  const price = effectiveUnitPrice(product.basePrice, variant?.priceOverride);
  return {
    id: item.id,
    productId: item.productId,
    variantId: item.variantId,
    productName: product.name,
    variantName: variant?.name ?? null,
    unitPrice: price,
    quantity: item.quantity,
    lineTotal: lineTotal(price, item.quantity),
    storeId: product.storeId,
    addedBy: item.addedBy,
    productLive: product.status === 'live',
  };
}
