import type { ChildProcess } from 'node:child_process';

/**
 * Child processes the launcher started in their own process groups. If the launcher itself ends
 * without stopping them (an uncaught error, process.exit), the `exit` hook kills their groups so
 * nothing is left holding the ports.
 */
const live = new Set<ChildProcess>();
let hooked = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

export function trackChild(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const running of live) killGroup(running, 'SIGKILL');
    });
  }
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Sends `signal` to the child's process group (it was spawned detached). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!hasExited(child)) killGroup(child, signal);
}
