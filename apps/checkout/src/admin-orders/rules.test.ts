import { orderQueryOf, orderTimeline, type TimelineFacts } from './rules';

describe('orderQueryOf', () => {
  test.each([
    ['0B7C5A8E-4D2F-4E55-9A53-1F0E4A1B2C3D', { kind: 'id', id: '0b7c5a8e-4d2f-4e55-9a53-1f0e4a1b2c3d' }],
    ['PSR-ABCD2345', { kind: 'short_id', shortId: 'PSR-ABCD2345' }],
    [' psr-abcd2345 ', { kind: 'short_id', shortId: 'PSR-ABCD2345' }],
    ['Siti.Aminah@Example.COM', { kind: 'email', email: 'siti.aminah@example.com' }],
    ['kopi', { ok: false, code: 'unusable_query' }],
    ['PSR-ABCD234', { ok: false, code: 'unusable_query' }],
    ['PSR-ABCD2341', { ok: false, code: 'unusable_query' }],
    ['siti@localhost', { ok: false, code: 'unusable_query' }],
    ['0b7c5a8e-4d2f-4e55-9a53', { ok: false, code: 'unusable_query' }],
  ])('%s', (q, expected) => {
    expect(orderQueryOf(q)).toMatchObject(expected);
  });
});

describe('orderTimeline', () => {
  const t = (minute: number) => new Date(Date.UTC(2026, 11, 1, 10, minute));
  const base: TimelineFacts = {
    order: { createdAt: t(0), paidAt: null, status: 'pending_payment', expiresAt: t(30), updatedAt: t(0) },
    notifications: [],
    subOrders: [],
    returns: [],
  };

  test('a placed order only', () => {
    expect(orderTimeline(base)).toEqual([{ at: t(0).toISOString(), kind: 'order_placed', subject: null, detail: 'order placed' }]);
  });

  test('an expired order says so at its last change', () => {
    const timeline = orderTimeline({ ...base, order: { ...base.order, status: 'expired', updatedAt: t(31) } });
    expect(timeline.map((e) => [e.kind, e.at])).toEqual([
      ['order_placed', t(0).toISOString()],
      ['order_expired', t(31).toISOString()],
    ]);
  });

  test('every fact in time order; at the same time, the notification before paid, shipped before delivered', () => {
    const timeline = orderTimeline({
      order: { ...base.order, status: 'delivered', paidAt: t(5) },
      notifications: [
        { transactionId: 'TX-2', status: '00', verified: true, receivedAt: t(5) },
        { transactionId: 'TX-1', status: '11', verified: false, receivedAt: t(3) },
      ],
      subOrders: [
        { id: 'sub-a', storeName: 'Kedai A', shippedAt: t(10), deliveredAt: t(10), cancelledAt: null, courier: 'carrier_a', trackingId: 'TA' },
        { id: 'sub-b', storeName: null, shippedAt: null, deliveredAt: null, cancelledAt: t(8), courier: null, trackingId: null },
      ],
      returns: [{ id: 'ret-1', status: 'refunded', reason: 'damaged', createdAt: t(20), vendorReviewedAt: t(21), receivedAt: t(22), refundedAt: t(23), refundAmount: '15.00' }],
    });
    expect(timeline.map((e) => `${e.kind}:${e.subject ?? ''}`)).toEqual([
      'order_placed:',
      'payment_notification:TX-1',
      'payment_notification:TX-2',
      'order_paid:',
      'sub_order_cancelled:sub-b',
      'sub_order_shipped:sub-a',
      'sub_order_delivered:sub-a',
      'return_requested:ret-1',
      'return_reviewed:ret-1',
      'return_received:ret-1',
      'return_refunded:ret-1',
    ]);
    expect(timeline[1].detail).toBe('payment notification 11 (NOT verified)');
    expect(timeline[4].detail).toBe('store of sub-order sub-b: cancelled');
    expect(timeline[8].detail).toBe('return approved by the store');
    expect(timeline[10].detail).toBe('refunded MYR 15.00');
  });

  test('a rejected return reads rejected', () => {
    const timeline = orderTimeline({ ...base, returns: [{ id: 'r', status: 'rejected', reason: 'other', createdAt: t(1), vendorReviewedAt: t(2), receivedAt: null, refundedAt: null, refundAmount: null }] });
    expect(timeline.map((e) => e.detail)).toEqual(['order placed', 'return requested (other)', 'return rejected by the store']);
  });
});
