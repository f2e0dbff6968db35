import { EventEmitter } from 'node:events';
import { createSignalGate, onStopSignals, SIGNAL_REPEAT_WINDOW_MS } from './signals';

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

describe('onStopSignals', () => {
  it('stops once at the first SIGINT or SIGTERM, ignores the same Ctrl-C again, and exits 130 at a later one', () => {
    const time = clock();
    const signals = new EventEmitter();
    const stops: NodeJS.Signals[] = [];
    const said: string[] = [];
    const exits: number[] = [];
    const gate = onStopSignals({ onStop: (signal) => stops.push(signal), say: (line) => said.push(line), signals, exit: (code) => exits.push(code), now: time.now });
    expect(gate.first).toBeUndefined();
    signals.emit('SIGTERM', 'SIGTERM');
    expect(stops).toEqual(['SIGTERM']);
    expect(gate.first).toBe('SIGTERM');
    time.advance(10);
    signals.emit('SIGINT', 'SIGINT');
    expect({ stops, exits }).toEqual({ stops: ['SIGTERM'], exits: [] });
    time.advance(SIGNAL_REPEAT_WINDOW_MS);
    signals.emit('SIGINT', 'SIGINT');
    expect({ stops, exits, said }).toEqual({ stops: ['SIGTERM'], exits: [130], said: ['SIGINT again: exiting now'] });
  });
});
