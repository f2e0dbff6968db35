import { APPROVERS, BUYERS, requestScopeOf, roleAllows, taxCompletenessOf, taxGate } from './rules';

const ROLES = ['company_admin', 'approver', 'finance', 'staff'] as const;

describe('member rules', () => {
  test.each(ROLES)('%s: approves only as company_admin or approver, checks out only as company_admin or finance', (role) => {
    expect(roleAllows(role, APPROVERS, 'x').ok).toBe(role === 'company_admin' || role === 'approver');
    expect(roleAllows(role, BUYERS, 'x').ok).toBe(role === 'company_admin' || role === 'finance');
    expect(roleAllows(role, [], 'approve')).toEqual({ ok: false, code: 'b2b_role_forbidden', detail: `a ${role} may not approve` });
  });

  test('staff see their own requests, other roles the company', () => {
    expect(ROLES.map(requestScopeOf)).toEqual(['company', 'company', 'company', 'own']);
  });

  test.each([
    ['approved', 'C1', '47711', { complete: true, missingTin: false, missingMsic: false }],
    ['approved', null, '47711', { complete: false, missingTin: true, missingMsic: false }],
    ['approved', 'C1', null, { complete: false, missingTin: false, missingMsic: true }],
    ['pending', null, null, { complete: true, missingTin: true, missingMsic: true }],
    ['rejected', null, null, { complete: true, missingTin: true, missingMsic: true }],
  ])('tax completeness of a %s company with TIN %s and MSIC %s', (status, tin, msicCode, expected) => {
    expect(taxCompletenessOf({ status, tin, msicCode })).toEqual(expected);
  });

  test('the tax gate needs both TIN and MSIC', () => {
    expect(taxGate({ tin: 'C1', msicCode: '47711' })).toEqual({ ok: true });
    expect(taxGate({ tin: null, msicCode: '47711' })).toMatchObject({ ok: false, code: 'tax_incomplete' });
    expect(taxGate({ tin: 'C1', msicCode: null })).toMatchObject({ ok: false, code: 'tax_incomplete' });
  });
});
