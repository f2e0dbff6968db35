import type { SubOrderStatus } from '@pasar/contracts';
import { TRANSITIONS, canApply, pageCount, refusalOf, trackingUrlFor, type ShipmentAction } from './rules';

const statuses: SubOrderStatus[] = ['pending_payment', 'paid', 'processing', 'awaiting_pickup', 'shipped', 'delivered', 'cancelled'];

describe('the shipment state machine (DESIGN §5)', () => {
  test.each<[ShipmentAction, SubOrderStatus[], SubOrderStatus]>([
    ['pay', ['pending_payment'], 'paid'],
    ['process', ['paid'], 'processing'],
    ['ship', ['paid', 'processing', 'awaiting_pickup', 'shipped'], 'shipped'],
    ['deliver', ['paid', 'processing', 'awaiting_pickup', 'shipped'], 'delivered'],
    ['cancel', ['paid', 'processing'], 'cancelled'],
    ['book', ['paid', 'processing'], 'awaiting_pickup'],
    ['close', ['pending_payment'], 'cancelled'],
  ])('%s is allowed exactly from %j and leads to %s', (action, allowed, to) => {
    expect(statuses.filter((s) => canApply(action, s))).toEqual(allowed);
    expect(TRANSITIONS[action].to).toBe(to);
  });
});

describe('refusalOf', () => {
  test('cancel outside paid/processing is a 400 invalid_status (spec)', () => {
    expect(refusalOf('cancel', 'shipped')).toMatchObject({ status: 400, code: 'invalid_status' });
  });

  test('delivering a delivered shipment is a 409 already_delivered', () => {
    expect(refusalOf('deliver', 'delivered')).toMatchObject({ status: 409, code: 'already_delivered' });
    expect(refusalOf('deliver', 'cancelled')).toMatchObject({ status: 409, code: 'invalid_status' });
  });

  test('ship and process refusals are 409 invalid_status', () => {
    expect(refusalOf('ship', 'pending_payment')).toMatchObject({ status: 409, code: 'invalid_status' });
    expect(refusalOf('process', 'shipped')).toMatchObject({ status: 409, code: 'invalid_status', detail: 'cannot process a shipment that is shipped' });
  });
});

describe('trackingUrlFor', () => {
  const templates = { carrier_a: 'https://a.example/t?id={trackingId}', carrier_b: 'https://b.example/{trackingId}/status/{trackingId}' };

  test('a given URL wins', () => {
    expect(trackingUrlFor('carrier_a', 'X1', 'https://mine.example/X1', templates)).toBe('https://mine.example/X1');
  });

  test("fills every {trackingId} of the courier's template, URL-encoded", () => {
    expect(trackingUrlFor('carrier_a', 'AB 12/3', undefined, templates)).toBe('https://a.example/t?id=AB%2012%2F3');
    expect(trackingUrlFor('carrier_b', 'B9', null, templates)).toBe('https://b.example/B9/status/B9');
  });

  test('other has no template: null without a given URL', () => {
    expect(trackingUrlFor('other', 'X1', undefined, templates)).toBeNull();
    expect(trackingUrlFor('other', 'X1', 'https://post.example/X1', templates)).toBe('https://post.example/X1');
  });
});

describe('pageCount', () => {
  test('is at least one and rounds up', () => {
    expect(pageCount(0, 20)).toBe(1);
    expect(pageCount(20, 20)).toBe(1);
    expect(pageCount(21, 20)).toBe(2);
  });
});
