import type { B2bRole } from '@pasar/contracts';
import type { Refusal } from '@pasar/service-kit';

/** A refusal the business expects (STYLE §4): defined once in service-kit, re-exported for b2b's rules. */
export type { Refusal };
export type Allowed = { ok: true };

/** DESIGN §7 roles: who may do what in a company. */
export const APPROVERS: readonly B2bRole[] = ['company_admin', 'approver'];
export const BUYERS: readonly B2bRole[] = ['company_admin', 'finance'];
export const INVITERS: readonly B2bRole[] = ['company_admin'];
export const COMPANY_EDITORS: readonly B2bRole[] = ['company_admin'];
export const FINANCE_READERS: readonly B2bRole[] = ['company_admin', 'finance'];

/** The caller's company role is one of `roles`. */
export function roleAllows(role: B2bRole, roles: readonly B2bRole[], what: string): Allowed | Refusal<'b2b_role_forbidden'> {
  return roles.includes(role) ? { ok: true } : { ok: false, code: 'b2b_role_forbidden', detail: `a ${role} may not ${what}` };
}

/** Staff see their own requests in dashboards and recent lists; every other role the company's. */
export const requestScopeOf = (role: B2bRole): 'own' | 'company' => (role === 'staff' ? 'own' : 'company');

/** Tax gate (DESIGN §6): a company needs its TIN and MSIC code to raise requests and check out. */
export function taxCompletenessOf(company: { status: string; tin: string | null; msicCode: string | null }) {
  const missingTin = !company.tin;
  const missingMsic = !company.msicCode;
  // pending and rejected companies always answer complete (spec)
  if (company.status !== 'approved') return { complete: true, missingTin, missingMsic };
  return { complete: !missingTin && !missingMsic, missingTin, missingMsic };
}

export function taxGate(company: { tin: string | null; msicCode: string | null }): Allowed | Refusal<'tax_incomplete'> {
  if (company.tin && company.msicCode) return { ok: true };
  return { ok: false, code: 'tax_incomplete', detail: 'the company needs its TIN and MSIC code first (PATCH /b2b/companies/{id})' };
}
