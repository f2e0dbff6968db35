import { listWindow, type CreateKolCodeBody, type CreateVoucherBody, type ListQuery, type UpdateKolCodeBody, type UpdateVoucherBody, type ValidateVoucherBody } from '@pasar/contracts';
import { isUniqueViolation } from '@pasar/db';
import { badRequest, conflict, notFound, ProblemError } from '@pasar/service-kit';
import { Prisma, type KolCode, type PrismaClient, type Voucher } from '../generated/prisma/client';
import {
  discountDefinitionProblem,
  roundToCents,
  usabilityRejection,
  VOUCHER_REJECTIONS,
  voucherDefinitionProblem,
  voucherDiscount,
  voucherRejection,
  type DefinitionProblem,
  type VoucherUse,
} from './rules';
import { systemClock } from '../deps';

/** What the promotion use cases need. */
export interface PromotionDeps {
  prisma: PrismaClient;
  clock?: () => Date;
}

/** A Prisma client or a transaction. */
export type Db = PrismaClient | Prisma.TransactionClient;
type Tx = Prisma.TransactionClient;

async function withUniqueCode<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('duplicate_code', 'another one already has this code');
    throw err;
  }
}

function refuseDefinition(problem: DefinitionProblem | null): void {
  if (problem) throw badRequest(problem.code, problem.detail);
}

const decimal = (amount: string) => new Prisma.Decimal(amount);
const optionalDate = (value: string | null | undefined) => (value === undefined ? undefined : value === null ? null : new Date(value));

// ---------------------------------------------------------------- vouchers (admin)

/** One page of the vouchers, newest first. */
export function listVouchers({ prisma }: PromotionDeps, page: ListQuery): Promise<Voucher[]> {
  return prisma.voucher.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], ...listWindow(page) });
}

/** Creates a voucher; 400 when its terms are inconsistent, 409 `duplicate_code`. */
export async function createVoucher({ prisma }: PromotionDeps, body: CreateVoucherBody): Promise<Voucher> {
  const data = {
    code: body.code,
    tier: body.tier,
    storeId: body.storeId ?? null,
    discountType: body.discountType,
    discountValue: decimal(body.discountValue),
    minOrderAmount: decimal(body.minOrderAmount),
    maxUses: body.maxUses,
    startsAt: optionalDate(body.startsAt) ?? null,
    endsAt: optionalDate(body.endsAt) ?? null,
    isActive: body.isActive ?? true,
  };
  refuseDefinition(voucherDefinitionProblem({ ...data, usedCount: 0 }));
  return withUniqueCode(() => prisma.voucher.create({ data }));
}

/** Changes some fields of a voucher; the result must still be a consistent voucher (uses counted so far included). */
export async function updateVoucher({ prisma }: PromotionDeps, voucherId: string, body: UpdateVoucherBody): Promise<Voucher> {
  const changes = {
    code: body.code,
    tier: body.tier,
    storeId: body.storeId,
    discountType: body.discountType,
    discountValue: body.discountValue === undefined ? undefined : decimal(body.discountValue),
    minOrderAmount: body.minOrderAmount === undefined ? undefined : decimal(body.minOrderAmount),
    maxUses: body.maxUses,
    startsAt: optionalDate(body.startsAt),
    endsAt: optionalDate(body.endsAt),
    isActive: body.isActive,
  };
  return withUniqueCode(() =>
    prisma.$transaction(async (tx) => {
      // the row lock keeps used_count still while max_uses is checked against it
      const [current] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM voucher WHERE id = ${voucherId}::uuid FOR UPDATE`;
      if (!current) throw notFound('voucher');
      const stored = await tx.voucher.findUniqueOrThrow({ where: { id: voucherId } });
      const merged = { ...stored, ...definedOnly(changes) };
      refuseDefinition(voucherDefinitionProblem(merged));
      return tx.voucher.update({ where: { id: voucherId }, data: changes });
    }),
  );
}

function definedOnly<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<T>;
}

// ---------------------------------------------------------------- KOL codes (admin)

/** One page of the KOL codes, newest first. */
export function listKolCodes({ prisma }: PromotionDeps, page: ListQuery): Promise<KolCode[]> {
  return prisma.kolCode.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], ...listWindow(page) });
}

async function requireCategory(db: Db, categoryId: string | undefined): Promise<void> {
  if (categoryId === undefined) return;
  const category = await db.category.findUnique({ where: { id: categoryId }, select: { id: true } });
  if (!category) throw badRequest('category_not_found', 'no category has this id');
}

/** Creates a KOL code for a category; 400 `category_not_found`, 409 `duplicate_code`. */
export async function createKolCode({ prisma }: PromotionDeps, body: CreateKolCodeBody): Promise<KolCode> {
  const data = {
    code: body.code,
    discountType: body.discountType,
    discountValue: decimal(body.discountValue),
    categoryId: body.categoryId,
    isActive: body.isActive ?? true,
  };
  refuseDefinition(discountDefinitionProblem(data.discountType, data.discountValue));
  await requireCategory(prisma, body.categoryId);
  return withUniqueCode(() => prisma.kolCode.create({ data }));
}

export async function updateKolCode({ prisma }: PromotionDeps, kolCodeId: string, body: UpdateKolCodeBody): Promise<KolCode> {
  const changes = {
    code: body.code,
    discountType: body.discountType,
    discountValue: body.discountValue === undefined ? undefined : decimal(body.discountValue),
    categoryId: body.categoryId,
    isActive: body.isActive,
  };
  return withUniqueCode(() =>
    prisma.$transaction(async (tx) => {
      const stored = await tx.kolCode.findUnique({ where: { id: kolCodeId } });
      if (!stored) throw notFound('KOL code');
      const merged = { ...stored, ...definedOnly(changes) };
      refuseDefinition(discountDefinitionProblem(merged.discountType, merged.discountValue));
      await requireCategory(tx, body.categoryId);
      return tx.kolCode.update({ where: { id: kolCodeId }, data: changes });
    }),
  );
}

// ---------------------------------------------------------------- checking and counting uses

export interface ApplicableVoucher {
  voucher: Voucher;
  discount: Prisma.Decimal;
}

/**
 * The voucher and what it takes off `use.subtotal`, when every check passes: 404
 * `voucher_not_found`, else 400 with the code of the first failed check (VOUCHER_REJECTIONS).
 */
export async function applicableVoucher(db: Db, voucherId: string, use: VoucherUse): Promise<ApplicableVoucher> {
  const voucher = await db.voucher.findUnique({ where: { id: voucherId } });
  if (!voucher) throw new ProblemError(404, 'voucher_not_found', 'no voucher has this id');
  const rejection = voucherRejection(voucher, use);
  if (rejection) throw badRequest(rejection, VOUCHER_REJECTIONS[rejection]);
  return { voucher, discount: voucherDiscount(voucher, use.subtotal) };
}

/** POST /checkout/validate-voucher: the checks of a voucher against a cart subtotal (rounded half-up to cents). */
export function validateVoucher({ prisma, clock = systemClock }: PromotionDeps, body: ValidateVoucherBody): Promise<ApplicableVoucher> {
  return applicableVoucher(prisma, body.voucherId, {
    tier: body.tier,
    storeIds: body.storeId ? [body.storeId] : [],
    subtotal: roundToCents(new Prisma.Decimal(body.cartSubtotal)),
    now: clock(),
  });
}

/**
 * Counts one use of the voucher, only while it is active, in its window and below its use limit
 * (a conditional update: under any concurrency the limit holds). Otherwise 400 with the reason.
 */
export async function countVoucherUse(tx: Tx, voucherId: string, now: Date): Promise<void> {
  const counted = await tx.$executeRaw`
    UPDATE voucher SET used_count = used_count + 1, updated_at = now()
    WHERE id = ${voucherId}::uuid AND is_active
      AND (max_uses IS NULL OR used_count < max_uses)
      AND (starts_at IS NULL OR starts_at <= ${now}) AND (ends_at IS NULL OR ends_at > ${now})`;
  if (counted === 1) return;
  const voucher = await tx.voucher.findUnique({ where: { id: voucherId } });
  const reason = (voucher && usabilityRejection(voucher, now)) || 'voucher_exhausted';
  throw badRequest(reason, VOUCHER_REJECTIONS[reason]);
}

/** Normalises a code as it is stored (trimmed, upper-cased). */
export const normaliseCode = (code: string) => code.trim().toUpperCase();

/** An active KOL code by its code (case-insensitive): 404 `kol_code_not_found`, 400 `kol_code_inactive`. */
export async function activeKolCode(db: Db, code: string): Promise<KolCode> {
  const kolCode = await db.kolCode.findUnique({ where: { code: normaliseCode(code) } });
  if (!kolCode) throw new ProblemError(404, 'kol_code_not_found', 'no KOL code has this code');
  if (!kolCode.isActive) throw badRequest('kol_code_inactive', 'the KOL code is not active');
  return kolCode;
}

/** POST /checkout/validate-kol-code. */
export function validateKolCode({ prisma }: PromotionDeps, code: string): Promise<KolCode> {
  return activeKolCode(prisma, code);
}

/** Counts one use of a KOL code while it is still active (400 `kol_code_inactive` otherwise). */
export async function countKolCodeUse(tx: Tx, kolCodeId: string): Promise<void> {
  const counted = await tx.$executeRaw`
    UPDATE kol_code SET used_count = used_count + 1, updated_at = now() WHERE id = ${kolCodeId}::uuid AND is_active`;
  if (counted !== 1) throw badRequest('kol_code_inactive', 'the KOL code is not active');
}
