import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { GatewayConfig } from '../config';

export type AttemptDecision = { ok: true } | { ok: false; retryAfterS: number };

type LimiterConfig = Pick<
  GatewayConfig,
  'REDIS_URL' | 'SIGN_IN_LIMIT_PER_EMAIL' | 'SIGN_IN_LIMIT_PER_IP' | 'SIGN_IN_LIMIT_WINDOW_S' | 'NATS_NAMESPACE'
>;

/**
 * Sign-in attempts per IP and per e-mail within a window (DESIGN §7). Every attempt takes a point
 * from both budgets up front (so parallel guesses cannot slip through), and a successful sign-in
 * gives them back: only failures count. Memory per instance, or Redis shared by all instances
 * when REDIS_URL is set (with memory as insurance while Redis is unreachable).
 */
export class SignInLimiter {
  private constructor(
    private readonly byIp: RateLimiterAbstract,
    private readonly byEmail: RateLimiterAbstract,
    private readonly log: Logger,
    private readonly release: () => Promise<void>,
    private readonly connected: (timeoutMs: number) => Promise<boolean> = async () => true,
  ) {}

  static create(config: LimiterConfig, log: Logger): SignInLimiter {
    const duration = config.SIGN_IN_LIMIT_WINDOW_S;
    const memory = (points: number, keyPrefix: string) => new RateLimiterMemory({ points, duration, keyPrefix });
    if (!config.REDIS_URL) {
      return new SignInLimiter(
        memory(config.SIGN_IN_LIMIT_PER_IP, 'sign_in_ip'),
        memory(config.SIGN_IN_LIMIT_PER_EMAIL, 'sign_in_email'),
        log,
        async () => undefined,
      );
    }
    const redis = new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    redis.on('error', (err: unknown) => log.warn({ err: String(err) }, 'redis (sign-in rate limits) error'));
    const prefix = `pasar:${config.NATS_NAMESPACE || 'default'}`;
    const shared = (points: number, name: string) =>
      new RateLimiterRedis({
        storeClient: redis,
        points,
        duration,
        keyPrefix: `${prefix}:${name}`,
        insuranceLimiter: memory(points, name),
      });
    return new SignInLimiter(
      shared(config.SIGN_IN_LIMIT_PER_IP, 'sign_in_ip'),
      shared(config.SIGN_IN_LIMIT_PER_EMAIL, 'sign_in_email'),
      log,
      async () => {
        await redis.quit().catch(() => redis.disconnect());
      },
      (timeoutMs) =>
        redis.status === 'ready'
          ? Promise.resolve(true)
          : new Promise<boolean>((resolve) => {
              const timer = setTimeout(() => resolve(false), timeoutMs);
              redis.once('ready', () => {
                clearTimeout(timer);
                resolve(true);
              });
            }),
    );
  }

  /** Waits until the shared store answers (true), or gives up after `timeoutMs` (memory insurance meanwhile). */
  ready(timeoutMs = 3000): Promise<boolean> {
    return this.connected(timeoutMs);
  }

  /** Takes one attempt from the IP's and the e-mail's budget; refused when either is spent. */
  async attempt(ip: string, email: string): Promise<AttemptDecision> {
    const byIp = await this.take(this.byIp, ip);
    if (!byIp.ok) return byIp;
    const byEmail = await this.take(this.byEmail, email);
    if (!byEmail.ok) await this.giveBack(this.byIp, ip);
    return byEmail;
  }

  /** A successful sign-in does not count against either budget. */
  async succeeded(ip: string, email: string): Promise<void> {
    await this.giveBack(this.byIp, ip);
    await this.giveBack(this.byEmail, email);
  }

  close(): Promise<void> {
    return this.release();
  }

  private async take(limiter: RateLimiterAbstract, key: string): Promise<AttemptDecision> {
    try {
      await limiter.consume(key, 1);
      return { ok: true };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return { ok: false, retryAfterS: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
      }
      // the store failed and no insurance answered: let the attempt through rather than lock everyone out
      this.log.warn({ err: String(rejection) }, 'sign-in rate limit unavailable');
      return { ok: true };
    }
  }

  private async giveBack(limiter: RateLimiterAbstract, key: string): Promise<void> {
    try {
      await limiter.reward(key, 1);
    } catch (err) {
      this.log.warn({ err: String(err) }, 'could not return a sign-in attempt');
    }
  }
}
