import { randomUUID } from 'node:crypto';
import { SessionCache, type ResolvedSession } from './session-cache';

function session(tokenHash: string, userId = randomUUID()): ResolvedSession {
  return {
    sessionId: randomUUID(),
    tokenHash,
    user: { id: userId, email: 'a@example.test', fullName: 'A', role: 'customer', mustChangePassword: false },
    expiresAt: new Date(Date.now() + 60_000),
    lastSeenAt: new Date(),
  };
}

describe('SessionCache', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000;
  });

  it('answers within the TTL and forgets after it', () => {
    const cache = new SessionCache(5_000, 10, clock);
    cache.set(session('h1'), cache.epoch);
    now += 4_999;
    expect(cache.get('h1')?.tokenHash).toBe('h1');
    now += 1;
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const cache = new SessionCache(5_000, 3, clock);
    for (const h of ['a', 'b', 'c', 'd']) cache.set(session(h), cache.epoch);
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('d')).toBeDefined();
  });

  it('drops revoked tokens and every session of a revoked user', () => {
    const cache = new SessionCache(5_000, 10, clock);
    const user = randomUUID();
    cache.set(session('t1', user), cache.epoch);
    cache.set(session('t2', user), cache.epoch);
    cache.set(session('t3'), cache.epoch);
    cache.deleteTokens(['t3']);
    expect(cache.get('t3')).toBeUndefined();
    cache.deleteUser(user);
    expect(cache.get('t1')).toBeUndefined();
    expect(cache.get('t2')).toBeUndefined();
  });

  it('does not cache what was read before an invalidation', () => {
    const cache = new SessionCache(5_000, 10, clock);
    const epochAtLookup = cache.epoch;
    cache.deleteTokens(['t1']); // arrives while the look-up is in flight
    cache.set(session('t1'), epochAtLookup);
    expect(cache.get('t1')).toBeUndefined();
  });

  it('caches nothing with a zero TTL', () => {
    const cache = new SessionCache(0, 10, clock);
    cache.set(session('t1'), cache.epoch);
    expect(cache.get('t1')).toBeUndefined();
  });

  it('shares one look-up among concurrent misses of a token, and none across tokens', async () => {
    const cache = new SessionCache(5_000, 10, clock);
    let loads = 0;
    let release: (value: string) => void = () => undefined;
    const load = () => {
      loads += 1;
      return new Promise<string>((r) => (release = r));
    };
    const first = cache.lookUpOnce('t1', load);
    const second = cache.lookUpOnce('t1', load);
    const other = cache.lookUpOnce('t2', () => Promise.resolve('other'));
    release('row');
    expect(await Promise.all([first, second, other])).toEqual(['row', 'row', 'other']);
    expect(loads).toBe(1);
    // done: the next miss asks again
    const again = cache.lookUpOnce('t1', load);
    release('row again');
    expect(await again).toBe('row again');
    expect(loads).toBe(2);
  });

  it('a failed look-up fails its sharers and is not kept', async () => {
    const cache = new SessionCache(5_000, 10, clock);
    const failing = cache.lookUpOnce('t1', () => Promise.reject(new Error('database away')));
    const sharer = cache.lookUpOnce('t1', () => Promise.resolve('not asked'));
    await expect(failing).rejects.toThrow('database away');
    await expect(sharer).rejects.toThrow('database away');
    expect(await cache.lookUpOnce('t1', () => Promise.resolve('fresh'))).toBe('fresh');
  });

  it('a look-up under way when a token is revoked is not shared with later requests', async () => {
    const cache = new SessionCache(5_000, 10, clock);
    let release: (value: string) => void = () => undefined;
    const before = cache.lookUpOnce('t1', () => new Promise<string>((r) => (release = r)));
    cache.deleteTokens(['t1']);
    const after = cache.lookUpOnce('t1', () => Promise.resolve('read after the revocation'));
    release('read before');
    expect(await before).toBe('read before');
    expect(await after).toBe('read after the revocation');
  });
});
