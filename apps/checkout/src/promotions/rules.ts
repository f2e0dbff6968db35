import { Prisma, type DiscountType, type VoucherTier } from '../generated/prisma/client';

type Decimal = Prisma.Decimal;
const ZERO = new Prisma.Decimal(0);
const HUNDRED = new Prisma.Decimal(100);

/** Money rounded half-up to cents. */
export function roundToCents(amount: Decimal): Decimal {
  return amount.toDecimalPlaces(2, Prisma.Decimal.ROUND_HALF_UP);
}

/**
 * What a discount takes off `base`: a percentage of it (rounded half-up to cents) or a fixed
 * amount, never more than `base` itself and never less than zero.
 */
export function discountOn(base: Decimal, type: DiscountType, value: Decimal): Decimal {
  if (base.lte(ZERO)) return ZERO;
  const raw = type === 'percentage' ? roundToCents(base.mul(value).div(HUNDRED)) : value;
  return Prisma.Decimal.max(ZERO, Prisma.Decimal.min(raw, base));
}

/** The voucher fields the checks read. */
export interface VoucherTerms {
  tier: VoucherTier;
  storeId: string | null;
  discountType: DiscountType;
  discountValue: Decimal;
  minOrderAmount: Decimal;
  maxUses: number | null;
  usedCount: number;
  startsAt: Date | null;
  endsAt: Date | null;
  isActive: boolean;
}

/** How a cart wants to use a voucher. */
export interface VoucherUse {
  /** The tier the client says it applies; null: not asserted. */
  tier: string | null;
  /** The stores of the cart (empty: not known). */
  storeIds: readonly string[];
  subtotal: Decimal;
  now: Date;
}

export const VOUCHER_REJECTIONS = {
  voucher_inactive: 'the voucher is not active',
  voucher_not_started: 'the voucher is not valid yet',
  voucher_expired: 'the voucher has expired',
  voucher_exhausted: 'the voucher has been used up',
  voucher_tier_mismatch: "the tier does not match the voucher's tier",
  voucher_store_scope: 'the voucher is for another store',
  voucher_min_order: 'the order is below the minimum amount of the voucher',
} as const;
export type VoucherRejection = keyof typeof VOUCHER_REJECTIONS;

/**
 * Whether the voucher can be used at all now: active flag, validity window (open from `startsAt`
 * inclusive until `endsAt` exclusive; null ends are open), use limit.
 */
export function usabilityRejection(
  voucher: Pick<VoucherTerms, 'isActive' | 'startsAt' | 'endsAt' | 'maxUses' | 'usedCount'>,
  now: Date,
): 'voucher_inactive' | 'voucher_not_started' | 'voucher_expired' | 'voucher_exhausted' | null {
  if (!voucher.isActive) return 'voucher_inactive';
  if (voucher.startsAt && now < voucher.startsAt) return 'voucher_not_started';
  if (voucher.endsAt && now >= voucher.endsAt) return 'voucher_expired';
  if (voucher.maxUses !== null && voucher.usedCount >= voucher.maxUses) return 'voucher_exhausted';
  return null;
}

/**
 * The first check the voucher fails for this use, or null when it applies. Order: active flag,
 * validity window, max uses, tier, store scope (a `store` voucher applies only when every line of
 * the cart is from its store), minimum order amount.
 */
export function voucherRejection(voucher: VoucherTerms, use: VoucherUse): VoucherRejection | null {
  const unusable = usabilityRejection(voucher, use.now);
  if (unusable) return unusable;
  if (use.tier !== null && use.tier !== voucher.tier) return 'voucher_tier_mismatch';
  if (voucher.tier === 'store' && (use.storeIds.length === 0 || use.storeIds.some((id) => id !== voucher.storeId))) {
    return 'voucher_store_scope';
  }
  if (use.subtotal.lt(voucher.minOrderAmount)) return 'voucher_min_order';
  return null;
}

/** What the voucher takes off the subtotal (clamped to it). */
export function voucherDiscount(voucher: Pick<VoucherTerms, 'discountType' | 'discountValue'>, subtotal: Decimal): Decimal {
  return discountOn(subtotal, voucher.discountType, voucher.discountValue);
}

// ---------------------------------------------------------------- what an administrator may define

export interface DefinitionProblem {
  code: string;
  detail: string;
}

/** A discount is positive; a percentage is at most 100. */
export function discountDefinitionProblem(type: DiscountType, value: Decimal): DefinitionProblem | null {
  if (value.lte(ZERO)) return { code: 'invalid_discount_value', detail: 'the discount value must be greater than zero' };
  if (type === 'percentage' && value.gt(HUNDRED)) return { code: 'percentage_over_100', detail: 'a percentage discount is at most 100' };
  return null;
}

/**
 * A voucher as it would be stored is consistent: its discount (above), a `store` tier with a
 * store and a `platform` tier without one, a window that ends after it starts, and a use limit
 * not below the uses already counted.
 */
export function voucherDefinitionProblem(voucher: Omit<VoucherTerms, 'isActive'>): DefinitionProblem | null {
  const discount = discountDefinitionProblem(voucher.discountType, voucher.discountValue);
  if (discount) return discount;
  if (voucher.tier === 'store' && voucher.storeId === null) return { code: 'store_id_required', detail: 'a store voucher needs a storeId' };
  if (voucher.tier === 'platform' && voucher.storeId !== null) {
    return { code: 'store_id_not_allowed', detail: 'a platform voucher applies to every store: leave storeId out' };
  }
  if (voucher.startsAt && voucher.endsAt && voucher.endsAt <= voucher.startsAt) {
    return { code: 'invalid_window', detail: 'endsAt must be after startsAt' };
  }
  if (voucher.maxUses !== null && voucher.maxUses < voucher.usedCount) {
    return { code: 'max_uses_below_used', detail: `the voucher has been used ${voucher.usedCount} times already` };
  }
  return null;
}
