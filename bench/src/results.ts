/**
 * bench/results.json holds the latest figures of every scenario, each stamped with when it ran
 * and the machine's load then: a run with `--only` replaces the scenarios it ran and keeps the
 * others (and `containers`, which `npm run compose:smoke` writes), so the file shows where each
 * figure stands without running every scenario at once.
 */
export interface ScenarioStamp {
  /** ISO time the scenario finished. */
  measuredAt: string;
  /** os.loadavg() (1, 5, 15 min) when it finished: figures taken under load are upper bounds. */
  loadAverage: number[];
  /** The Node.js version it ran on (the services run on the bench's own node, process.execPath). */
  node: string;
}

export interface BenchResults {
  runAt: string;
  machine: Record<string, unknown>;
  settings: Record<string, unknown>;
  scenarios: Record<string, Record<string, unknown>>;
  processes: Record<string, unknown>;
}

/** The file after this run: this run's header and scenarios over the previous file's other scenarios. */
export function mergeResults(previous: unknown, run: BenchResults): BenchResults {
  const earlier = isRecord(previous) && isRecord(previous.scenarios) ? previous.scenarios : {};
  const kept: Record<string, Record<string, unknown>> = {};
  for (const [name, figures] of Object.entries(earlier)) {
    if (!(name in run.scenarios) && isRecord(figures)) kept[name] = figures;
  }
  // other top-level entries (the container smoke's `containers`) stay as they were
  const others = isRecord(previous) ? previous : {};
  return { ...others, ...run, scenarios: { ...kept, ...run.scenarios } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
