import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { GatewayConfig } from '../config';

export type LimitDecision = { ok: true } | { ok: false; retryAfterS: number };

/**
 * Where the gateway's limits keep their counts (rate limits, open live streams): memory per
 * instance, or Redis shared by all instances when REDIS_URL is set (with memory as insurance while
 * Redis is unreachable).
 */
export class LimiterStore {
  private constructor(
    private readonly redis: Redis | null,
    private readonly prefix: string,
  ) {}

  static create(config: Pick<GatewayConfig, 'REDIS_URL' | 'NATS_NAMESPACE'>, log: Logger): LimiterStore {
    const prefix = `pasar:${config.NATS_NAMESPACE || 'default'}`;
    if (!config.REDIS_URL) return new LimiterStore(null, prefix);
    const redis = new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    redis.on('error', (err: unknown) => log.warn({ err: String(err) }, 'redis (limits) error'));
    return new LimiterStore(redis, prefix);
  }

  /** The Redis connection and the key prefix of this namespace, when the counts are shared (REDIS_URL). */
  get shared(): { redis: Redis; prefix: string } | undefined {
    return this.redis ? { redis: this.redis, prefix: this.prefix } : undefined;
  }

  /** A budget of `points` per key within `durationS` seconds. */
  limiter(name: string, points: number, durationS: number): RateLimiterAbstract {
    const memory = new RateLimiterMemory({ points, duration: durationS, keyPrefix: name });
    if (!this.redis) return memory;
    return new RateLimiterRedis({ storeClient: this.redis, points, duration: durationS, keyPrefix: `${this.prefix}:${name}`, insuranceLimiter: memory });
  }

  /** Waits until the shared store answers (true), or gives up after `timeoutMs` (memory insurance meanwhile). */
  ready(timeoutMs = 3000): Promise<boolean> {
    const redis = this.redis;
    if (!redis || redis.status === 'ready') return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => this.redis?.disconnect());
  }
}

/** Takes one point of `key`'s budget; refused (with the seconds until one is back) when spent. A failed store lets the request through. */
export async function takePoint(limiter: RateLimiterAbstract, key: string, log: Logger): Promise<LimitDecision> {
  try {
    await limiter.consume(key, 1);
    return { ok: true };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { ok: false, retryAfterS: retryAfterS(rejection) };
    // the store failed and no insurance answered: let the request through rather than refuse everyone
    log.warn({ err: String(rejection) }, 'rate limit store unavailable');
    return { ok: true };
  }
}

export function retryAfterS(res: RateLimiterRes): number {
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}
