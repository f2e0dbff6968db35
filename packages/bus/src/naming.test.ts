import { streamOf } from '@pasar/contracts';
import { Naming } from './naming';

describe('Naming', () => {
  test('the empty namespace gives the plain DESIGN names', () => {
    const n = new Naming('');
    expect(n.subject('identity.user.upserted')).toBe('identity.user.upserted');
    expect(n.stream('IDENTITY')).toBe('IDENTITY');
    expect(n.streamSubjects('NOTIFY')).toEqual(['notify.>']);
  });

  test('a namespace prefixes subjects and streams', () => {
    const n = new Naming('t1a2');
    expect(n.subject('checkout.order.paid')).toBe('t1a2.checkout.order.paid');
    expect(n.typeOf('t1a2.checkout.order.paid')).toBe('checkout.order.paid');
    expect(n.stream('CHECKOUT')).toBe('T1A2_CHECKOUT');
    expect(n.streamSubjects('CHECKOUT')).toEqual(['t1a2.checkout.>']);
  });

  test('durable names lose characters NATS refuses', () => {
    expect(new Naming('').durable('checkout', 'user.replica')).toBe('checkout_user_replica');
  });

  test.each(['Upper', '1abc', 'a.b', 'a-b', 'x'.repeat(42)])('namespace %p is refused', (ns) => {
    expect(() => new Naming(ns)).toThrow(/bad NATS namespace/);
  });

  test('every event type maps to its domain stream', () => {
    expect(streamOf('identity.user.upserted')).toBe('IDENTITY');
    expect(streamOf('notify.email.requested')).toBe('NOTIFY');
    expect(streamOf('vendor.shipment.status_changed')).toBe('VENDOR');
    expect(() => streamOf('nowhere.thing')).toThrow(/no stream/);
  });
});
