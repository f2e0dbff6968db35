import { laterStatus, monthOf, startOfMonth } from './rules';

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
