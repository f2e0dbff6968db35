import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { hasExited, signalGroup, trackChild } from './children';
import { isNotableLine, LineBuffer, type LogSink } from './logs';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when it ended because stop() was called. */
  requested: boolean;
}

export interface ManagedProcessOptions {
  /** Log source name, e.g. `gateway`. */
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  sink: LogSink;
  /** How many recent output lines to keep for error reports (and as many notable ones: isNotableLine). */
  keepLines: number;
}

/**
 * A long-running child (one service) in its own process group, its output split into lines
 * that go to the sink and into a ring buffer. It can be stopped and started again.
 */
export class ManagedProcess {
  readonly lines: LineBuffer;
  /** Its warnings and errors (isNotableLine) since it was made, across restarts: the last keepLines of them. */
  readonly notableLines: LineBuffer;
  private child?: ChildProcess;
  private exitPromise?: Promise<ProcessExit>;
  private readonly exitListeners = new Set<(exit: ProcessExit) => void>();
  private stopRequested = false;

  /** The environment it starts with (start's `envChanges` change it). */
  private readonly environment: NodeJS.ProcessEnv;

  constructor(private readonly options: ManagedProcessOptions) {
    this.lines = new LineBuffer(options.keepLines);
    this.notableLines = new LineBuffer(options.keepLines);
    this.environment = { ...options.env };
  }

  get name(): string {
    return this.options.name;
  }

  get running(): boolean {
    return this.child !== undefined && !hasExited(this.child);
  }

  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  /** One variable of the environment it starts with next (undefined when unset). */
  variable(name: string): string | undefined {
    return this.environment[name];
  }

  /** Called each time the process ends (expected or not). */
  onExit(listener: (exit: ProcessExit) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /**
   * Starts the process. `envChanges` change its environment for this start and every later one:
   * a variable set to a string is set, one set to undefined removed.
   */
  start(envChanges?: Record<string, string | undefined>): void {
    if (this.running) throw new Error(`${this.name} is already running`);
    if (envChanges) {
      for (const [name, value] of Object.entries(envChanges)) {
        if (value === undefined) delete this.environment[name];
        else this.environment[name] = value;
      }
    }
    const child = spawn(this.options.command, this.options.args, {
      cwd: this.options.cwd,
      env: this.environment,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    trackChild(child);
    this.child = child;
    this.stopRequested = false;
    const record = (stream: 'stdout' | 'stderr') => (line: string) => {
      this.lines.push(line);
      if (isNotableLine(line, stream)) this.notableLines.push(line);
      this.options.sink({ source: this.name, line, stream });
    };
    if (child.stdout) createInterface({ input: child.stdout }).on('line', record('stdout'));
    if (child.stderr) createInterface({ input: child.stderr }).on('line', record('stderr'));
    this.exitPromise = new Promise((resolve) => {
      child.once('error', (err) => {
        record('stderr')(`could not start: ${err.message}`);
        resolve({ code: null, signal: null, requested: this.stopRequested });
      });
      child.once('exit', (code, signal) => resolve({ code, signal, requested: this.stopRequested }));
    });
    void this.exitPromise.then((exit) => {
      for (const listener of this.exitListeners) listener(exit);
    });
  }

  /** Resolves when the current run ends. */
  exited(): Promise<ProcessExit> {
    return this.exitPromise ?? Promise.resolve({ code: null, signal: null, requested: false });
  }

  /** SIGTERM to the process group, then SIGKILL when it has not ended after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    const child = this.child;
    if (!child || hasExited(child)) return;
    const exited = this.exited();
    this.stopRequested = true;
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => {
      const killed = `did not stop within ${graceMs} ms; killed`;
      this.lines.push(killed);
      this.notableLines.push(killed);
      signalGroup(child, 'SIGKILL');
    }, graceMs);
    await exited;
    clearTimeout(timer);
  }
}

export function describeExit(exit: ProcessExit): string {
  if (exit.signal) return `was killed by ${exit.signal}`;
  if (exit.code === null) return 'could not be started';
  return `exited with code ${exit.code}`;
}
