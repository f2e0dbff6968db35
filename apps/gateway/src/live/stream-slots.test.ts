/** The per-user count of open live streams: in memory, shared through the real Redis, and with Redis unreachable. */
import { freePort, silentLog, uniqueNamespace, waitFor } from '@pasar/testkit';
import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import { LimiterStore } from '../http/limiter-store';
import { StreamSlots } from './stream-slots';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const stores: LimiterStore[] = [];
afterAll(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** One gateway instance's slots on `namespace` (instances on one namespace and Redis share the count). */
async function instance(options: { redis?: string; namespace: string; leaseMs?: number; log?: Logger }): Promise<StreamSlots> {
  const log = options.log ?? silentLog;
  const store = LimiterStore.create({ REDIS_URL: options.redis, NATS_NAMESPACE: options.namespace }, log);
  stores.push(store);
  await store.ready(1000);
  return new StreamSlots({ maxPerUser: 5, leaseMs: options.leaseMs ?? 60_000, store, log });
}

async function acquireAll(slots: StreamSlots, userId: string, count: number): Promise<(string | undefined)[]> {
  const ids: (string | undefined)[] = [];
  for (let i = 0; i < count; i += 1) ids.push(await slots.acquire(userId));
  return ids;
}

describe.each([
  ['memory', undefined],
  ['redis', TEST_REDIS_URL],
])('StreamSlots (%s)', (_store, redis) => {
  it('gives a user five slots, refuses the sixth, and gives one back when released', async () => {
    const slots = await instance({ redis, namespace: uniqueNamespace('slots') });
    const ids = await acquireAll(slots, 'u1', 5);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(5);
    expect(await slots.acquire('u1')).toBeUndefined();
    expect(await slots.acquire('u2')).toBeDefined(); // another user has slots of their own

    slots.release('u1', ids[0] as string);
    slots.release('u1', ids[0] as string); // twice is once
    expect(slots.heldBy('u1')).toBe(4);
    // the release reaches Redis without being awaited: the slot is back shortly
    const again = await waitFor(() => slots.acquire('u1'), 5_000, 20);
    expect(again).toBeDefined();
    expect(await slots.acquire('u1')).toBeUndefined();
  });
});

describe('StreamSlots shared through Redis', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(() => redis.quit());

  it('counts a user’s streams on all instances of a namespace together, and not those of another namespace', async () => {
    const namespace = uniqueNamespace('slots');
    const [a, b] = [await instance({ redis: TEST_REDIS_URL, namespace }), await instance({ redis: TEST_REDIS_URL, namespace })];
    const onA = await acquireAll(a, 'u1', 3);
    const onB = await acquireAll(b, 'u1', 2);
    expect([...onA, ...onB].every(Boolean)).toBe(true);
    expect(await a.acquire('u1')).toBeUndefined();
    expect(await b.acquire('u1')).toBeUndefined();
    // an instance of another namespace (another test, another stack) counts apart
    expect(await (await instance({ redis: TEST_REDIS_URL, namespace: uniqueNamespace('slots') })).acquire('u1')).toBeDefined();

    // one closed on A lets B open one
    a.release('u1', onA[0] as string);
    expect(await waitFor(() => b.acquire('u1'), 5_000, 20)).toBeDefined();
    expect(await a.acquire('u1')).toBeUndefined();
  });

  it('gives the last slot to exactly one of many instances asking at once', async () => {
    const namespace = uniqueNamespace('slots');
    const instances = await Promise.all(Array.from({ length: 4 }, () => instance({ redis: TEST_REDIS_URL, namespace })));
    await acquireAll(instances[0], 'u1', 4);
    const answers = await Promise.all(instances.flatMap((slots) => [slots.acquire('u1'), slots.acquire('u1'), slots.acquire('u1')]));
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(await redis.zcard(`pasar:${namespace}:live-streams:u1`)).toBe(5);
  });

  it('frees the slots of an instance that stopped renewing them when their leases run out, and keeps renewed ones', async () => {
    const namespace = uniqueNamespace('slots');
    const leaseMs = 1000;
    // `dead` takes three slots and never renews them (a replica killed without closing its streams)
    const dead = await instance({ redis: TEST_REDIS_URL, namespace, leaseMs });
    const alive = await instance({ redis: TEST_REDIS_URL, namespace, leaseMs });
    await acquireAll(dead, 'u1', 3);
    await acquireAll(alive, 'u1', 2);
    expect(await alive.acquire('u1')).toBeUndefined();
    const key = `pasar:${namespace}:live-streams:u1`;
    expect(await redis.pttl(key)).toBeGreaterThan(0); // the key goes with its last lease

    // `alive` renews as its heartbeat would; after several leases its two still count, the dead three do not
    for (let i = 0; i < 8; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, leaseMs / 5));
      await alive.renew();
    }
    expect(await acquireAll(alive, 'u1', 4)).toEqual([expect.any(String), expect.any(String), expect.any(String), undefined]);
    expect(await redis.zcard(key)).toBe(5);

    // nobody renews: everything expires, the key with it
    await waitFor(async () => (await redis.exists(key)) === 0, 5_000, 50);
  });

  it('puts back the slots Redis lost (a flush, a failover) on the next renewal', async () => {
    const namespace = uniqueNamespace('slots');
    const slots = await instance({ redis: TEST_REDIS_URL, namespace });
    await acquireAll(slots, 'u1', 5);
    const key = `pasar:${namespace}:live-streams:u1`;
    await redis.del(key);
    await slots.renew();
    expect(await redis.zcard(key)).toBe(5);
    expect(await (await instance({ redis: TEST_REDIS_URL, namespace })).acquire('u1')).toBeUndefined();
  });
});

describe('StreamSlots with Redis unreachable', () => {
  it('counts per instance, never fails, and says so once', async () => {
    const lines: { level: number; msg: string }[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const namespace = uniqueNamespace('slots');
    const down = `redis://127.0.0.1:${await freePort()}`;
    const [a, b] = [await instance({ redis: down, namespace, log }), await instance({ redis: down, namespace, log: silentLog })];

    const onA = await acquireAll(a, 'u1', 6);
    expect(onA.slice(0, 5).every(Boolean)).toBe(true);
    expect(onA[5]).toBeUndefined();
    // B counts its own: five more
    expect((await acquireAll(b, 'u1', 6)).filter(Boolean)).toHaveLength(5);
    a.release('u1', onA[0] as string);
    expect(await a.acquire('u1')).toBeDefined();
    await a.renew();

    const warnings = lines.filter((line) => line.msg.includes('open live streams are counted per gateway instance'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].level).toBe(40);
  });
});
