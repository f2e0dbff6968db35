import { Prisma } from '../generated/prisma/client';
import { canApply, checkReturnItems, paidValueOf, refundableNow, returnPointsToReverse } from './rules';

const dec = (value: string | number) => new Prisma.Decimal(value);

describe('checkReturnItems', () => {
  const item = (id: string, storeId = 'store-a', subOrderId = 'sub-a') => ({ id, storeId, subOrderId });

  test('items of one store form a return of that store and its sub-order', () => {
    expect(checkReturnItems(['i1', 'i2'], [item('i2'), item('i1')])).toEqual({ ok: true, storeId: 'store-a', subOrderId: 'sub-a' });
  });

  test('an id that is not an item of the order is refused, naming it', () => {
    const check = checkReturnItems(['i1', 'other'], [item('i1')]);
    expect(check).toEqual({ ok: false, code: 'item_not_in_order', detail: expect.stringContaining('other') });
  });

  test('items of two stores are refused', () => {
    expect(checkReturnItems(['i1', 'i2'], [item('i1'), item('i2', 'store-b', 'sub-b')])).toMatchObject({ ok: false, code: 'multiple_stores' });
  });

  test('a missing item is reported before mixed stores', () => {
    expect(checkReturnItems(['i1', 'i2', 'x'], [item('i1'), item('i2', 'store-b', 'sub-b')])).toMatchObject({ code: 'item_not_in_order' });
  });
});

describe('canApply (DESIGN §5 return states)', () => {
  test.each([
    ['approve', 'requested', true],
    ['reject', 'requested', true],
    ['receive', 'approved', true],
    ['refund', 'received', true],
    ['approve', 'approved', false],
    ['approve', 'rejected', false],
    ['reject', 'approved', false],
    ['receive', 'requested', false],
    ['receive', 'rejected', false],
    ['refund', 'approved', false],
    ['refund', 'refunded', false],
    ['refund', 'requested', false],
  ] as const)('%s on a %s return: %s', (action, status, expected) => {
    expect(canApply(action, status)).toBe(expected);
  });
});

describe('paidValueOf', () => {
  test('sums the line totals less their discounts', () => {
    expect(paidValueOf([{ lineTotal: dec('40.00'), discount: dec('3.50') }, { lineTotal: dec('15.25'), discount: dec(0) }]).toFixed(2)).toBe('51.75');
  });

  test('a line never counts below zero, and no lines are worth nothing', () => {
    expect(paidValueOf([{ lineTotal: dec('5.00'), discount: dec('7.00') }]).toFixed(2)).toBe('0.00');
    expect(paidValueOf([]).toFixed(2)).toBe('0.00');
  });
});

describe('refundableNow', () => {
  test('the whole due amount while the payment has room', () => {
    expect(refundableNow(dec('100.00'), dec('20.00'), dec('30.00')).toFixed(2)).toBe('30.00');
  });

  test('clamped to what is left of the amount', () => {
    expect(refundableNow(dec('100.00'), dec('80.00'), dec('30.00')).toFixed(2)).toBe('20.00');
  });

  test('nothing once the amount is refunded (never negative)', () => {
    expect(refundableNow(dec('100.00'), dec('100.00'), dec('30.00')).toFixed(2)).toBe('0.00');
    expect(refundableNow(dec('100.00'), dec('120.00'), dec('30.00')).toFixed(2)).toBe('0.00');
  });
});

describe('returnPointsToReverse', () => {
  test('the share of the earned points that the refunded lines paid for, rounded down', () => {
    expect(returnPointsToReverse(99, dec('99.90'), dec(0), dec('20.00'))).toBe(19);
  });

  test('cumulative: refunding every line in parts takes back exactly what was earned', () => {
    const earned = 99;
    const paid = dec('99.90');
    const parts = [dec('33.30'), dec('33.30'), dec('33.30')];
    let before = dec(0);
    let taken = 0;
    for (const part of parts) {
      taken += returnPointsToReverse(earned, paid, before, part);
      before = before.plus(part);
    }
    expect(taken).toBe(earned);
  });

  test('nothing when nothing was earned or nothing was paid', () => {
    expect(returnPointsToReverse(0, dec('50.00'), dec(0), dec('50.00'))).toBe(0);
    expect(returnPointsToReverse(10, dec(0), dec(0), dec('5.00'))).toBe(0);
  });

  test('never more than was earned, even when the refunded parts exceed the paid subtotal', () => {
    expect(returnPointsToReverse(50, dec('50.00'), dec('40.00'), dec('30.00'))).toBe(10);
  });
});
