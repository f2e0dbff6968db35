import { b2bOrderOwner, FEED_EVENTS, FEED_FILTERS, formatEventId, isFinalOrderStatus, keysOf, livePathOf, parseEventId, planResume, sseFrame } from './rules';

const ORDER = '0b6f8f3e-4f7a-4c1e-9d7e-2f1a3b4c5d6e';
const bounds = (c: [number, number], v: [number, number]) => ({ CHECKOUT: { firstSeq: c[0], lastSeq: c[1] }, VENDOR: { firstSeq: v[0], lastSeq: v[1] } });

describe('event ids', () => {
  it('round-trips a position', () => {
    expect(formatEventId({ CHECKOUT: 42, VENDOR: 7 })).toBe('42-7');
    expect(parseEventId('42-7')).toEqual({ CHECKOUT: 42, VENDOR: 7 });
    expect(parseEventId(' 0-0 ')).toEqual({ CHECKOUT: 0, VENDOR: 0 });
  });

  it.each([undefined, '', 'abc', '42', '42-', '-7', '1-2-3', '1.5-2', '99999999999999999-1', '<script>'])('ignores the malformed id %p', (text) => {
    expect(parseEventId(text)).toBeUndefined();
  });
});

describe('planResume', () => {
  it('starts with a snapshot at the streams’ ends without a Last-Event-ID', () => {
    expect(planResume(undefined, bounds([1, 10], [1, 5]), 100)).toEqual({ kind: 'snapshot', reason: 'no_last_event_id', at: { CHECKOUT: 10, VENDOR: 5 } });
  });

  it('replays a gap that JetStream still holds', () => {
    expect(planResume({ CHECKOUT: 8, VENDOR: 5 }, bounds([1, 10], [1, 5]), 100)).toEqual({
      kind: 'replay',
      from: { CHECKOUT: 8, VENDOR: 5 },
      to: { CHECKOUT: 10, VENDOR: 5 },
    });
  });

  it('replays nothing when the client saw everything', () => {
    expect(planResume({ CHECKOUT: 10, VENDOR: 5 }, bounds([1, 10], [1, 5]), 0)).toMatchObject({ kind: 'replay' });
  });

  it('takes a snapshot when the first missing message was pruned', () => {
    expect(planResume({ CHECKOUT: 3, VENDOR: 5 }, bounds([5, 10], [1, 5]), 100)).toMatchObject({ kind: 'snapshot', reason: 'gap_pruned' });
    // the message right after the seen one is the first kept: still a replay
    expect(planResume({ CHECKOUT: 4, VENDOR: 5 }, bounds([5, 10], [1, 5]), 100)).toMatchObject({ kind: 'replay' });
    // an emptied stream (first = last + 1) with nothing missed: still a replay
    expect(planResume({ CHECKOUT: 10, VENDOR: 5 }, bounds([11, 10], [1, 5]), 100)).toMatchObject({ kind: 'replay' });
  });

  it('takes a snapshot when the gap is longer than the replay bound (both streams count)', () => {
    expect(planResume({ CHECKOUT: 5, VENDOR: 2 }, bounds([1, 10], [1, 5]), 7)).toMatchObject({ kind: 'snapshot', reason: 'gap_too_long' });
    expect(planResume({ CHECKOUT: 5, VENDOR: 2 }, bounds([1, 10], [1, 5]), 8)).toMatchObject({ kind: 'replay' });
  });

  it('takes a snapshot for an id ahead of the streams (they were recreated)', () => {
    expect(planResume({ CHECKOUT: 11, VENDOR: 5 }, bounds([1, 10], [1, 5]), 100)).toMatchObject({ kind: 'snapshot', reason: 'id_ahead' });
  });
});

describe('livePathOf', () => {
  it('names the three streams', () => {
    expect(livePathOf(`/account/orders/${ORDER}/events`)).toEqual({ kind: 'order', orderId: ORDER });
    expect(livePathOf(`/account/orders/${ORDER.toUpperCase()}/events`)).toEqual({ kind: 'order', orderId: ORDER });
    expect(livePathOf('/vendor/shipments/events')).toEqual({ kind: 'vendor' });
    expect(livePathOf(`/b2b/${ORDER}/orders/events`)).toEqual({ kind: 'b2b', companyId: ORDER });
  });

  it('flags a malformed id', () => {
    expect(livePathOf('/account/orders/nope/events')).toMatchObject({ kind: 'malformed' });
    expect(livePathOf('/b2b/nope/orders/events')).toMatchObject({ kind: 'malformed' });
  });

  it.each(['/account/orders', `/account/orders/${ORDER}`, '/vendor/shipments', `/vendor/shipments/${ORDER}`, '/b2b/orders/events', `/account/orders/${ORDER}/events/x`])(
    'leaves %s to the route table',
    (path) => expect(livePathOf(path)).toBeUndefined(),
  );
});

describe('the rest', () => {
  it('ends on a final order status only', () => {
    expect(['delivered', 'cancelled', 'expired'].every(isFinalOrderStatus)).toBe(true);
    expect(['pending_payment', 'paid', 'processing', 'partially_shipped', 'shipped', 'payment_failed', undefined].some(isFinalOrderStatus)).toBe(false);
  });

  it('writes one frame per event', () => {
    expect(sseFrame('payment', '3-1', { a: 'x\ny' })).toBe('event: payment\nid: 3-1\ndata: {"a":"x\\ny"}\n\n');
  });

  it('keys an event by its order, its store and its B2B company (unnamed: `b2b`)', () => {
    expect(keysOf('vendor.shipment.status_changed', { orderId: 'o', storeId: 's' })).toEqual(['order:o', 'store:s']);
    expect(keysOf('checkout.order.paid', { orderId: 'o', isB2b: true, companyId: 'C-1' })).toEqual(['order:o', 'b2b:c-1']);
    expect(keysOf('checkout.order.paid', { orderId: 'o', isB2b: true, companyId: null })).toEqual(['order:o', 'b2b']);
    expect(keysOf('checkout.order.status_changed', { orderId: 'o', isB2b: true })).toEqual(['order:o', 'b2b']);
    expect(keysOf('checkout.order.paid', { orderId: 'o', isB2b: false, companyId: null })).toEqual(['order:o']);
  });

  it('tells whose a B2B order is from its event, or that only b2b can say', () => {
    expect(b2bOrderOwner({ companyId: 'AB-1' }, 'ab-1')).toBe('this');
    expect(b2bOrderOwner({ companyId: 'ab-2' }, 'ab-1')).toBe('another');
    for (const unnamed of [{}, { companyId: null }, { companyId: 7 }]) expect(b2bOrderOwner(unnamed, 'ab-1')).toBe('unknown');
  });
});

describe('FEED_FILTERS', () => {
  it('takes in every followed event type of its stream', () => {
    const matches = (filter: string, subject: string) => {
      const f = filter.split('.');
      const s = subject.split('.');
      return f.length === s.length && f.every((part, i) => part === '*' || part === s[i]);
    };
    for (const [type, { stream }] of Object.entries(FEED_EVENTS)) expect(matches(FEED_FILTERS[stream], type)).toBe(true);
  });
});
