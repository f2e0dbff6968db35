import { planReservation, releaseTargets, reservationExpired, reservationReleasable } from './rules';

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

describe('releaseTargets: a price that changed since approval sends the request back to its approver', () => {
  const row = (id: string, unitPrice: string) => ({ id, unitPrice });
  test.each([
    ['not repriced', '249.90', null, { status: 'approved' }],
    ['repriced up', '249.90', '259.90', { status: 'pending', unitPrice: '259.90' }],
    ['repriced down', '249.90', '199.00', { status: 'pending', unitPrice: '199.00' }],
    ['repriced to a cent more', '249.90', '249.91', { status: 'pending', unitPrice: '249.91' }],
    ['"repriced" at the approved price', '249.90', '249.90', { status: 'approved' }],
    ['the same amount written otherwise', '10.50', '10.5', { status: 'approved' }],
    ['a new price written without cents', '10.50', '12', { status: 'pending', unitPrice: '12.00' }],
  ])('%s', (_case, approved, current, target) => {
    const repriced = current === null ? [] : [{ purchaseRequestId: 'a', unitPrice: current }];
    expect(releaseTargets([row('a', approved)], repriced)).toEqual([{ id: 'a', ...target }]);
  });

  test('each row on its own: the unchanged ones of the submit go back to approved; a repriced id not released is ignored', () => {
    expect(
      releaseTargets(
        [row('a', '1.00'), row('b', '2.00'), row('c', '3.00')],
        [
          { purchaseRequestId: 'b', unitPrice: '2.50' },
          { purchaseRequestId: 'z', unitPrice: '9.00' },
        ],
      ),
    ).toEqual([
      { id: 'a', status: 'approved' },
      { id: 'b', status: 'pending', unitPrice: '2.50' },
      { id: 'c', status: 'approved' },
    ]);
    expect(releaseTargets([], [{ purchaseRequestId: 'a', unitPrice: '1.00' }])).toEqual([]);
  });
});
