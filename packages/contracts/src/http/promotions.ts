import { z } from 'zod';
import { priceInput } from './catalog';
import { money } from './common';

// Vouchers and KOL codes (spec: Voucher summary, KOL code summary; DESIGN §7).

export const voucherTierSchema = z.enum(['platform', 'store']);
export type VoucherTier = z.infer<typeof voucherTierSchema>;
export const discountTypeSchema = z.enum(['percentage', 'fixed']);
export type DiscountType = z.infer<typeof discountTypeSchema>;

/** An amount in a request: "12.50" or 12.5; >= 0, at most two decimals (answered as the string). */
const moneyInput = priceInput;

/** Voucher and KOL codes: stored upper-cased; letters, digits, `_` and `-`. */
export const promotionCode = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z0-9_-]{3,40}$/, '3 to 40 letters, digits, _ or -');

const voucherSummaryShape = {
  id: z.uuid(),
  code: z.string(),
  tier: voucherTierSchema,
  discount_type: discountTypeSchema,
  discount_value: money,
  min_order_amount: money,
};

/** The spec's Voucher summary. */
export const voucherSummary = z.object(voucherSummaryShape).meta({ id: 'VoucherSummary' });
export type VoucherSummary = z.infer<typeof voucherSummary>;

/** A voucher as the administrator sees it: the summary plus the fields the checks use. */
export const adminVoucher = z
  .object({
    ...voucherSummaryShape,
    store_id: z.uuid().nullable().meta({ description: 'The store a `store`-tier voucher is scoped to; null for `platform`.' }),
    max_uses: z.number().int().nullable().meta({ description: 'null: unlimited.' }),
    used_count: z.number().int(),
    starts_at: z.iso.datetime().nullable(),
    ends_at: z.iso.datetime().nullable(),
    is_active: z.boolean(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'AdminVoucher' });
export type AdminVoucher = z.infer<typeof adminVoucher>;

const voucherFields = {
  code: promotionCode,
  tier: voucherTierSchema,
  discountType: discountTypeSchema,
  discountValue: moneyInput.meta({ description: 'Percent (0 < v <= 100) for `percentage`, MYR for `fixed`.' }),
  minOrderAmount: moneyInput,
  maxUses: z.number().int().min(1).max(1_000_000_000).nullable().meta({ description: 'null: unlimited.' }),
  startsAt: z.iso.datetime({ offset: true }).nullish(),
  endsAt: z.iso.datetime({ offset: true }).nullish(),
  isActive: z.boolean(),
  storeId: z.uuid().nullish().meta({ description: 'Required for tier `store`, absent for `platform`.' }),
};

/** POST /admin/vouchers. */
export const createVoucherBody = z
  .object({ ...voucherFields, isActive: voucherFields.isActive.optional() })
  .strict()
  .meta({ id: 'CreateVoucherRequest' });
export type CreateVoucherBody = z.infer<typeof createVoucherBody>;

/** PATCH /admin/vouchers/{id}: any of the create fields; the result must still be a valid voucher. */
export const updateVoucherBody = z
  .object({
    code: voucherFields.code.optional(),
    tier: voucherFields.tier.optional(),
    discountType: voucherFields.discountType.optional(),
    discountValue: voucherFields.discountValue.optional(),
    minOrderAmount: voucherFields.minOrderAmount.optional(),
    maxUses: voucherFields.maxUses.optional(),
    startsAt: voucherFields.startsAt,
    endsAt: voucherFields.endsAt,
    isActive: voucherFields.isActive.optional(),
    storeId: voucherFields.storeId,
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'change at least one field')
  .meta({ id: 'UpdateVoucherRequest' });
export type UpdateVoucherBody = z.infer<typeof updateVoucherBody>;

const kolCodeSummaryShape = {
  id: z.uuid(),
  code: z.string(),
  discount_type: discountTypeSchema,
  discount_value: money,
  category_id: z.uuid(),
};

/** The spec's KOL code summary. */
export const kolCodeSummary = z.object(kolCodeSummaryShape).meta({ id: 'KolCodeSummary' });
export type KolCodeSummary = z.infer<typeof kolCodeSummary>;

export const adminKolCode = z
  .object({ ...kolCodeSummaryShape, is_active: z.boolean(), used_count: z.number().int(), created_at: z.iso.datetime() })
  .meta({ id: 'AdminKolCode' });
export type AdminKolCode = z.infer<typeof adminKolCode>;

const kolCodeFields = {
  code: promotionCode,
  discountType: discountTypeSchema,
  discountValue: moneyInput.meta({ description: 'Percent (0 < v <= 100) for `percentage`, MYR for `fixed`.' }),
  categoryId: z.uuid(),
  isActive: z.boolean(),
};

/** POST /admin/kol-codes. */
export const createKolCodeBody = z
  .object({ ...kolCodeFields, isActive: kolCodeFields.isActive.optional() })
  .strict()
  .meta({ id: 'CreateKolCodeRequest' });
export type CreateKolCodeBody = z.infer<typeof createKolCodeBody>;

/** PATCH /admin/kol-codes/{id}. */
export const updateKolCodeBody = z
  .object({
    code: kolCodeFields.code.optional(),
    discountType: kolCodeFields.discountType.optional(),
    discountValue: kolCodeFields.discountValue.optional(),
    categoryId: kolCodeFields.categoryId.optional(),
    isActive: kolCodeFields.isActive.optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'change at least one field')
  .meta({ id: 'UpdateKolCodeRequest' });
export type UpdateKolCodeBody = z.infer<typeof updateKolCodeBody>;

/** POST /checkout/validate-voucher (spec fields, plus the optional storeId of the cart for the store-scope check). */
export const validateVoucherBody = z
  .object({
    voucherId: z.uuid(),
    tier: z.string().min(1).max(40).meta({ description: 'Must equal the voucher tier (`platform` or `store`).' }),
    cartSubtotal: z.number().nonnegative().max(9_999_999_999.99).meta({ description: 'MYR; rounded half-up to cents.' }),
    storeId: z.uuid().nullish().meta({ description: "The cart's store: required for a `store`-tier voucher to pass its scope check." }),
  })
  .strict()
  .meta({ id: 'ValidateVoucherRequest' });
export type ValidateVoucherBody = z.infer<typeof validateVoucherBody>;

export const validateVoucherResponse = z
  .object({ voucher: voucherSummary, discount: money.meta({ description: 'Clamped to the cart subtotal.' }) })
  .meta({ id: 'ValidateVoucherResponse' });
export type ValidateVoucherResponse = z.infer<typeof validateVoucherResponse>;

/** POST /checkout/validate-kol-code. */
export const validateKolCodeBody = z
  .object({ code: z.string().trim().min(1).max(100).meta({ description: 'Matched case-insensitively.' }) })
  .strict()
  .meta({ id: 'ValidateKolCodeRequest' });
export type ValidateKolCodeBody = z.infer<typeof validateKolCodeBody>;

export const validateKolCodeResponse = z.object({ kolCode: kolCodeSummary }).meta({ id: 'ValidateKolCodeResponse' });
export type ValidateKolCodeResponse = z.infer<typeof validateKolCodeResponse>;
