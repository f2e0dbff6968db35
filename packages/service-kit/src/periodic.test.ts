import { waitFor } from '@pasar/testkit';
import pino from 'pino';
import { Registry } from 'prom-client';
import { registerWorkerMetrics, startPeriodic } from './periodic';

const log = pino({ level: 'silent' });

test('runs a round at start and again after each pause, never two at once, and stops cleanly', async () => {
  let active = 0;
  let maxActive = 0;
  let count = 0;
  const worker = startPeriodic({
    name: 'overlap',
    intervalMs: 5,
    log,
    async round() {
      active += 1;
      maxActive = Math.max(maxActive, active);
      count += 1;
      await new Promise((r) => setTimeout(r, 20)); // longer than the interval: rounds would stack with setInterval
      active -= 1;
    },
  });
  await waitFor(() => count >= 4);
  await worker.stop();
  const after = count;
  await new Promise((r) => setTimeout(r, 60));
  expect(count).toBe(after);
  expect(maxActive).toBe(1);
  expect(active).toBe(0);
  expect(worker.rounds.ok).toBe(after);
});

test('a failed round is logged and counted, and the next round runs', async () => {
  const warnings: unknown[] = [];
  const spyLog = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  let count = 0;
  const worker = startPeriodic({
    name: 'flaky',
    intervalMs: 5,
    log: spyLog,
    async round() {
      count += 1;
      if (count === 1) throw new Error('database away');
    },
  });
  await waitFor(() => count >= 3);
  await worker.stop();
  expect(worker.rounds.failed).toBe(1);
  expect(worker.rounds.ok).toBeGreaterThanOrEqual(2);
  expect(warnings[0]).toMatchObject({ worker: 'flaky', msg: 'flaky round failed; the next round retries' });
});

test('a round that answers true (more work) runs the next at once, not after the interval', async () => {
  let count = 0;
  const worker = startPeriodic({ name: 'backlog', intervalMs: 60_000, log, round: async () => ++count < 5 });
  await waitFor(() => count >= 5);
  await new Promise((r) => setTimeout(r, 50));
  await worker.stop();
  expect(count).toBe(5); // then it waits the full minute
});

test('runAtStart: false waits one pause first', async () => {
  let count = 0;
  const worker = startPeriodic({ name: 'late', intervalMs: 60_000, log, runAtStart: false, round: async () => void (count += 1) });
  await new Promise((r) => setTimeout(r, 50));
  await worker.stop();
  expect(count).toBe(0);
});

test('jitter spreads the pauses around the interval and stays within its bound', async () => {
  const starts: number[] = [];
  const worker = startPeriodic({ name: 'jitter', intervalMs: 40, jitter: 0.5, log, round: async () => void starts.push(Date.now()) });
  await waitFor(() => starts.length >= 6, 20_000);
  await worker.stop();
  const gaps = starts.slice(1).map((t, i) => t - starts[i]);
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(19); // 40 ms − 50 %, less a timer's rounding
});

test('/metrics reports rounds by outcome and their durations', async () => {
  let count = 0;
  const worker = startPeriodic({
    name: 'measured',
    intervalMs: 5,
    log,
    async round() {
      count += 1;
      if (count === 2) throw new Error('once');
    },
  });
  await waitFor(() => count >= 3);
  await worker.stop();
  const registry = new Registry();
  registerWorkerMetrics(registry, [worker, { name: 'plain', stop: async () => undefined }]);
  const text = await registry.metrics();
  expect(text).toContain(`pasar_worker_rounds_total{worker="measured",outcome="ok"} ${worker.rounds.ok}`);
  expect(text).toContain('pasar_worker_rounds_total{worker="measured",outcome="failed"} 1');
  expect(text).toContain(`pasar_worker_round_seconds_count{worker="measured"} ${count}`);
  expect(text).not.toContain('worker="plain"');
});
