/**
 * How the launcher reads SIGINT/SIGTERM. One Ctrl-C can arrive more than once: the terminal sends
 * SIGINT to the whole foreground group and `npm start` forwards its own copy to the launcher. So a
 * repeat within `repeatWindowMs` of the first is the same press and is ignored; a later one is a
 * second press and forces the exit.
 */
export type SignalDecision = 'stop' | 'ignore' | 'force';

export interface SignalGate {
  /** What to do about a signal received now. */
  receive(signal: NodeJS.Signals): SignalDecision;
  /** The first signal received, if any. */
  readonly first: NodeJS.Signals | undefined;
}

export const SIGNAL_REPEAT_WINDOW_MS = 1000;

export function createSignalGate(options: { repeatWindowMs?: number; now?: () => number } = {}): SignalGate {
  const repeatWindowMs = options.repeatWindowMs ?? SIGNAL_REPEAT_WINDOW_MS;
  const now = options.now ?? Date.now;
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  return {
    receive(signal) {
      const at = now();
      if (!first) {
        first = { signal, at };
        return 'stop';
      }
      return at - first.at < repeatWindowMs ? 'ignore' : 'force';
    },
    get first() {
      return first?.signal;
    },
  };
}
