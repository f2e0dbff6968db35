import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Stack } from '@pasar/stack';
import { round } from './stats';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 almost everywhere). */
const TICKS_PER_SECOND = (() => {
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

/** CPU time and RSS of a process from /proc (Linux); undefined when it is gone or /proc is missing. */
export function readProcess(pid: number): ProcessFigures | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces: the fields after it start after its ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]); // field 14
    const stime = Number(fields[12]); // field 15
    const rssKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return { pid, cpuMs: ((utime + stime) * 1000) / TICKS_PER_SECOND, rssMiB: round(rssKiB / 1024, 1) };
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

/** RSS in MiB by service. */
export function rssOf(figures: StackProcesses): Record<string, number | null> {
  return Object.fromEntries(Object.entries(figures).map(([name, f]) => [name, f ? f.rssMiB : null]));
}
