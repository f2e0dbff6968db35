import { laterStatus, monthOf, orderEndedUnpaid, orderHoldsRequests, startOfMonth } from './rules';

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

describe('orders ending unpaid and orders holding their requests', () => {
  test('expired and payment_failed end an order unpaid; paid, cancelled and the rest do not', () => {
    expect(['expired', 'payment_failed'].every(orderEndedUnpaid)).toBe(true);
    expect(['pending_payment', 'paid', 'shipped', 'cancelled'].some(orderEndedUnpaid)).toBe(false);
  });

  test('an order holds its requests only when all are checkout_pending under the reservation that placed it', () => {
    const held = (reservationId: string | null, status = 'checkout_pending') => ({ status, reservationId });
    expect(orderHoldsRequests('o', 2, [held('r'), held('r')], 'o')).toBe(true);
    expect(orderHoldsRequests('o', 2, [held('r'), held('r')], 'other')).toBe(false);
    expect(orderHoldsRequests('o', 2, [held('r'), held('r')], null)).toBe(false);
    expect(orderHoldsRequests('o', 2, [held('r'), held('s')], 'o')).toBe(false);
    expect(orderHoldsRequests('o', 2, [held('r')], 'o')).toBe(false);
    expect(orderHoldsRequests('o', 1, [held(null, 'approved')], 'o')).toBe(false);
    expect(orderHoldsRequests('o', 1, [held('r', 'paid')], 'o')).toBe(false);
  });
});
