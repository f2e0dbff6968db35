import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';

/** What a round answers: `true` when it left work behind (the next round starts at once). */
export type RoundOutcome = boolean | void;

export interface PeriodicOptions {
  /** Names the worker in logs and in `pasar_worker_rounds_total{worker}`. */
  name: string;
  /** The pause between the end of one round and the start of the next. */
  intervalMs: number;
  /** One round of work. Throwing is logged and counted; the next round runs as usual. */
  round: () => Promise<RoundOutcome>;
  log: Logger;
  /** Spreads each pause by ± this fraction of intervalMs, so instances do not wake together (default 0.1). */
  jitter?: number;
  /** Runs the first round at once (default) or after the first pause. */
  runAtStart?: boolean;
}

/** A running background worker: `stop` waits for the round in progress and starts no other. */
export interface PeriodicWorker {
  name: string;
  stop: () => Promise<void>;
  /** Rounds run so far, by outcome (what `/metrics` reports). */
  readonly rounds: { ok: number; failed: number };
  /** Seconds of each finished round, oldest first, since the last `takeDurations` (for the histogram). */
  takeDurations: () => number[];
}

/**
 * The one periodic loop of every service (sweeps, retries, pruning). Rounds never overlap: the
 * next is scheduled only when the previous has settled, so a slow round delays the next instead
 * of stacking up. A failed round is logged and counted, never fatal. `stop` is idempotent.
 */
export function startPeriodic(options: PeriodicOptions): PeriodicWorker {
  const jitter = options.jitter ?? 0.1;
  const rounds = { ok: 0, failed: 0 };
  let durations: number[] = [];
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const pause = () => Math.max(0, options.intervalMs * (1 + jitter * (2 * Math.random() - 1)));
  const schedule = (ms: number) => {
    if (!stopped) timer = setTimeout(runRound, ms).unref();
  };
  function runRound(): void {
    const started = process.hrtime.bigint();
    running = options
      .round()
      .then((more) => {
        rounds.ok += 1;
        return more === true;
      })
      .catch((err: unknown) => {
        rounds.failed += 1;
        options.log.warn({ err, worker: options.name }, `${options.name} round failed; the next round retries`);
        return false;
      })
      .then((more) => {
        durations.push(Number(process.hrtime.bigint() - started) / 1e9);
        if (durations.length > 1000) durations = durations.slice(-1000);
        schedule(more ? 0 : pause());
      });
  }

  if (options.runAtStart === false) schedule(pause());
  else runRound();
  return {
    name: options.name,
    rounds,
    takeDurations() {
      const taken = durations;
      durations = [];
      return taken;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** A background worker as features declare it: periodic ones also report rounds to /metrics. */
export type Worker = { name: string; stop: () => Promise<void> } | PeriodicWorker;

function isPeriodic(worker: Worker): worker is PeriodicWorker {
  return 'rounds' in worker;
}

/**
 * `pasar_worker_rounds_total{worker,outcome="ok"|"failed"}` and `pasar_worker_round_seconds{worker}`
 * on a service's /metrics, read from its periodic workers when scraped.
 */
export function registerWorkerMetrics(registry: Registry, workers: readonly Worker[]): void {
  const periodic = workers.filter(isPeriodic);
  const reported = new Map<string, { ok: number; failed: number }>();
  new Histogram({
    name: 'pasar_worker_round_seconds',
    help: 'Duration of background worker rounds (sweeps, retries, pruning)',
    labelNames: ['worker'],
    buckets: [0.005, 0.025, 0.1, 0.5, 2, 10, 60],
    registers: [registry],
    collect() {
      for (const worker of periodic) for (const seconds of worker.takeDurations()) this.observe({ worker: worker.name }, seconds);
    },
  });
  new Counter({
    name: 'pasar_worker_rounds_total',
    help: 'Background worker rounds run, by outcome',
    labelNames: ['worker', 'outcome'],
    registers: [registry],
    collect() {
      for (const worker of periodic) {
        const last = reported.get(worker.name) ?? { ok: 0, failed: 0 };
        this.inc({ worker: worker.name, outcome: 'ok' }, worker.rounds.ok - last.ok);
        this.inc({ worker: worker.name, outcome: 'failed' }, worker.rounds.failed - last.failed);
        reported.set(worker.name, { ...worker.rounds });
      }
    },
  });
}
