import { cancellable, reviewable } from './rules';

const ROLES = ['company_admin', 'approver', 'finance', 'staff'] as const;

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
