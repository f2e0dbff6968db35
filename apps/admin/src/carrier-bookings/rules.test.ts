import { bookable, leaseMs, nextStateAfter, startsNewAttempt } from './rules';

const MIN = 60_000;
const WAITS = [5 * MIN, 15 * MIN, 60 * MIN, 6 * 60 * MIN, 24 * 60 * MIN];
const AT = new Date('2026-11-24T10:00:00.000Z');

describe('nextStateAfter: the retry schedule (DESIGN §5)', () => {
  test.each([
    [1, 5 * MIN],
    [2, 15 * MIN],
    [3, 60 * MIN],
    [4, 6 * 60 * MIN],
    [5, 24 * 60 * MIN],
  ])('a 5xx or timeout after attempt %i is retried after its wait', (attempts, wait) => {
    expect(nextStateAfter('retryable', attempts, WAITS, AT)).toEqual({ status: 'pending_retry', nextAttemptAt: new Date(AT.getTime() + wait) });
  });

  test('after the sixth attempt (the last wait spent) the booking is failed', () => {
    expect(nextStateAfter('retryable', 6, WAITS, AT)).toEqual({ status: 'failed' });
    expect(nextStateAfter('retryable', 7, WAITS, AT)).toEqual({ status: 'failed' });
  });

  test('a 4xx is failed at once, whatever the attempt', () => {
    for (const attempts of [1, 3, 6]) expect(nextStateAfter('rejected', attempts, WAITS, AT)).toEqual({ status: 'failed' });
  });

  test('the waits come from config: short ones for tests, none means no retry', () => {
    expect(nextStateAfter('retryable', 1, [1000], AT)).toEqual({ status: 'pending_retry', nextAttemptAt: new Date(AT.getTime() + 1000) });
    expect(nextStateAfter('retryable', 2, [1000], AT)).toEqual({ status: 'failed' });
    expect(nextStateAfter('retryable', 1, [], AT)).toEqual({ status: 'failed' });
    expect(nextStateAfter('retryable', 0, WAITS, AT)).toEqual({ status: 'failed' });
  });
});

describe('bookable: paid or processing only', () => {
  test.each([
    ['pending_payment', false],
    ['paid', true],
    ['processing', true],
    ['awaiting_pickup', false],
    ['shipped', false],
    ['delivered', false],
    ['cancelled', false],
  ] as const)('%s → %s', (status, ok) => {
    const result = bookable(status);
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result.code).toBe('not_bookable');
  });
});

test('startsNewAttempt: without a booking or after failed; not while booked or retrying', () => {
  expect(startsNewAttempt(null)).toBe(true);
  expect(startsNewAttempt('failed')).toBe(true);
  expect(startsNewAttempt('success')).toBe(false);
  expect(startsNewAttempt('pending_retry')).toBe(false);
});


test('the lease outlasts the carrier call', () => {
  expect(leaseMs(10_000)).toBeGreaterThan(10_000);
});
