import { oneLineAddress, publicUrl, companyTaxIds, reviewable as companyReviewable } from './companies/rules';
import { requestScopeOf, roleAllows, taxCompletenessOf, taxGate, APPROVERS, BUYERS } from './members/rules';
import { laterStatus, monthOf, startOfMonth } from './orders/rules';
import { cancellable, reviewable } from './purchase-requests/rules';
import { planReservation, reservationExpired } from './reservations/rules';
import { invitable, inviteIdempotencyKey, setupUrl } from './teams/rules';

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

describe('company rules', () => {
  test('review only from pending', () => {
    expect(companyReviewable('pending')).toEqual({ ok: true });
    expect(companyReviewable('approved')).toMatchObject({ ok: false, code: 'not_pending' });
    expect(companyReviewable('rejected')).toMatchObject({ ok: false, code: 'not_pending' });
  });

  test('TIN normalised, MSIC five digits', () => {
    expect(companyTaxIds('c-00123 45678', ' 47711')).toEqual({ ok: true, tin: 'C12345678', msicCode: '47711' });
    expect(companyTaxIds('IG12345678901', '47711')).toMatchObject({ ok: true, tin: 'IG12345678901' });
    expect(companyTaxIds('ZZ1', '47711')).toMatchObject({ ok: false, code: 'invalid_tin' });
    expect(companyTaxIds('C1', '4771')).toMatchObject({ ok: false, code: 'invalid_msic' });
    expect(companyTaxIds('C1', 'abcde')).toMatchObject({ ok: false, code: 'invalid_msic' });
  });

  test('public URLs and the one-line address', () => {
    expect(publicUrl('https://cdn.example/public/', '/certs/a.pdf')).toBe('https://cdn.example/public/certs/a.pdf');
    expect(publicUrl('https://cdn.example', null)).toBeNull();
    expect(oneLineAddress({ addressLine1: '1 Jalan A', city: 'Ipoh', postcode: '30000', state: 'Perak' })).toBe('1 Jalan A, 30000 Ipoh, Perak');
  });
});

describe('purchase request rules', () => {
  const request = (status: 'pending' | 'approved' | 'rejected' | 'checkout_pending' | 'paid' | 'cancelled', requesterId = 'r') => ({ status, requesterId });

  test.each(ROLES)('review by %s', (role) => {
    const allowed = role === 'company_admin' || role === 'approver';
    expect(reviewable(request('pending'), { userId: 'x', role })).toEqual(allowed ? { ok: true } : expect.objectContaining({ code: 'b2b_role_forbidden' }));
  });

  test('never your own request; only from pending', () => {
    expect(reviewable(request('pending', 'me'), { userId: 'me', role: 'company_admin' })).toMatchObject({ code: 'own_request' });
    for (const status of ['approved', 'rejected', 'checkout_pending', 'paid', 'cancelled'] as const) {
      expect(reviewable(request(status), { userId: 'x', role: 'approver' })).toMatchObject({ code: 'not_pending' });
    }
  });

  test('cancel by the requester while pending or approved', () => {
    expect(cancellable(request('pending', 'me'), 'me')).toEqual({ ok: true });
    expect(cancellable(request('approved', 'me'), 'me')).toEqual({ ok: true });
    expect(cancellable(request('pending', 'me'), 'other')).toMatchObject({ code: 'not_requester' });
    for (const status of ['rejected', 'checkout_pending', 'paid', 'cancelled'] as const) {
      expect(cancellable(request(status, 'me'), 'me')).toMatchObject({ code: 'not_cancellable' });
    }
  });
});

describe('reservation rules', () => {
  const row = (id: string, status: 'approved' | 'pending' | 'checkout_pending' | 'paid', reservationId: string | null = null, companyId = 'c') => ({ id, companyId, status, reservationId });
  const finance = { companyId: 'c', role: 'finance' as const };

  test('reserves approved requests of the caller company', () => {
    expect(planReservation(['a', 'b'], [row('a', 'approved'), row('b', 'approved')], finance, 'r')).toEqual({ ok: true, action: 'reserve' });
  });

  test('a repeat of the same reservation, held or confirmed, answers it again', () => {
    expect(planReservation(['a', 'b'], [row('a', 'checkout_pending', 'r'), row('b', 'paid', 'r')], finance, 'r')).toEqual({ ok: true, action: 'repeat' });
    expect(planReservation(['a'], [row('a', 'checkout_pending', 'other')], finance, 'r')).toMatchObject({ code: 'not_approved' });
  });

  test('not_found for a missing request, another company, no membership; forbidden for staff and approvers', () => {
    expect(planReservation(['a', 'b'], [row('a', 'approved')], finance, 'r')).toMatchObject({ code: 'not_found' });
    expect(planReservation(['a'], [row('a', 'approved', null, 'other')], finance, 'r')).toMatchObject({ code: 'not_found' });
    expect(planReservation(['a'], [row('a', 'approved')], null, 'r')).toMatchObject({ code: 'not_found' });
    expect(planReservation(['a'], [row('a', 'approved')], { companyId: 'c', role: 'staff' }, 'r')).toMatchObject({ code: 'forbidden' });
    expect(planReservation(['a'], [row('a', 'approved')], { companyId: 'c', role: 'approver' }, 'r')).toMatchObject({ code: 'forbidden' });
    expect(planReservation(['a'], [row('a', 'approved')], { companyId: 'c', role: 'company_admin' }, 'r')).toMatchObject({ ok: true });
    expect(planReservation(['a', 'b'], [row('a', 'approved'), row('b', 'pending')], finance, 'r')).toMatchObject({ code: 'not_approved' });
  });

  test('a reservation expires after the TTL', () => {
    const reservedAt = new Date('2026-01-01T00:00:00Z');
    expect(reservationExpired(reservedAt, new Date('2026-01-01T00:09:59Z'), 600_000)).toBe(false);
    expect(reservationExpired(reservedAt, new Date('2026-01-01T00:10:00Z'), 600_000)).toBe(true);
  });
});

describe('order rules', () => {
  test('status never moves back; final statuses stay', () => {
    expect(laterStatus(null, 'pending_payment')).toBe('pending_payment');
    expect(laterStatus('pending_payment', 'paid')).toBe('paid');
    expect(laterStatus('shipped', 'paid')).toBe('shipped');
    expect(laterStatus('paid', 'cancelled')).toBe('cancelled');
    expect(laterStatus('cancelled', 'shipped')).toBe('cancelled');
    expect(laterStatus('delivered', 'cancelled')).toBe('delivered');
    expect(laterStatus('payment_failed', 'paid')).toBe('paid');
  });

  test('UTC months', () => {
    expect(monthOf(new Date('2026-03-31T23:59:59Z'))).toBe('2026-03');
    expect(startOfMonth(new Date('2026-03-31T23:59:59Z')).toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });
});

describe('team rules', () => {
  test('invitable unless active here or current elsewhere; a pending invite may be repeated', () => {
    expect(invitable('c', [])).toEqual({ ok: true });
    expect(invitable('c', [{ companyId: 'c', status: 'pending' }])).toEqual({ ok: true });
    expect(invitable('c', [{ companyId: 'c', status: 'inactive' }])).toEqual({ ok: true });
    expect(invitable('c', [{ companyId: 'c', status: 'active' }])).toMatchObject({ code: 'already_member' });
    expect(invitable('c', [{ companyId: 'd', status: 'pending' }])).toMatchObject({ code: 'already_in_company' });
    expect(invitable('c', [{ companyId: 'd', status: 'inactive' }])).toEqual({ ok: true });
  });

  test('the invite key is per company and lower-cased e-mail; the setup link', () => {
    expect(inviteIdempotencyKey('c1', 'A.B@Example.TEST')).toBe('b2b-invite:c1:a.b@example.test');
    expect(setupUrl('https://app.example/x')).toBe('https://app.example/account/setup');
  });
});
