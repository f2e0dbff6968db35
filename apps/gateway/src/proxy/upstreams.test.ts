import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@pasar/testkit';
import { parseUpstreamList } from '../config';
import { downReasonOf, mayRetryElsewhere, startHealthProbe, UpstreamPool } from './upstreams';

const A = 'http://127.0.0.1:4001';
const B = 'http://127.0.0.1:4101';
const C = 'http://127.0.0.1:4201';

function manualClock(start = 1_000_000) {
  let now = start;
  return { clock: () => now, advance: (ms: number) => (now += ms) };
}

describe('UpstreamPool', () => {
  test('spreads requests round robin over the instances', () => {
    const pool = new UpstreamPool('checkout', [A, B, C]);
    expect([1, 2, 3, 4, 5, 6].map(() => pool.pick())).toEqual([A, B, C, A, B, C]);
  });

  test('one instance is always that instance', () => {
    const pool = new UpstreamPool('checkout', [A]);
    pool.markDown(A);
    expect([pool.pick(), pool.pick()]).toEqual([A, A]);
  });

  test('take: each instance holds at most maxInFlight requests; a full one is skipped, none left is undefined', () => {
    const pool = new UpstreamPool('checkout', [A, B], { maxInFlight: 2 });
    expect([pool.take(), pool.take(), pool.take(), pool.take()]).toEqual([A, B, A, B]);
    expect(pool.take()).toBeUndefined();
    // a place given back is taken again, on that instance only
    pool.release(B);
    expect([pool.take(), pool.take()]).toEqual([B, undefined]);
    pool.release(A);
    pool.release(A);
    expect([pool.take(), pool.take(), pool.take()]).toEqual([A, A, undefined]);
  });

  test('take skips a full instance for the next one in turn, and a down one still waits for its trial', () => {
    const time = manualClock();
    const pool = new UpstreamPool('checkout', [A, B, C], { clock: time.clock, retryDownAfterMs: 5_000, maxInFlight: 1 });
    pool.markDown(C);
    expect(pool.take()).toBe(A);
    // A is full: B, then nothing (C is down and its trial is not due)
    expect([pool.take(), pool.take()]).toEqual([B, undefined]);
    time.advance(5_000);
    expect(pool.take()).toBe(C);
    // its trial answered: back in turn; a release of an instance with nothing in flight changes nothing
    pool.markUp(C);
    pool.release(C);
    pool.release(C);
    expect([pool.take(), pool.take()]).toEqual([C, undefined]);
  });

  test("pick ignores the places: the gateway's own calls are not counted", () => {
    const pool = new UpstreamPool('checkout', [A], { maxInFlight: 1 });
    expect(pool.take()).toBe(A);
    expect([pool.pick(), pool.pick()]).toEqual([A, A]);
  });

  test('refuses an empty list', () => {
    expect(() => new UpstreamPool('checkout', [])).toThrow(/no instance URL for checkout/);
  });

  test('skips an instance marked down until it is marked up again', () => {
    const time = manualClock();
    const pool = new UpstreamPool('checkout', [A, B, C], { clock: time.clock, retryDownAfterMs: 5_000 });
    pool.markDown(B);
    expect([1, 2, 3, 4].map(() => pool.pick())).toEqual([A, C, A, C]);
    expect(pool.health()).toEqual([
      { url: A, healthy: true },
      { url: B, healthy: false },
      { url: C, healthy: true },
    ]);
    pool.markUp(B);
    expect(new Set([1, 2, 3].map(() => pool.pick()))).toEqual(new Set([A, B, C]));
  });

  test('a down instance gets one trial request once retryDownAfterMs has passed, then waits again', () => {
    const time = manualClock();
    const pool = new UpstreamPool('checkout', [A, B], { clock: time.clock, retryDownAfterMs: 5_000 });
    pool.markDown(B);
    time.advance(4_999);
    expect([pool.pick(), pool.pick(), pool.pick()]).toEqual([A, A, A]);
    time.advance(1);
    const picks = [pool.pick(), pool.pick(), pool.pick(), pool.pick()];
    expect(picks.filter((url) => url === B)).toHaveLength(1);
    // the trial failed again (markDown keeps it down): the next trial is another retryDownAfterMs away
    pool.markDown(B);
    time.advance(4_000);
    expect([pool.pick(), pool.pick()]).toEqual([A, A]);
  });

  test('without retryDownAfterMs a down instance gets no trial: only markUp (the probe) brings it back', () => {
    const time = manualClock();
    const pool = new UpstreamPool('checkout', [A, B], { clock: time.clock, maxInFlight: 10 });
    pool.markDown(B);
    time.advance(3_600_000);
    expect([pool.pick(), pool.pick(), pool.take(), pool.take()]).toEqual([A, A, A, A]);
    pool.markUp(B);
    expect(new Set([pool.pick(), pool.pick()])).toEqual(new Set([A, B]));
  });

  test('when every instance is down it still names one (the one down the longest), so the caller gets a clear 503', () => {
    const time = manualClock();
    const pool = new UpstreamPool('checkout', [A, B], { clock: time.clock, retryDownAfterMs: 60_000 });
    pool.markDown(B);
    time.advance(10);
    pool.markDown(A);
    expect([pool.pick(), pool.pick()]).toEqual([B, B]);
  });

  test('when every instance is down, one that was only slow is named before one that is unavailable, however long each has been down', () => {
    const time = manualClock();
    const pool = new UpstreamPool('checkout', [A, B], { clock: time.clock, retryDownAfterMs: 60_000 });
    pool.markDown(A, 'unavailable'); // killed: refuses connections
    time.advance(10);
    pool.markDown(B, 'slow'); // the survivor, busy: timed out
    expect([pool.pick(), pool.take(), pool.pick()]).toEqual([B, B, B]);
    // a slow one that then refuses is unavailable too: the one down the longest again
    pool.markDown(B, 'unavailable');
    expect(pool.pick()).toBe(A);
  });

  test('marks by URL whether or not it ends in a slash; unknown URLs change nothing', () => {
    const pool = new UpstreamPool('checkout', [A, B]);
    pool.markDown(`${A}/`);
    pool.markDown('http://127.0.0.1:9');
    expect(pool.health().map((h) => h.healthy)).toEqual([false, true]);
  });
});

describe('the rules of a failed attempt', () => {
  test('refused, unreachable and timed out mark the instance down (slow: timed out once connected); a reset or a bad answer does not', () => {
    for (const code of ['ECONNREFUSED', 'EHOSTUNREACH', 'ENOTFOUND', 'ETIMEDOUT']) {
      expect(downReasonOf(code, true, 'UPSTREAM_TIMEOUT')).toBe('unavailable');
    }
    expect(downReasonOf('UPSTREAM_TIMEOUT', false, 'UPSTREAM_TIMEOUT')).toBe('unavailable');
    expect(downReasonOf('UPSTREAM_TIMEOUT', true, 'UPSTREAM_TIMEOUT')).toBe('slow');
    expect(downReasonOf('ECONNRESET', true, 'UPSTREAM_TIMEOUT')).toBeUndefined();
    expect(downReasonOf('HPE_INVALID_CONSTANT', true, 'UPSTREAM_TIMEOUT')).toBeUndefined();
    expect(downReasonOf(undefined, true, 'UPSTREAM_TIMEOUT')).toBeUndefined();
  });

  test('a request that never reached the instance goes elsewhere whatever it is; one that may have, only when a repeat is harmless', () => {
    const attempt = (reachedInstance: boolean, code: string, method: string, repeatable = false) => mayRetryElsewhere({ reachedInstance, code, method, repeatable });
    // the connection never opened: any request, body or not
    for (const code of ['ECONNREFUSED', 'EHOSTUNREACH', 'UPSTREAM_TIMEOUT']) {
      expect(attempt(false, code, 'POST')).toBe(true);
      expect(attempt(false, code, 'GET')).toBe(true);
    }
    // the instance closed the connection without an answer: GET/HEAD, or a repeatable POST (Idempotency-Key, or its route says so)
    expect(attempt(true, 'ECONNRESET', 'GET')).toBe(true);
    expect(attempt(true, 'ECONNRESET', 'HEAD')).toBe(true);
    expect(attempt(true, 'ECONNRESET', 'POST', true)).toBe(true);
    expect(attempt(true, 'EPIPE', 'PATCH', true)).toBe(true);
    expect(attempt(true, 'ECONNRESET', 'POST')).toBe(false);
    expect(attempt(true, 'ECONNRESET', 'DELETE')).toBe(false);
    // a timeout once connected: the instance may still be working on it
    expect(attempt(true, 'UPSTREAM_TIMEOUT', 'GET')).toBe(false);
    expect(attempt(true, 'UPSTREAM_TIMEOUT', 'POST', true)).toBe(false);
    expect(attempt(true, 'HPE_INVALID_CONSTANT', 'GET')).toBe(false);
  });

  test('parses a comma-separated list: trimmed, no trailing slash, no repeats; a bad URL throws', () => {
    expect(parseUpstreamList(` ${A}/ ,${B},,${A}`)).toEqual([A, B]);
    expect(() => parseUpstreamList('not a url')).toThrow();
  });
});

describe('the active /healthz probe', () => {
  let server: Server;
  let healthy = true;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.statusCode = req.url === '/healthz' && healthy ? 200 : 503;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('marks an answering instance up and a silent or unhealthy one down', async () => {
    const live = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dead = `http://127.0.0.1:${await freePort()}`;
    const pool = new UpstreamPool('checkout', [live, dead]);
    pool.markDown(live);
    const probe = startHealthProbe([pool], { intervalMs: 0, timeoutMs: 1_000 });
    try {
      await probe.probeOnce();
      expect(pool.health()).toEqual([
        { url: live, healthy: true },
        { url: dead, healthy: false },
      ]);
      healthy = false;
      await probe.probeOnce();
      expect(pool.health()[0]).toEqual({ url: live, healthy: false });
    } finally {
      healthy = true;
      probe.stop();
    }
  });
});
