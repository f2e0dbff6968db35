import type { LogEntry } from './logs';
import { describeExit, ManagedProcess } from './process';

function node(script: string, sink: (e: LogEntry) => void = () => undefined, keepLines = 10) {
  return new ManagedProcess({ name: 'demo', command: process.execPath, args: ['-e', script], cwd: process.cwd(), env: { ...process.env, GREETING: 'hi' }, sink, keepLines });
}

describe('ManagedProcess', () => {
  it('splits output into lines for the sink and keeps the last ones', async () => {
    const seen: LogEntry[] = [];
    const proc = node("console.log(process.env.GREETING + '\\nsecond'); console.error('oops'); process.exit(3)", (e) => seen.push(e), 2);
    proc.start();
    const exit = await proc.exited();
    expect(exit).toEqual({ code: 3, signal: null, requested: false });
    expect(describeExit(exit)).toBe('exited with code 3');
    expect(seen.filter((e) => e.stream === 'stdout').map((e) => e.line)).toEqual(['hi', 'second']);
    expect(seen.find((e) => e.stream === 'stderr')).toEqual({ source: 'demo', line: 'oops', stream: 'stderr' });
    expect(proc.lines.snapshot()).toHaveLength(2);
    expect(proc.running).toBe(false);
  });

  it('keeps its warnings and errors however many lines came after them, across restarts', async () => {
    const warn = JSON.stringify({ level: 40, msg: 'consumer not running; retrying' });
    const info = JSON.stringify({ level: 30, msg: 'busy' });
    const error = JSON.stringify({ level: 50, msg: 'outbox publish failed; will retry' });
    const proc = node(`console.log(${JSON.stringify(warn)}); for (let i = 0; i < 50; i++) console.log(${JSON.stringify(info)}); console.log(${JSON.stringify(error)})`, undefined, 3);
    proc.start();
    await proc.exited();
    expect(proc.lines.snapshot()).toEqual([info, info, error]);
    expect(proc.notableLines.snapshot()).toEqual([warn, error]);
    proc.start();
    await proc.exited();
    // the last three of them, the first run's among them
    expect(proc.notableLines.snapshot()).toEqual([error, warn, error]);
  });

  it('stops with SIGTERM and can start again', async () => {
    const proc = node("process.on('SIGTERM', () => { console.log('bye'); process.exit(0); }); console.log('up'); setInterval(() => {}, 1000)");
    const exits: boolean[] = [];
    proc.onExit((e) => exits.push(e.requested));
    for (let round = 0; round < 2; round += 1) {
      proc.start();
      expect(proc.running).toBe(true);
      expect(() => proc.start()).toThrow('already running');
      await waitForLine(proc, 'up');
      await proc.stop();
      expect(proc.running).toBe(false);
      expect(proc.lines.snapshot()).toContain('bye');
    }
    expect(exits).toEqual([true, true]);
  });

  it('starts again with changed variables: set, removed, the others kept, and kept for the next start', async () => {
    const proc = new ManagedProcess({
      name: 'demo',
      command: process.execPath,
      args: ['-e', "console.log([process.env.GREETING, process.env.FAREWELL ?? '-', process.env.KEPT].join(' '))"],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, GREETING: 'hi', FAREWELL: 'bye', KEPT: 'kept' },
      sink: () => undefined,
      keepLines: 10,
    });
    const lineOfRun = async (envChanges?: Record<string, string | undefined>) => {
      proc.start(envChanges);
      await proc.exited();
      return proc.lines.snapshot().at(-1);
    };
    expect(await lineOfRun()).toBe('hi bye kept');
    expect(await lineOfRun({ GREETING: 'hello', FAREWELL: undefined })).toBe('hello - kept');
    expect(await lineOfRun()).toBe('hello - kept');
  });

  it('kills with SIGKILL what ignores SIGTERM', async () => {
    const proc = node("process.on('SIGTERM', () => console.log('ignored')); console.log('up'); setInterval(() => {}, 1000)");
    proc.start();
    await waitForLine(proc, 'up');
    await proc.stop(300);
    expect(describeExit(await proc.exited())).toBe('was killed by SIGKILL');
    expect(proc.lines.snapshot()).toEqual(['up', 'ignored', 'did not stop within 300 ms; killed']);
  });

  it('reports a command that cannot start', async () => {
    const proc = new ManagedProcess({ name: 'ghost', command: '/nonexistent/binary', args: [], cwd: process.cwd(), env: {}, sink: () => undefined, keepLines: 5 });
    proc.start();
    const exit = await proc.exited();
    expect(describeExit(exit)).toBe('could not be started');
    expect(proc.lines.snapshot()[0]).toMatch(/could not start/);
  });
});

async function waitForLine(proc: ManagedProcess, line: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!proc.lines.snapshot().includes(line)) {
    if (Date.now() > deadline) throw new Error(`no line "${line}"`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
