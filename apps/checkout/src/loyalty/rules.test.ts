import { Prisma } from '../generated/prisma/client';
import { MAX_POINTS_BALANCE, creditablePoints, maxRedeemablePoints, pointsValue } from './rules';

const d = (value: string | number) => new Prisma.Decimal(value);

describe('pointsValue', () => {
  test.each([
    [0, '0.00'],
    [1, '0.01'],
    [100, '1.00'],
    [1234, '12.34'],
  ])('%i points are worth MYR %s', (points, value) => {
    expect(pointsValue(points).toFixed(2)).toBe(value);
  });
});

describe('maxRedeemablePoints', () => {
  test('points pay at most 50% of the subtotal', () => {
    expect(maxRedeemablePoints(d('100.00'), d('100.00'))).toBe(5000);
    expect(maxRedeemablePoints(d('99.99'), d('99.99'))).toBe(4999); // 49.995 → 4999 points (whole points only)
  });

  test('and never more than is left to pay', () => {
    expect(maxRedeemablePoints(d('100.00'), d('12.34'))).toBe(1234);
  });

  test('nothing when nothing is left to pay', () => {
    expect(maxRedeemablePoints(d('100.00'), d(0))).toBe(0);
    expect(maxRedeemablePoints(d(0), d(0))).toBe(0);
  });
});

describe('creditablePoints', () => {
  test.each([
    [0, 500, 500],
    [MAX_POINTS_BALANCE - 100, 500, 100],
    [MAX_POINTS_BALANCE, 500, 0],
    [MAX_POINTS_BALANCE - 1, 1, 1],
    [10, 0, 0],
  ])('balance %i, credit %i → %i', (balance, points, credited) => {
    expect(creditablePoints(balance, points)).toBe(credited);
  });
});
