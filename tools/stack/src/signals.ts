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

export interface StopSignalOptions {
  /** Called once, at the first SIGINT or SIGTERM: stop what runs (the process exits when it is done). */
  onStop(signal: NodeJS.Signals): void;
  /** Says that a later signal forces the exit. */
  say(line: string): void;
  /** Where the signals come from (default the process) and how the forced exit happens (default process.exit). */
  signals?: Pick<NodeJS.EventEmitter, 'on'>;
  exit?: (code: number) => void;
  now?: () => number;
}

/**
 * SIGINT and SIGTERM as the launcher and the bench read them: the first calls `onStop`, a repeat
 * within the window (the same Ctrl-C) is ignored, a later one exits at once with 130. Answers the
 * gate, whose `first` tells whether the run is being stopped.
 */
export function onStopSignals(options: StopSignalOptions): SignalGate {
  const gate = createSignalGate({ now: options.now });
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const onSignal = (signal: NodeJS.Signals) => {
    const decision = gate.receive(signal);
    if (decision === 'ignore') return;
    if (decision === 'force') {
      options.say(`${signal} again: exiting now`);
      exit(130);
      return;
    }
    options.onStop(signal);
  };
  const signals = options.signals ?? process;
  signals.on('SIGINT', onSignal);
  signals.on('SIGTERM', onSignal);
  return gate;
}
