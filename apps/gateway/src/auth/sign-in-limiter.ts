import type { Logger } from 'pino';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { GatewayConfig } from '../config';
import { LimiterStore, retryAfterS, takePoint, type LimitDecision } from '../http/limiter-store';

export type AttemptDecision = LimitDecision;

type LimiterConfig = Pick<
  GatewayConfig,
  | 'REDIS_URL'
  | 'NATS_NAMESPACE'
  | 'SIGN_IN_LIMIT_PER_EMAIL_IP'
  | 'SIGN_IN_LIMIT_PER_IP'
  | 'SIGN_IN_LIMIT_PER_EMAIL'
  | 'SIGN_IN_LIMIT_WINDOW_S'
  | 'SIGN_IN_BACKOFF_BASE_S'
  | 'SIGN_IN_BACKOFF_MAX_S'
>;

/** A count no window reaches: the per-e-mail failures are counted, never refused, by this limiter. */
const UNBOUNDED = 1_000_000_000;

/**
 * Password guesses (sign-in, and the current-password checks of account setup and change)
 * within a window (DESIGN §7):
 * - per IP, and per e-mail from one IP: hard budgets. Every attempt takes a point from both up
 *   front (so parallel guesses cannot slip through) and a success gives them back: only failures
 *   count. A stranger spending an e-mail's budget from their IP blocks only their own IP.
 * - per e-mail across all IPs: a softer backoff counted in distinct IPs (one IP is already held by
 *   its own budget). Once more than SIGN_IN_LIMIT_PER_EMAIL IPs failed for the e-mail in the
 *   window, each further IP's first failure pauses the e-mail's attempts for BASE × 2^n seconds (at
 *   most SIGN_IN_BACKOFF_MAX_S): guessing from many IPs slows down. The pause does not apply to a
 *   device that signed in as the e-mail before (the sign-in device cookie): others' failures
 *   cannot stop the owner.
 */
export class SignInLimiter {
  private constructor(
    private readonly byIp: RateLimiterAbstract,
    private readonly byEmailIp: RateLimiterAbstract,
    private readonly failedFrom: RateLimiterAbstract,
    private readonly emailFailures: RateLimiterAbstract,
    private readonly emailPause: RateLimiterAbstract,
    private readonly config: LimiterConfig,
    private readonly store: LimiterStore,
    private readonly ownsStore: boolean,
    private readonly log: Logger,
  ) {}

  /** The limiter on `store` (shared with the other limits), or on a store of its own. */
  static create(config: LimiterConfig, log: Logger, store?: LimiterStore): SignInLimiter {
    const counts = store ?? LimiterStore.create(config, log);
    const window = config.SIGN_IN_LIMIT_WINDOW_S;
    return new SignInLimiter(
      counts.limiter('sign_in_ip', config.SIGN_IN_LIMIT_PER_IP, window),
      counts.limiter('sign_in_email_ip', config.SIGN_IN_LIMIT_PER_EMAIL_IP, window),
      counts.limiter('sign_in_email_failed_ip', UNBOUNDED, window),
      counts.limiter('sign_in_email_failures', UNBOUNDED, window),
      counts.limiter('sign_in_email_pause', 1, 1),
      config,
      counts,
      store === undefined,
      log,
    );
  }

  /** Waits until the shared store answers (true), or gives up after `timeoutMs` (memory insurance meanwhile). */
  ready(timeoutMs = 3000): Promise<boolean> {
    return this.store.ready(timeoutMs);
  }

  /**
   * Refused while the e-mail is paused (unless `knownDevice`: the caller's browser signed in as
   * this e-mail before), or when the IP's or the e-mail-from-this-IP budget is spent; else takes a
   * point of both.
   */
  async attempt(ip: string, email: string, options: { knownDevice?: boolean } = {}): Promise<AttemptDecision> {
    if (!options.knownDevice) {
      const paused = await this.pauseOf(email);
      if (!paused.ok) return paused;
    }
    const byIp = await takePoint(this.byIp, ip, this.log);
    if (!byIp.ok) return byIp;
    const byEmailIp = await takePoint(this.byEmailIp, emailFromIp(ip, email), this.log);
    if (!byEmailIp.ok) await this.giveBack(this.byIp, ip);
    return byEmailIp;
  }

  /** A successful check does not count against the hard budgets. */
  async succeeded(ip: string, email: string): Promise<void> {
    await this.giveBack(this.byIp, ip);
    await this.giveBack(this.byEmailIp, emailFromIp(ip, email));
  }

  /** A wrong password for `email` from `ip`: the IP's first failure counts towards the e-mail's backoff, and pauses it once past the threshold. */
  async failed(ip: string, email: string): Promise<void> {
    try {
      const fromIp = await this.failedFrom.consume(emailFromIp(ip, email), 1);
      if (fromIp.consumedPoints > 1) return; // this IP was counted already in the window
      const counted = await this.emailFailures.consume(email, 1);
      const pauseS = backoffPauseS(counted.consumedPoints, this.config);
      if (pauseS > 0) await this.emailPause.block(email, pauseS);
    } catch (err) {
      this.log.warn({ err: String(err) }, 'could not count a sign-in failure');
    }
  }

  async close(): Promise<void> {
    if (this.ownsStore) await this.store.close();
  }

  private async pauseOf(email: string): Promise<AttemptDecision> {
    try {
      const pause = await this.emailPause.get(email);
      if (pause && pause.consumedPoints > 1 && pause.msBeforeNext > 0) return { ok: false, retryAfterS: retryAfterS(pause) };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) this.log.warn({ err: String(err) }, 'sign-in backoff unavailable');
    }
    return { ok: true };
  }

  private async giveBack(limiter: RateLimiterAbstract, key: string): Promise<void> {
    try {
      await limiter.reward(key, 1);
    } catch (err) {
      this.log.warn({ err: String(err) }, 'could not return a sign-in attempt');
    }
  }
}

const emailFromIp = (ip: string, email: string) => `${ip}|${email}`;

/**
 * Seconds an e-mail is paused after its `failures`-th failing IP in the window: none up to the
 * threshold (SIGN_IN_LIMIT_PER_EMAIL), then BASE, 2 × BASE, 4 × BASE ... at most MAX.
 */
export function backoffPauseS(
  failures: number,
  config: Pick<LimiterConfig, 'SIGN_IN_LIMIT_PER_EMAIL' | 'SIGN_IN_BACKOFF_BASE_S' | 'SIGN_IN_BACKOFF_MAX_S'>,
): number {
  const over = failures - config.SIGN_IN_LIMIT_PER_EMAIL;
  if (over <= 0) return 0;
  return Math.min(config.SIGN_IN_BACKOFF_MAX_S, config.SIGN_IN_BACKOFF_BASE_S * 2 ** Math.min(over - 1, 30));
}
