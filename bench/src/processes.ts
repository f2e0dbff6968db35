import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import type { Stack } from '@pasar/stack';
import { round } from './stats';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 almost everywhere). */
export const TICKS_PER_SECOND = (() => {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
})();

/** One service process as the kernel counts it. */
export interface ProcessFigures {
  pid: number;
  /** User plus system CPU time since the process started. */
  cpuMs: number;
  /** Resident set size now. */
  rssMiB: number;
}

/**
 * The command name and CPU milliseconds of one /proc/<pid>/stat line: utime + stime (fields 14, 15)
 * and, with `withReaped`, cutime + cstime (16, 17): what the children it has reaped used.
 */
export function statFigures(stat: string, withReaped = false): { command: string; cpuMs: number } {
  // the command name (field 2) may hold spaces and parentheses: the fields after it start after its last ')'
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]) + (withReaped ? Number(fields[13]) + Number(fields[14]) : 0);
  return { command: stat.slice(stat.indexOf('(') + 1, close), cpuMs: (ticks * 1000) / TICKS_PER_SECOND };
}

/** CPU time and RSS of a process from /proc (Linux); undefined when it is gone or /proc is missing. */
export function readProcess(pid: number): ProcessFigures | undefined {
  try {
    const { cpuMs } = statFigures(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    const rssKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return { pid, cpuMs, rssMiB: round(rssKiB / 1024, 1) };
  } catch {
    return undefined;
  }
}

export type StackProcesses = Record<string, ProcessFigures | undefined>;

/** Every service process of the stack, by service name. */
export function readStack(stack: Stack): StackProcesses {
  const figures: StackProcesses = {};
  for (const [name, service] of Object.entries(stack.services)) figures[name] = service.pid === undefined ? undefined : readProcess(service.pid);
  return figures;
}

/** CPU milliseconds each service spent between two readings, and their sum. */
export function cpuBetween(before: StackProcesses, after: StackProcesses): { totalMs: number; byService: Record<string, number> } {
  const byService: Record<string, number> = {};
  let totalMs = 0;
  for (const [name, end] of Object.entries(after)) {
    const start = before[name];
    if (!start || !end || start.pid !== end.pid) throw new Error(`${name} has no CPU reading for both ends (restarted or gone)`);
    byService[name] = round(end.cpuMs - start.cpuMs, 0);
    totalMs += end.cpuMs - start.cpuMs;
  }
  return { totalMs: round(totalMs, 0), byService };
}

/** CPU milliseconds of each service between two readings; null for one restarted in between (a scenario that restarts the services). */
export function cpuOverTheRun(before: StackProcesses, after: StackProcesses): Record<string, number | null> {
  return Object.fromEntries(
    Object.entries(after).map(([name, end]) => {
      const start = before[name];
      return [name, start && end && start.pid === end.pid ? round(end.cpuMs - start.cpuMs, 0) : null];
    }),
  );
}

/** RSS in MiB by service. */
export function rssOf(figures: StackProcesses): Record<string, number | null> {
  return Object.fromEntries(Object.entries(figures).map(([name, f]) => [name, f ? f.rssMiB : null]));
}

/**
 * CPU milliseconds so far of what the stack runs on besides its services: every PostgreSQL
 * process (backends and background, and the backends that ended: the postmaster's children
 * times), every nats-server, and this bench process itself (the load
 * generator shares the cores). Other users' processes of the same servers count too: read it
 * on a machine that runs nothing else.
 */
export function readInfrastructure(): Record<'postgres' | 'nats' | 'bench', number> {
  const figures = { postgres: 0, nats: 0, bench: 0 };
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return figures;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const { command } = statFigures(stat);
      const key = Number(pid) === process.pid ? 'bench' : command === 'postgres' ? 'postgres' : command === 'nats-server' ? 'nats' : undefined;
      if (!key) continue;
      // PostgreSQL with what its reaped children used: the postmaster reaps its backends, so a
      // backend that ended since the last read still counts (it was lost before)
      figures[key] += statFigures(stat, key === 'postgres').cpuMs;
    } catch {
      // the process ended between the listing and the read
    }
  }
  return figures;
}

/** What PostgreSQL, NATS and the bench used between two readInfrastructure readings (ms). */
export function infrastructureBetween(before: ReturnType<typeof readInfrastructure>, after: ReturnType<typeof readInfrastructure>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([name, ms]) => [name, ms - before[name as keyof typeof before]]));
}

/**
 * Runs a measured round; with BENCH_CPU_PROF_DIR and BENCH_CPU_PROF_WINDOW set, every service is
 * profiled over this round alone (cpu-profile-preload.cjs: SIGUSR2 starts, the next one writes
 * `<pid>-<n>.cpuprofile`, n counting the rounds in the order they ran).
 */
export async function profiledRound<T>(stack: Stack, round: () => Promise<T>): Promise<T> {
  const windowed = Boolean(process.env.BENCH_CPU_PROF_DIR && process.env.BENCH_CPU_PROF_WINDOW);
  const signal = () => {
    for (const service of Object.values(stack.services)) if (service.pid !== undefined) process.kill(service.pid, 'SIGUSR2');
  };
  if (windowed) signal();
  try {
    return await round();
  } finally {
    if (windowed) signal();
  }
}
