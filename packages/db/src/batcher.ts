import { AsyncResource } from 'node:async_hooks';

/** How a Batcher runs its batches and answers its callers. */
export interface BatcherOptions<I, O> {
  /** Runs one batch (one statement, one round trip); answers one output per input, in order. */
  run: (inputs: I[]) => Promise<O[]>;
  /** Inputs per run at most. */
  maxBatch: number;
  /**
   * Runs in flight at once at most (default 1). With 2, the inputs that arrive while one run is in
   * flight go at once in a second run instead of waiting for the first to return: a run's wait is
   * never a whole round trip behind another, at the price of smaller batches.
   */
  maxInFlight?: number;
  /**
   * Whether a batch of several that failed is run again input by input, so that only the input
   * that breaks it fails (default: always). Answer false for an error after which a run must not
   * be repeated (a broken connection: the batch may have committed).
   */
  retryAlone?: (err: unknown) => boolean;
  /** What the callers of a failed input get (default: the error itself). */
  failure?: (err: unknown) => unknown;
}

interface Queued<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (err: unknown) => void;
  /** The caller's async context (its request's or message's trace, its log fields), for the run it leads. */
  scope: AsyncResource;
}

/**
 * Group commit for statements: an input that arrives while no batch is in flight goes at once,
 * alone (no timer, so an idle service adds no latency); the inputs that arrive while one is in
 * flight queue up and go together, up to `maxBatch`, in ONE run as soon as it returns (or, with
 * `maxInFlight` 2, as soon as a slot is free). Under load each input then costs a fraction of a
 * round trip and of a database wake-up.
 *
 * A run goes in the async context of its first input's caller (AsyncResource), whose answer waits
 * for it: its statements (their spans, when tracing is on) belong to that caller's trace. A run
 * started as another returned would otherwise go in the context of the run before, and so on:
 * under a steady load every run would belong to the trace of whichever request started the chain,
 * long after that request had its answer.
 */
export class Batcher<I, O> {
  private readonly queue: Queued<I, O>[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private stopped: (() => unknown) | null = null;

  constructor(private readonly options: BatcherOptions<I, O>) {}

  /** Inputs waiting for the batch in flight to return. */
  get queued(): number {
    return this.queue.length;
  }

  /** Whether a batch is in flight. */
  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** The output of `input`'s run (alone or with the inputs queued beside it). */
  submit(input: I): Promise<O> {
    if (this.stopped) return Promise.reject(this.stopped());
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject, scope: new AsyncResource('PasarBatcherInput') });
      if (this.inFlight.size < (this.options.maxInFlight ?? 1)) this.sendNext();
    });
  }

  /** Refuses new and queued inputs (with `refusal()`) and waits for the batch in flight. */
  async stop(refusal: () => unknown): Promise<void> {
    this.stopped = refusal;
    for (const queued of this.queue.splice(0)) queued.reject(refusal());
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Sends what is queued (up to maxBatch) as one run; when the run returns, the next. */
  private sendNext(): void {
    const batch = this.queue.splice(0, this.options.maxBatch);
    if (batch.length === 0) return;
    const running: Promise<void> = batch[0].scope.runInAsyncScope(() => this.send(batch)).finally(() => {
      this.inFlight.delete(running);
      this.sendNext();
    });
    this.inFlight.add(running);
  }

  private async send(batch: Queued<I, O>[]): Promise<void> {
    const { run, retryAlone = () => true, failure = (err: unknown) => err } = this.options;
    try {
      const outputs = await run(batch.map((q) => q.input));
      if (outputs.length !== batch.length) throw new Error(`a batch of ${batch.length} answered ${outputs.length} outputs`);
      batch.forEach((q, i) => q.resolve(outputs[i]));
      return;
    } catch (err) {
      if (batch.length === 1 || !retryAlone(err)) {
        for (const q of batch) q.reject(failure(err));
        return;
      }
    }
    // the batch failed as a whole: one by one (each in its caller's context), so only the input
    // that breaks it fails
    for (const q of batch) {
      try {
        const [output] = await q.scope.runInAsyncScope(() => run([q.input]));
        q.resolve(output);
      } catch (err) {
        q.reject(failure(err));
      }
    }
  }
}
