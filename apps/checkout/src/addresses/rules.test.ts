import { MAX_ADDRESSES_PER_CUSTOMER } from '@pasar/contracts';
import {
  hasRoomForAnother,
  isDefaultAfterUpdate,
  isDefaultOnCreate,
  listingOrder,
  newestFirst,
  successorOfDeletedDefault,
  type RankedAddress,
} from './rules';

const at = (iso: string) => new Date(`2026-01-0${iso}T00:00:00.000Z`);
const address = (id: string, day: string, isDefault = false): RankedAddress => ({ id, createdAt: at(day), isDefault });

describe('listingOrder', () => {
  test('puts the default first, then the newest first', () => {
    const list = [address('a', '1'), address('b', '3'), address('c', '2', true), address('d', '4')];
    expect(list.sort(listingOrder).map((a) => a.id)).toEqual(['c', 'd', 'b', 'a']);
  });

  test('orders addresses created at the same instant by id, the same way every time', () => {
    const list = [address('a', '1'), address('c', '1'), address('b', '1')];
    expect([...list].sort(listingOrder).map((a) => a.id)).toEqual(['c', 'b', 'a']);
    expect([...list].reverse().sort(listingOrder).map((a) => a.id)).toEqual(['c', 'b', 'a']);
  });
});

describe('newestFirst', () => {
  test('ignores the default flag', () => {
    expect([address('old', '1', true), address('new', '2')].sort(newestFirst).map((a) => a.id)).toEqual(['new', 'old']);
  });
});

describe('hasRoomForAnother', () => {
  test(`allows up to ${MAX_ADDRESSES_PER_CUSTOMER} addresses`, () => {
    expect(hasRoomForAnother(0)).toBe(true);
    expect(hasRoomForAnother(MAX_ADDRESSES_PER_CUSTOMER - 1)).toBe(true);
    expect(hasRoomForAnother(MAX_ADDRESSES_PER_CUSTOMER)).toBe(false);
    expect(hasRoomForAnother(2, 2)).toBe(false);
  });
});

describe('isDefaultOnCreate', () => {
  test("the customer's first address is the default whatever the request says", () => {
    expect(isDefaultOnCreate(0, undefined)).toBe(true);
    expect(isDefaultOnCreate(0, false)).toBe(true);
  });

  test('a later address is the default only when asked', () => {
    expect(isDefaultOnCreate(3, undefined)).toBe(false);
    expect(isDefaultOnCreate(3, false)).toBe(false);
    expect(isDefaultOnCreate(3, true)).toBe(true);
  });
});

describe('isDefaultAfterUpdate', () => {
  test('true makes the address the default', () => {
    expect(isDefaultAfterUpdate(false, true)).toBe(true);
  });

  test('false or absent never takes the default away', () => {
    expect(isDefaultAfterUpdate(true, false)).toBe(true);
    expect(isDefaultAfterUpdate(true, undefined)).toBe(true);
    expect(isDefaultAfterUpdate(false, false)).toBe(false);
    expect(isDefaultAfterUpdate(false, undefined)).toBe(false);
  });
});

describe('successorOfDeletedDefault', () => {
  test('is the newest remaining address', () => {
    const remaining = [address('a', '1'), address('c', '3'), address('b', '2')];
    expect(successorOfDeletedDefault(remaining)?.id).toBe('c');
    expect(remaining.map((a) => a.id)).toEqual(['a', 'c', 'b']);
  });

  test('is none when nothing remains', () => {
    expect(successorOfDeletedDefault([])).toBeUndefined();
  });
});
