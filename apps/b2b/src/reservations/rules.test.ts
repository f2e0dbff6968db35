import { planReservation, reservationExpired, reservationReleasable } from './rules';

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

describe('releasing an expired reservation', () => {
  test('only when it placed no order, or its order ended unpaid', () => {
    expect(reservationReleasable(null)).toBe(true);
    for (const status of ['cancelled', 'expired', 'payment_failed'] as const) expect(reservationReleasable(status)).toBe(true);
    for (const status of ['pending_payment', 'paid', 'shipped', 'delivered'] as const) expect(reservationReleasable(status)).toBe(false);
  });
});
