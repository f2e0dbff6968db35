import { AsyncLocalStorage } from 'node:async_hooks';
import { Batcher } from './batcher';

/** A run whose batches the test releases by hand; records each batch's inputs. */
function controlledRun(answer: (input: number) => number | Error = (n) => n * 10) {
  const runs: number[][] = [];
  const pending: (() => void)[] = [];
  const run = (inputs: number[]) =>
    new Promise<number[]>((resolve, reject) => {
      runs.push(inputs);
      pending.push(() => {
        const outputs = inputs.map(answer);
        const failed = outputs.find((o): o is Error => o instanceof Error);
        if (failed) reject(failed);
        else resolve(outputs as number[]);
      });
    });
  /** Lets the oldest run answer, then waits for the batcher to have reacted. */
  const release = async () => {
    pending.shift()?.();
    await new Promise((r) => setImmediate(r));
  };
  return { run, runs, release, get open() { return pending.length; } };
}

const settled = <T>(p: Promise<T>) => p.then((value) => ({ value }), (error: unknown) => ({ error: String(error) }));

test('a lone input runs at once, alone; the inputs that arrive meanwhile run together, in order, at most maxBatch at a time', async () => {
  const c = controlledRun();
  const batcher = new Batcher({ run: c.run, maxBatch: 3 });
  const first = batcher.submit(1);
  expect(c.runs).toEqual([[1]]);
  expect({ busy: batcher.busy, queued: batcher.queued }).toEqual({ busy: true, queued: 0 });
  const rest = [2, 3, 4, 5].map((n) => batcher.submit(n));
  expect(batcher.queued).toBe(4);
  await c.release();
  expect(await first).toBe(10);
  expect(c.runs).toEqual([[1], [2, 3, 4]]);
  await c.release();
  expect(c.runs).toEqual([[1], [2, 3, 4], [5]]);
  await c.release();
  expect(await Promise.all(rest)).toEqual([20, 30, 40, 50]);
  expect({ busy: batcher.busy, queued: batcher.queued }).toEqual({ busy: false, queued: 0 });
});

test('a batch that fails as a whole runs again input by input: only the input that breaks it fails, with failure() of its error', async () => {
  const c = controlledRun((n) => (n === 3 ? new Error(`bad ${n}`) : n * 10));
  const batcher = new Batcher({ run: c.run, maxBatch: 10, failure: (err) => new Error(`refused: ${String(err)}`) });
  const first = batcher.submit(1);
  const rest = [2, 3, 4].map((n) => settled(batcher.submit(n)));
  await c.release(); // [1]
  await c.release(); // [2, 3, 4] fails
  while (c.open) await c.release(); // then 2, 3 and 4 alone
  expect(await first).toBe(10);
  expect(c.runs).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  expect(await Promise.all(rest)).toEqual([{ value: 20 }, { error: 'Error: refused: Error: bad 3' }, { value: 40 }]);
});

test('an error retryAlone refuses is never run again: every input of the batch gets it', async () => {
  const c = controlledRun((n) => (n === 2 ? new Error('connection lost') : n));
  const batcher = new Batcher({ run: c.run, maxBatch: 10, retryAlone: () => false });
  const first = batcher.submit(1);
  const rest = [2, 3].map((n) => settled(batcher.submit(n)));
  await c.release();
  await c.release();
  expect(await first).toBe(1);
  expect(await Promise.all(rest)).toEqual([{ error: 'Error: connection lost' }, { error: 'Error: connection lost' }]);
  expect(c.runs).toEqual([[1], [2, 3]]);
});

test('a run that answers another number of outputs fails its batch (then input by input)', async () => {
  let calls = 0;
  const batcher = new Batcher<number, number>({
    maxBatch: 10,
    run: async (inputs) => {
      calls += 1;
      return inputs.length > 1 ? [1] : inputs;
    },
  });
  const all = await Promise.all([1, 2, 3].map((n) => batcher.submit(n)));
  expect(all).toEqual([1, 2, 3]);
  expect(calls).toBe(4); // [1], [2, 3] (one output: failed), [2], [3]
});

test('stop refuses the queued inputs and later ones, and waits for the batch in flight', async () => {
  const c = controlledRun();
  const batcher = new Batcher({ run: c.run, maxBatch: 10 });
  const inFlight = batcher.submit(1);
  const queued = settled(batcher.submit(2));
  let stopped = false;
  const stopping = batcher.stop(() => new Error('stopping')).then(() => (stopped = true));
  expect(await queued).toEqual({ error: 'Error: stopping' });
  expect(await settled(batcher.submit(3))).toEqual({ error: 'Error: stopping' });
  await new Promise((r) => setImmediate(r));
  expect(stopped).toBe(false);
  await c.release();
  await stopping;
  expect(await inFlight).toBe(10);
  expect(c.runs).toEqual([[1]]);
});

test('maxInFlight 2: an input arriving while one run is in flight goes at once in a second run; later ones wait for a free slot and go together', async () => {
  const c = controlledRun();
  const batcher = new Batcher({ run: c.run, maxBatch: 10, maxInFlight: 2 });
  const first = batcher.submit(1);
  const second = batcher.submit(2);
  expect(c.runs).toEqual([[1], [2]]);
  const rest = [3, 4, 5].map((n) => batcher.submit(n));
  expect(batcher.queued).toBe(3);
  await c.release(); // [1] answers: its slot takes the queue
  expect(await first).toBe(10);
  expect(c.runs).toEqual([[1], [2], [3, 4, 5]]);
  while (c.open) await c.release();
  expect([await second, ...(await Promise.all(rest))]).toEqual([20, 30, 40, 50]);
  expect({ busy: batcher.busy, queued: batcher.queued }).toEqual({ busy: false, queued: 0 });
});

test('stop waits for every run in flight (maxInFlight 2)', async () => {
  const c = controlledRun();
  const batcher = new Batcher({ run: c.run, maxBatch: 10, maxInFlight: 2 });
  const runs = [batcher.submit(1), batcher.submit(2)];
  let stopped = false;
  const stopping = batcher.stop(() => new Error('stopping')).then(() => (stopped = true));
  await c.release();
  expect(stopped).toBe(false);
  await c.release();
  await stopping;
  expect(await Promise.all(runs)).toEqual([10, 20]);
});

test("each run goes in its first input's async context (its caller's trace), not in the run's before", async () => {
  const callers = new AsyncLocalStorage<string>();
  const seen: (string | undefined)[] = [];
  const c = controlledRun();
  const batcher = new Batcher({
    run: (inputs: number[]) => {
      seen.push(callers.getStore());
      return c.run(inputs);
    },
    maxBatch: 2,
  });
  const first = callers.run('caller 1', () => batcher.submit(1));
  const queued = [2, 3, 4].map((n) => callers.run(`caller ${n}`, () => batcher.submit(n)));
  // a run after the last, submitted from outside any caller's context
  const outside = batcher.submit(5);
  for (let i = 0; i < 3; i += 1) await c.release();
  expect(await Promise.all([first, ...queued, outside])).toEqual([10, 20, 30, 40, 50]);
  expect(c.runs).toEqual([[1], [2, 3], [4, 5]]);
  expect(seen).toEqual(['caller 1', 'caller 2', 'caller 4']);
});

test('a batch run again input by input runs each input in its own caller\'s context', async () => {
  const callers = new AsyncLocalStorage<string>();
  const seen: [number[], string | undefined][] = [];
  const c = controlledRun((n) => (n === 3 ? new Error('three breaks it') : n * 10));
  const batcher = new Batcher({
    run: (inputs: number[]) => {
      seen.push([inputs, callers.getStore()]);
      return c.run(inputs);
    },
    maxBatch: 2,
  });
  const answers = [1, 2, 3].map((n) => settled(callers.run(`caller ${n}`, () => batcher.submit(n))));
  for (let i = 0; i < 4; i += 1) await c.release();
  expect(await Promise.all(answers)).toEqual([{ value: 10 }, { value: 20 }, { error: 'Error: three breaks it' }]);
  expect(seen).toEqual([
    [[1], 'caller 1'],
    [[2, 3], 'caller 2'],
    [[2], 'caller 2'],
    [[3], 'caller 3'],
  ]);
});
