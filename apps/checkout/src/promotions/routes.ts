import {
  createKolCodeBody,
  createVoucherBody,
  listQuery,
  updateKolCodeBody,
  updateVoucherBody,
  uuidParam,
  validateKolCodeBody,
  validateVoucherBody,
  type AdminKolCode,
  type AdminVoucher,
  type KolCodeSummary,
  type ValidateKolCodeResponse,
  type ValidateVoucherResponse,
  type VoucherSummary,
} from '@pasar/contracts';
import { API_PREFIX, parse, requireRole, requireUser } from '@pasar/service-kit';
import type { Router } from 'express';
import type { KolCode, Voucher } from '../generated/prisma/client';
import {
  createKolCode,
  createVoucher,
  listKolCodes,
  listVouchers,
  updateKolCode,
  updateVoucher,
  validateKolCode,
  validateVoucher,
  type PromotionDeps,
} from './promotions';

/** Admin CRUD of vouchers and KOL codes; the customer-facing validate endpoints. */
export function promotionRoutes(router: Router, deps: PromotionDeps): void {
  router.get('/admin/vouchers', async (req, res) => {
    requireRole(req, 'admin');
    res.json((await listVouchers(deps, parse(listQuery, req.query))).map(toAdminVoucherJson));
  });

  router.post('/admin/vouchers', async (req, res) => {
    requireRole(req, 'admin');
    const voucher = await createVoucher(deps, parse(createVoucherBody, req.body));
    res.status(201).location(`${API_PREFIX}/admin/vouchers/${voucher.id}`).json(toAdminVoucherJson(voucher));
  });

  router.patch('/admin/vouchers/:id', async (req, res) => {
    requireRole(req, 'admin');
    const { id } = parse(uuidParam, req.params);
    res.json(toAdminVoucherJson(await updateVoucher(deps, id, parse(updateVoucherBody, req.body))));
  });

  router.get('/admin/kol-codes', async (req, res) => {
    requireRole(req, 'admin');
    res.json((await listKolCodes(deps, parse(listQuery, req.query))).map(toAdminKolCodeJson));
  });

  router.post('/admin/kol-codes', async (req, res) => {
    requireRole(req, 'admin');
    const kolCode = await createKolCode(deps, parse(createKolCodeBody, req.body));
    res.status(201).location(`${API_PREFIX}/admin/kol-codes/${kolCode.id}`).json(toAdminKolCodeJson(kolCode));
  });

  router.patch('/admin/kol-codes/:id', async (req, res) => {
    requireRole(req, 'admin');
    const { id } = parse(uuidParam, req.params);
    res.json(toAdminKolCodeJson(await updateKolCode(deps, id, parse(updateKolCodeBody, req.body))));
  });

  router.post('/checkout/validate-voucher', async (req, res) => {
    requireUser(req);
    const { voucher, discount } = await validateVoucher(deps, parse(validateVoucherBody, req.body));
    const body: ValidateVoucherResponse = { voucher: toVoucherSummaryJson(voucher), discount: discount.toFixed(2) };
    res.json(body);
  });

  router.post('/checkout/validate-kol-code', async (req, res) => {
    requireUser(req);
    const kolCode = await validateKolCode(deps, parse(validateKolCodeBody, req.body).code);
    const body: ValidateKolCodeResponse = { kolCode: toKolCodeSummaryJson(kolCode) };
    res.json(body);
  });
}

/** The spec's Voucher summary (snake_case). */
export function toVoucherSummaryJson(voucher: Voucher): VoucherSummary {
  return {
    id: voucher.id,
    code: voucher.code,
    tier: voucher.tier,
    discount_type: voucher.discountType,
    discount_value: voucher.discountValue.toFixed(2),
    min_order_amount: voucher.minOrderAmount.toFixed(2),
  };
}

export function toAdminVoucherJson(voucher: Voucher): AdminVoucher {
  return {
    ...toVoucherSummaryJson(voucher),
    store_id: voucher.storeId,
    max_uses: voucher.maxUses,
    used_count: voucher.usedCount,
    starts_at: voucher.startsAt?.toISOString() ?? null,
    ends_at: voucher.endsAt?.toISOString() ?? null,
    is_active: voucher.isActive,
    created_at: voucher.createdAt.toISOString(),
  };
}

/** The spec's KOL code summary (snake_case). */
export function toKolCodeSummaryJson(kolCode: KolCode): KolCodeSummary {
  return {
    id: kolCode.id,
    code: kolCode.code,
    discount_type: kolCode.discountType,
    discount_value: kolCode.discountValue.toFixed(2),
    category_id: kolCode.categoryId,
  };
}

export function toAdminKolCodeJson(kolCode: KolCode): AdminKolCode {
  return {
    ...toKolCodeSummaryJson(kolCode),
    is_active: kolCode.isActive,
    used_count: kolCode.usedCount,
    created_at: kolCode.createdAt.toISOString(),
  };
}
