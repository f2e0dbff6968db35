import type { CompanyStatus } from '@pasar/contracts';
import { normaliseMsic, normaliseTin } from '@pasar/tax';
import type { Allowed, Refusal } from '../members/rules';

/** Approve and reject act only on a pending company (DESIGN §5); otherwise 409. */
export function reviewable(status: CompanyStatus): Allowed | Refusal<'not_pending'> {
  return status === 'pending' ? { ok: true } : { ok: false, code: 'not_pending', detail: `the company is already ${status}` };
}

/** The TIN (validated, normalised) and MSIC code of a company edit. */
export function companyTaxIds(tin: string, msicCode: string): { ok: true; tin: string; msicCode: string } | Refusal<'invalid_tin' | 'invalid_msic'> {
  const normalisedTin = normaliseTin(tin);
  if (!normalisedTin.ok) return { ok: false, code: 'invalid_tin', detail: normalisedTin.reason };
  const msic = normaliseMsic(msicCode);
  if (!msic.ok) return { ok: false, code: 'invalid_msic', detail: msic.reason };
  return { ok: true, tin: normalisedTin.value, msicCode: msic.value };
}

/** A stored path as a public URL (DESIGN §7): PUBLIC_STORAGE_URL + '/' + path; null when no path. */
export function publicUrl(base: string, path: string | null): string | null {
  if (!path) return null;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** The one-line address of the administrator view. */
export const oneLineAddress = (c: { addressLine1: string; city: string; postcode: string; state: string }) =>
  `${c.addressLine1}, ${c.postcode} ${c.city}, ${c.state}`;
