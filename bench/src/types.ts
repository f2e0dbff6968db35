import type { Stack } from '@pasar/stack';

/** What every scenario gets: the running stack and the run's settings. */
export interface BenchContext {
  stack: Stack;
  settings: BenchSettings;
  log: (line: string) => void;
  /**
   * Starts a second stack like `stack` (the same services, variables and settings, a namespace and
   * schemas of its own), for a scenario that loads two at once; the scenario stops it.
   */
  startTwin: () => Promise<Stack>;
}

export interface BenchSettings {
  /** Seconds per load run (autocannon). */
  durationS: number;
  connections: number;
  /** Sequential requests for latency scenarios. */
  samples: number;
  /** Scenario names to run (all when empty). */
  only: string[];
  /** Instances of each service but the gateway (`--replicas`, BENCH_REPLICAS; default 1). */
  replicas: number;
  /**
   * The tracing scenario as a probe (`--traced-env`, `--untraced-env`): variables over each side's
   * own, to measure where tracing's cost lies. Empty for the figure itself; a probe's run prints its
   * figures and leaves bench/results.json as it was.
   */
  tracingProbe: TracingProbe;
}

/** Variables the tracing scenario gives its traced and its untraced side on top of their own (a probe). */
export interface TracingProbe {
  traced: Record<string, string>;
  untraced: Record<string, string>;
}

/** One line of the printed table: a label and its figures (columns are the union over rows). */
export interface TableRow {
  scenario: string;
  case: string;
  values: Record<string, string | number>;
}

export interface ScenarioResult {
  rows: TableRow[];
  /** What goes to bench/results.json under the scenario's name. */
  data: Record<string, unknown>;
}

/** A benchmark scenario; each lives in its own module under scenarios/ and is listed in scenarios/index.ts. */
export interface Scenario {
  name: string;
  title: string;
  /** Extra env per service this scenario needs (e.g. raised rate limits), merged before the stack starts. */
  env?: Partial<Record<'gateway' | 'checkout' | 'b2b' | 'vendor' | 'admin' | 'notifier', Record<string, string>>>;
  run(ctx: BenchContext): Promise<ScenarioResult>;
}
