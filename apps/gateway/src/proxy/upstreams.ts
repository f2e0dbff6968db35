/**
 * The instances of each domain service behind the gateway (README "Running N instances"): requests
 * go round robin over the instances that answer. An instance that refuses connections or times out
 * is marked down by the proxy (passive check) and skipped until it answers again: the active
 * /healthz probe brings it back, and without the probe it gets one trial request after
 * `retryDownAfterMs`. When every instance is down the pool still names one, so the caller gets the
 * usual 503/504 instead of a silent drop. Each instance takes at most `maxInFlight` requests at a
 * time (the proxy's sockets per instance): a request finds a place on an instance at once or none
 * (`take`), it never waits in a queue for one.
 */

/**
 * A failed proxy attempt that says the instance is away (not that the request was bad). A reset
 * is not: a kept-alive socket the instance closed as it was reused resets too, and an instance
 * that is really gone refuses the next connection anyway.
 */
const INSTANCE_AWAY = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT']);

/**
 * Why an instance is marked down: `unavailable`, nothing takes its connections (refused,
 * unreachable, unknown host, no connection in time) or it says it is unhealthy; `slow`, it took
 * the connection but gave no answer in time (busy: it is there, and still the better choice when
 * every instance is down).
 */
export type DownReason = 'unavailable' | 'slow';

/**
 * Whether a failed proxy attempt means the instance itself is away, and why (DownReason);
 * undefined when it does not (mark nothing). `timeoutCode` is the proxy's own timeout, which is
 * `slow` once the connection had opened (`reachedInstance`).
 */
export function downReasonOf(code: string | undefined, reachedInstance: boolean, timeoutCode: string): DownReason | undefined {
  if (code === timeoutCode) return reachedInstance ? 'slow' : 'unavailable';
  return code !== undefined && INSTANCE_AWAY.has(code) ? 'unavailable' : undefined;
}

/** A failed proxy attempt, as mayRetryElsewhere weighs it. */
export interface FailedAttempt {
  /** Its connection to the instance was open (a new one had connected, or a kept-alive one was reused): the instance may have the request. */
  reachedInstance: boolean;
  code: string | undefined;
  method: string;
  /** The service answers a repeat as the first one: it carries an Idempotency-Key, or its route is `repeatable`. */
  repeatable: boolean;
}

/**
 * Whether a failed attempt may be sent again, once, to another instance (the gateway holds the
 * whole body, so any request can be). One that never reached the instance (its connection did
 * not open: refused, unreachable, or no answer while connecting) may, whatever it is. One the
 * instance may have received goes again only when the instance closed the connection without an
 * answer (it crashed or was killed) and a repeat is harmless: GET/HEAD, or `repeatable`. A
 * timeout once connected is not sent again: the instance may still be working on it.
 */
export function mayRetryElsewhere(attempt: FailedAttempt): boolean {
  if (!attempt.reachedInstance) return true;
  const closedWithoutAnswer = attempt.code === 'ECONNRESET' || attempt.code === 'EPIPE';
  return closedWithoutAnswer && (attempt.method === 'GET' || attempt.method === 'HEAD' || attempt.repeatable);
}

interface Instance {
  url: string;
  /** When it was marked down; undefined while it answers. */
  downSince?: number;
  /** Why, as the last failure said (markDown). */
  downFor?: DownReason;
  /** The last time a trial request was let through while down. */
  lastTrialAt?: number;
  /** Requests sent to it (take) and not given back yet (release). */
  inFlight: number;
}

export interface UpstreamPoolOptions {
  /**
   * A down instance gets one trial request this long after it failed (and after each failed
   * trial); undefined: never, the active probe (startHealthProbe) brings it back.
   */
  retryDownAfterMs?: number;
  /** Requests one instance takes at a time (take); default no limit. */
  maxInFlight?: number;
  clock?: () => number;
}

export class UpstreamPool {
  private readonly instances: Instance[];
  private next = 0;
  private readonly retryDownAfterMs: number;
  private readonly maxInFlight: number;
  private readonly clock: () => number;

  constructor(
    readonly service: string,
    urls: readonly string[],
    options: UpstreamPoolOptions = {},
  ) {
    if (urls.length === 0) throw new Error(`no instance URL for ${service}`);
    this.instances = urls.map((url) => ({ url, inFlight: 0 }));
    this.retryDownAfterMs = options.retryDownAfterMs ?? Number.POSITIVE_INFINITY;
    this.maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
    this.clock = options.clock ?? Date.now;
  }

  get urls(): string[] {
    return this.instances.map((i) => i.url);
  }

  /** The instances and whether each is taken into the rotation right now. */
  health(): { url: string; healthy: boolean }[] {
    return this.instances.map((i) => ({ url: i.url, healthy: i.downSince === undefined }));
  }

  /**
   * The instance for the next request: the next healthy one in turn; a down one whose trial is due
   * (it takes the turn once, then waits again); when all are down and no trial is due, one that
   * was only slow before one that is unavailable, the one down the longest among them.
   */
  pick(): string {
    return this.choose(() => true).url;
  }

  /**
   * A place for one request on the instance `pick` would name, skipping those that already have
   * `maxInFlight` requests: its URL, to give back with `release` when the request ends. Undefined
   * when every instance is full, so the caller answers at once (503) instead of queueing a request
   * that could wait past its deadline and its identity signature's minute.
   */
  take(): string | undefined {
    const instance = this.choose((i) => i.inFlight < this.maxInFlight);
    if (instance.inFlight >= this.maxInFlight) return undefined;
    instance.inFlight += 1;
    return instance.url;
  }

  /** The request `take` placed on `url` has ended (answered, failed, or its client went away). */
  release(url: string): void {
    const instance = this.find(url);
    if (instance && instance.inFlight > 0) instance.inFlight -= 1;
  }

  /**
   * The next instance in turn that answers (or whose trial is due) and passes `eligible`; else the
   * one down the longest, an unavailable one only when no other is left: a busy instance that
   * timed out still takes connections, one that refuses them (killed, restarting) fails every request.
   */
  private choose(eligible: (instance: Instance) => boolean): Instance {
    const count = this.instances.length;
    const at = this.clock();
    for (let step = 0; step < count; step += 1) {
      const instance = this.instances[(this.next + step) % count];
      const trialDue =
        instance.downSince !== undefined && at - Math.max(instance.downSince, instance.lastTrialAt ?? 0) >= this.retryDownAfterMs;
      if ((instance.downSince === undefined || trialDue) && eligible(instance)) {
        if (trialDue) instance.lastTrialAt = at;
        this.next = (this.next + step + 1) % count;
        return instance;
      }
    }
    const there = this.instances.filter((i) => i.downFor !== 'unavailable');
    return (there.length ? there : this.instances).reduce((a, b) => ((a.downSince ?? 0) <= (b.downSince ?? 0) ? a : b));
  }

  /** The instance refused, was unreachable or timed out (DownReason): skip it until it answers again. */
  markDown(url: string, reason: DownReason = 'unavailable'): void {
    const instance = this.find(url);
    if (!instance) return;
    instance.downSince ??= this.clock();
    instance.downFor = reason;
  }

  /** The instance answered (a proxied response or the probe): back in the rotation. */
  markUp(url: string): void {
    const instance = this.find(url);
    if (instance) {
      instance.downSince = undefined;
      instance.downFor = undefined;
      instance.lastTrialAt = undefined;
    }
  }

  private find(url: string): Instance | undefined {
    const wanted = url.replace(/\/$/, '');
    return this.instances.find((i) => i.url === wanted);
  }
}

export interface HealthProbe {
  /** Probes every instance once now (what the timer does each interval). */
  probeOnce(): Promise<void>;
  stop(): void;
}

/**
 * The light active check: GET <instance>/healthz of every instance of the pools with more than one
 * instance each `intervalMs`; a 200 marks it up, another status or no connection down
 * (`unavailable`), no answer within `timeoutMs` down as `slow`.
 */
export function startHealthProbe(pools: readonly UpstreamPool[], options: { intervalMs: number; timeoutMs: number }): HealthProbe {
  const probed = pools.filter((pool) => pool.urls.length > 1);
  let running: Promise<void> | undefined;
  const probeOnce = async () => {
    await Promise.all(
      probed.flatMap((pool) =>
        pool.urls.map(async (url) => {
          try {
            const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(options.timeoutMs) });
            await response.arrayBuffer();
            if (response.status === 200) pool.markUp(url);
            else pool.markDown(url);
          } catch (err) {
            // no answer within timeoutMs from one that took the connection: busy, not gone
            pool.markDown(url, (err as Error).name === 'TimeoutError' ? 'slow' : 'unavailable');
          }
        }),
      ),
    );
  };
  const timer =
    options.intervalMs > 0 && probed.length > 0
      ? setInterval(() => {
          running ??= probeOnce().finally(() => (running = undefined));
        }, options.intervalMs)
      : undefined;
  timer?.unref();
  return {
    probeOnce,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}
