import { createSignalGate } from './signals';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('createSignalGate', () => {
  it('stops on the first signal and remembers it', () => {
    const gate = createSignalGate({ now: clock().now });
    expect(gate.first).toBeUndefined();
    expect(gate.receive('SIGINT')).toBe('stop');
    expect(gate.first).toBe('SIGINT');
  });

  it('ignores the copy of the same Ctrl-C that npm forwards a moment later', () => {
    const time = clock();
    const gate = createSignalGate({ now: time.now });
    expect(gate.receive('SIGINT')).toBe('stop');
    time.advance(5);
    expect(gate.receive('SIGINT')).toBe('ignore');
    time.advance(900);
    expect(gate.receive('SIGTERM')).toBe('ignore');
  });

  it('forces the exit on a second press after the repeat window', () => {
    const time = clock();
    const gate = createSignalGate({ now: time.now, repeatWindowMs: 1000 });
    gate.receive('SIGINT');
    time.advance(999);
    expect(gate.receive('SIGINT')).toBe('ignore');
    time.advance(1);
    expect(gate.receive('SIGINT')).toBe('force');
    expect(gate.first).toBe('SIGINT');
  });
});
