import { z } from 'zod';
import { checkoutOrderCreated } from './commerce';
import { defineEvent, eventFilterOf, eventSubjectOf } from './messaging';

describe('routed events (EventRoute)', () => {
  test('checkout.order.created goes out on .b2b for a B2B order and on .retail for every other', () => {
    expect(eventSubjectOf(checkoutOrderCreated.type, { isB2b: true })).toBe('checkout.order.created.b2b');
    expect(eventSubjectOf(checkoutOrderCreated.type, { isB2b: false })).toBe('checkout.order.created.retail');
    // unchecked data (a relay publishes rows as they are): anything but isB2b === true is retail
    for (const odd of [undefined, null, 'x', { isB2b: 'true' }, {}]) expect(eventSubjectOf(checkoutOrderCreated.type, odd)).toBe('checkout.order.created.retail');
  });

  test('an unrouted type goes out on its type', () => {
    expect(eventSubjectOf('checkout.order.paid', { isB2b: true })).toBe('checkout.order.paid');
  });

  test('a consumer listens on every part of a routed type, or on one; an unknown key or a key of an unrouted type is refused', () => {
    expect(eventFilterOf(checkoutOrderCreated)).toBe('checkout.order.created.*');
    expect(eventFilterOf(checkoutOrderCreated, 'b2b')).toBe('checkout.order.created.b2b');
    expect(() => eventFilterOf(checkoutOrderCreated, 'wholesale')).toThrow(/no route key "wholesale"/);
    expect(eventFilterOf({ type: 'checkout.order.paid' })).toBe('checkout.order.paid');
    expect(() => eventFilterOf({ type: 'checkout.order.paid' }, 'b2b')).toThrow(/not routed/);
  });

  test('route keys must be subject tokens, and a type is routed once', () => {
    const keyOf = () => 'a';
    expect(() => defineEvent('test.routed.bad_key', z.object({}), { route: { keys: ['B2B.x'], keyOf } })).toThrow(/bad route key/);
    defineEvent('test.routed.once', z.object({}), { route: { keys: ['a'], keyOf } });
    expect(() => defineEvent('test.routed.once', z.object({}), { route: { keys: ['a'], keyOf } })).toThrow(/routed twice/);
  });
});
