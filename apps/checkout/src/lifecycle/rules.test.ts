import { randomUUID } from 'node:crypto';
import { orderStatusSchema, subOrderStatusSchema, type OrderStatus, type SubOrderStatus } from '@pasar/contracts';
import { Prisma } from '../generated/prisma/client';
import { acceptsShipmentStatus, advanceParentStatus, familyCartItemIdsOf, holdingsToRelease, parentStatusOf, pointsEarnedFor, pointsToReverse, redeemedPointsToGiveBack, stockToRelease, type WeightedSubOrder } from './rules';

const SUB_STATUSES = subOrderStatusSchema.options;
const ORDER_STATUSES = orderStatusSchema.options;
const PROGRESS: OrderStatus[] = ['paid', 'processing', 'partially_shipped', 'shipped', 'delivered'];

/** Every ordered list of 1 to `max` sub-order statuses. */
function combinations(max: number): SubOrderStatus[][] {
  let level: SubOrderStatus[][] = [[]];
  const all: SubOrderStatus[][] = [];
  for (let n = 1; n <= max; n += 1) {
    level = level.flatMap((prefix) => SUB_STATUSES.map((s) => [...prefix, s]));
    all.push(...level);
  }
  return all;
}

/** DESIGN §5 restated by counting, as an independent oracle. */
function expectedParent(subs: SubOrderStatus[]): OrderStatus {
  const count = (...statuses: SubOrderStatus[]) => subs.filter((s) => statuses.includes(s)).length;
  const live = subs.length - count('cancelled');
  if (live === 0) return 'cancelled';
  if (count('delivered') === live) return 'delivered';
  if (count('shipped', 'delivered') === live) return 'shipped';
  if (count('shipped', 'delivered') > 0) return 'partially_shipped';
  if (count('processing', 'awaiting_pickup') > 0) return 'processing';
  return 'paid';
}

function expectedAdvance(current: OrderStatus, subs: SubOrderStatus[]): OrderStatus {
  if (!PROGRESS.includes(current)) return current;
  const target = expectedParent(subs);
  if (target === 'cancelled') return 'cancelled';
  return PROGRESS.indexOf(target) > PROGRESS.indexOf(current) ? target : current;
}

describe('advanceParentStatus over every combination of sub-order statuses', () => {
  test.each([1, 2, 3])('%i sub-order(s): every combination, from every parent status, matches DESIGN §5', (n) => {
    const combos = combinations(n).filter((c) => c.length === n);
    expect(combos).toHaveLength(SUB_STATUSES.length ** n);
    const mismatches: string[] = [];
    for (const subs of combos) {
      for (const current of ORDER_STATUSES) {
        const got = advanceParentStatus(current, subs);
        const want = expectedAdvance(current, subs);
        if (got !== want) mismatches.push(`${current} + [${subs.join(', ')}] → ${got}, want ${want}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  test('never moves a paid order backwards, and only ever to cancelled outside the progression', () => {
    for (const subs of combinations(3)) {
      for (const current of PROGRESS) {
        const next = advanceParentStatus(current, subs);
        if (next === 'cancelled') expect(subs.every((s) => s === 'cancelled')).toBe(true);
        else expect(PROGRESS.indexOf(next)).toBeGreaterThanOrEqual(PROGRESS.indexOf(current));
      }
    }
  });

  test('does not depend on the order of the sub-orders', () => {
    for (const subs of combinations(3)) {
      expect(parentStatusOf([...subs].reverse())).toBe(parentStatusOf(subs));
    }
  });

  test.each<[OrderStatus, SubOrderStatus[], OrderStatus]>([
    ['paid', ['paid', 'paid'], 'paid'],
    ['paid', ['processing', 'paid'], 'processing'],
    ['paid', ['awaiting_pickup', 'paid'], 'processing'],
    ['processing', ['shipped', 'processing'], 'partially_shipped'],
    ['partially_shipped', ['shipped', 'shipped'], 'shipped'],
    ['shipped', ['delivered', 'shipped'], 'shipped'],
    ['shipped', ['delivered', 'delivered'], 'delivered'],
    ['paid', ['delivered', 'cancelled'], 'delivered'],
    ['processing', ['cancelled', 'paid'], 'processing'],
    ['partially_shipped', ['shipped', 'cancelled'], 'shipped'],
    ['paid', ['cancelled', 'cancelled'], 'cancelled'],
    ['shipped', ['cancelled'], 'cancelled'],
    ['delivered', ['shipped', 'shipped'], 'delivered'],
    ['pending_payment', ['shipped'], 'pending_payment'],
    ['expired', ['cancelled'], 'expired'],
    ['cancelled', ['delivered'], 'cancelled'],
    ['payment_failed', ['processing'], 'payment_failed'],
  ])('%s with [%s] → %s', (current, subs, next) => {
    expect(advanceParentStatus(current, subs)).toBe(next);
  });
});

describe('acceptsShipmentStatus', () => {
  test.each<[SubOrderStatus, SubOrderStatus, boolean]>([
    ['paid', 'processing', true],
    ['processing', 'awaiting_pickup', true],
    ['awaiting_pickup', 'shipped', true],
    ['shipped', 'shipped', true],
    ['shipped', 'delivered', true],
    ['pending_payment', 'paid', true],
    ['paid', 'cancelled', true],
    ['processing', 'cancelled', true],
    ['shipped', 'processing', false],
    ['delivered', 'shipped', false],
    ['delivered', 'cancelled', false],
    ['cancelled', 'cancelled', false],
    ['cancelled', 'paid', false],
    ['cancelled', 'delivered', false],
  ])('%s → %s: %s', (current, next, accepted) => {
    expect(acceptsShipmentStatus(current, next)).toBe(accepted);
  });
});

describe('pointsToReverse', () => {
  const sub = (id: string, paid: string, cancelled = false): WeightedSubOrder => ({ id, paidSubtotal: new Prisma.Decimal(paid), cancelled });

  test('a single sub-order takes back everything earned', () => {
    expect(pointsToReverse(95, [sub('a', '95.00')], 'a')).toBe(95);
  });

  test('takes the cancelled share by paid subtotal, rounding down', () => {
    expect(pointsToReverse(95, [sub('a', '44.00'), sub('b', '51.00')], 'a')).toBe(44);
    expect(pointsToReverse(10, [sub('a', '1.00'), sub('b', '2.00')], 'a')).toBe(3);
  });

  test('cancelling every sub-order, one after the other, takes back exactly what was earned', () => {
    const list = [sub('a', '1.00'), sub('b', '1.00'), sub('c', '1.00')];
    let taken = 0;
    for (const s of list) {
      taken += pointsToReverse(10, list, s.id);
      s.cancelled = true;
    }
    expect(taken).toBe(10);
  });

  test.each([
    ['nothing was earned', 0, [sub('a', '10.00')], 'a'],
    ['the sub-order was cancelled already', 10, [sub('a', '10.00', true)], 'a'],
    ['the sub-order is not the order’s', 10, [sub('a', '10.00')], 'zzz'],
    ['the paid subtotals are zero', 10, [sub('a', '0.00')], 'a'],
  ])('is 0 when %s', (_case, earned, list, id) => {
    expect(pointsToReverse(earned, list, id)).toBe(0);
  });
});

describe('holdingsToRelease', () => {
  test('adds up stock per row (variant when the line had one) in a fixed order: products, then variants, by id', () => {
    const stock = stockToRelease([
      { productId: 'p2', variantId: null, quantity: 1 },
      { productId: 'p1', variantId: 'v9', quantity: 2 },
      { productId: 'p1', variantId: 'v3', quantity: 1 },
      { productId: 'p2', variantId: null, quantity: 4 },
      { productId: 'p0', variantId: null, quantity: 1 },
    ]);
    expect(stock).toEqual([
      { kind: 'product', id: 'p0', quantity: 1 },
      { kind: 'product', id: 'p2', quantity: 5 },
      { kind: 'variant', id: 'v3', quantity: 1 },
      { kind: 'variant', id: 'v9', quantity: 2 },
    ]);
  });

  test('counts one voucher and one KOL use per order and returns each order’s redeemed points', () => {
    const holdings = holdingsToRelease(
      [
        { id: 'o2', customerId: 'c1', voucherId: 'v1', kolCodeId: null, pointsRedeemed: 100 },
        { id: 'o1', customerId: 'c1', voucherId: 'v1', kolCodeId: 'k1', pointsRedeemed: 0 },
        { id: 'o3', customerId: 'c0', voucherId: null, kolCodeId: 'k1', pointsRedeemed: 50 },
      ],
      [],
    );
    expect(holdings).toEqual({
      stock: [],
      vouchers: [{ id: 'v1', uses: 2 }],
      kolCodes: [{ id: 'k1', uses: 2 }],
      points: [
        { customerId: 'c0', orderId: 'o3', points: 50 },
        { customerId: 'c1', orderId: 'o2', points: 100 },
      ],
    });
  });
});

describe('redeemedPointsToGiveBack', () => {
  const sub = (id: string, paid: string, cancelled = false): WeightedSubOrder => ({ id, paidSubtotal: new Prisma.Decimal(paid), cancelled });

  test('gives back the cancelled share of the redeemed points by paid subtotal; all of them once every sub-order is cancelled', () => {
    const list = [sub('a', '44.00'), sub('b', '51.00')];
    expect(redeemedPointsToGiveBack(200, list, 'b')).toBe(107);
    list[1].cancelled = true;
    expect(redeemedPointsToGiveBack(200, list, 'a')).toBe(93);
  });

  test('nothing when nothing was redeemed or the sub-order was cancelled before', () => {
    expect(redeemedPointsToGiveBack(0, [sub('a', '10.00')], 'a')).toBe(0);
    expect(redeemedPointsToGiveBack(200, [sub('a', '10.00', true)], 'a')).toBe(0);
  });
});

describe('pointsEarnedFor: 1 point per whole MYR of the subtotal less discounts', () => {
  test.each([
    ['102.00', '7.00', 95],
    ['10.99', '0.00', 10],
    ['0.99', '0.00', 0],
    ['50.00', '50.00', 0],
    ['20.00', '25.00', 0],
    ['1234.56', '0.57', 1233],
  ])('subtotal %s, discounts %s → %i', (subtotal, discount, points) => {
    expect(pointsEarnedFor(new Prisma.Decimal(subtotal), new Prisma.Decimal(discount))).toBe(points);
  });
});

describe('familyCartItemIdsOf', () => {
  test('reads the ids a family submit recorded', () => {
    const ids = [randomUUID(), randomUUID()];
    expect(familyCartItemIdsOf(JSON.stringify({ familyCartItemIds: ids }))).toEqual(ids);
  });

  test.each([
    ['no notes', null],
    ['empty notes', ''],
    ['text that is not JSON', 'call the customer first'],
    ['JSON of another shape', '{"note":"gift"}'],
    ['ids that are not uuids', '{"familyCartItemIds":["1","2"]}'],
  ])('is empty for %s', (_case, notes) => {
    expect(familyCartItemIdsOf(notes)).toEqual([]);
  });
});
