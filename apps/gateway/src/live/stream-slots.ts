import { randomUUID } from 'node:crypto';
import type { Redis, Result } from 'ioredis';
import type { Logger } from 'pino';
import type { LimiterStore } from '../http/limiter-store';

/**
 * Redis, atomically: drops the user's expired leases, then takes a slot (the stream's id, leased
 * until now + lease on Redis's clock) when fewer than the limit are held. 1 taken, 0 refused. The
 * key expires with its last lease.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1`;

/** Redis: extends the leases of the streams still open (ARGV[2..]) to now + lease (ARGV[1]). */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = now + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], expiry, ARGV[i]) end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return #ARGV - 1`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pasarAcquireStreamSlot(key: string, maxPerUser: number, leaseMs: number, slotId: string): Result<number, Context>;
    pasarRenewStreamSlots(key: string, leaseMs: number, ...slotIds: string[]): Result<number, Context>;
  }
}

export interface StreamSlotsOptions {
  maxPerUser: number;
  /** How long a slot in Redis lives without renewal: a replica that died without releasing frees it after this. */
  leaseMs: number;
  /** Where shared counts live (Redis when REDIS_URL is set); without, each instance counts alone. */
  store: LimiterStore;
  log: Logger;
}

/**
 * The per-user limit of open live streams. With REDIS_URL, one count for all gateway instances: a
 * sorted set per user of slot ids scored by lease expiry, taken atomically (two instances racing
 * for the last slot: one gets it), renewed by the instance holding them on every heartbeat,
 * released on close; an instance that dies without releasing loses its slots when their leases
 * run out. Without Redis, or while it does not answer, each instance counts its own slots.
 */
export class StreamSlots {
  /** This instance's slots per user (the whole count without Redis; what it renews with). */
  private readonly held = new Map<string, Set<string>>();
  private readonly shared: { redis: Redis; prefix: string } | undefined;
  private sharedAnswers = true;

  constructor(private readonly options: StreamSlotsOptions) {
    this.shared = options.store.shared;
    this.shared?.redis.defineCommand('pasarAcquireStreamSlot', { numberOfKeys: 1, lua: ACQUIRE });
    this.shared?.redis.defineCommand('pasarRenewStreamSlots', { numberOfKeys: 1, lua: RENEW });
  }

  /** Takes one of the user's slots (its id), or undefined when the user holds all of them. */
  async acquire(userId: string): Promise<string | undefined> {
    const id = randomUUID();
    if (this.shared) {
      try {
        const taken = await this.shared.redis.pasarAcquireStreamSlot(this.keyOf(userId), this.options.maxPerUser, this.options.leaseMs, id);
        this.answered();
        if (taken !== 1) return undefined;
        this.hold(userId, id);
        return id;
      } catch (err) {
        this.failed(err);
      }
    }
    if ((this.held.get(userId)?.size ?? 0) >= this.options.maxPerUser) return undefined;
    this.hold(userId, id);
    return id;
  }

  /** Gives a slot back (at once here; in Redis as soon as it answers, else when the lease runs out). */
  release(userId: string, id: string): void {
    const ids = this.held.get(userId);
    if (!ids?.delete(id)) return;
    if (ids.size === 0) this.held.delete(userId);
    this.shared?.redis.zrem(this.keyOf(userId), id).then(
      () => this.answered(),
      (err: unknown) => this.failed(err),
    );
  }

  /** Extends the leases of this instance's slots (every heartbeat); re-adds those Redis lost while it was away. */
  async renew(): Promise<void> {
    if (!this.shared || this.held.size === 0) return;
    const pipeline = this.shared.redis.pipeline();
    for (const [userId, ids] of this.held) pipeline.pasarRenewStreamSlots(this.keyOf(userId), this.options.leaseMs, ...ids);
    try {
      const results = (await pipeline.exec()) ?? [];
      const error = results.find(([err]) => err)?.[0];
      if (error) throw error;
      this.answered();
    } catch (err) {
      this.failed(err);
    }
  }

  /** The slots this instance holds for the user. */
  heldBy(userId: string): number {
    return this.held.get(userId)?.size ?? 0;
  }

  private hold(userId: string, id: string): void {
    const ids = this.held.get(userId) ?? new Set<string>();
    ids.add(id);
    this.held.set(userId, ids);
  }

  private keyOf(userId: string): string {
    return `${this.shared?.prefix}:live-streams:${userId}`;
  }

  private answered(): void {
    if (this.sharedAnswers) return;
    this.sharedAnswers = true;
    this.options.log.info('Redis answers again: open live streams are counted across gateway instances');
  }

  /** Logged once per outage: until Redis answers, each instance counts its own streams. */
  private failed(err: unknown): void {
    if (!this.sharedAnswers) return;
    this.sharedAnswers = false;
    this.options.log.warn({ err: String(err) }, 'Redis (REDIS_URL) is not answering; open live streams are counted per gateway instance until it is');
  }
}
