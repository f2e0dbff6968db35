import { mergeResults, type BenchResults } from './results';

const run = (scenarios: BenchResults['scenarios'], runAt = '2026-12-06T05:00:00.000Z'): BenchResults => ({
  runAt,
  machine: { cpus: 2 },
  settings: { durationS: 10 },
  scenarios,
  processes: { rssMiBIdle: { gateway: 90 } },
});

describe('bench/results.json across runs', () => {
  test('a run replaces the scenarios it measured and keeps the others', () => {
    const previous = { ...run({ webhooks: { p50Ms: 20, measuredAt: 'earlier' }, machine: { wakeUpCostUs: 100 } }, '2026-12-05T00:00:00.000Z'), containers: { services: [] } };
    const merged = mergeResults(previous, run({ machine: { wakeUpCostUs: 125 }, 'settlement-reconciliation': { totalS: 4 } }));
    expect(merged.runAt).toBe('2026-12-06T05:00:00.000Z');
    expect(merged.scenarios).toEqual({
      webhooks: { p50Ms: 20, measuredAt: 'earlier' },
      machine: { wakeUpCostUs: 125 },
      'settlement-reconciliation': { totalS: 4 },
    });
    expect(merged.processes).toEqual({ rssMiBIdle: { gateway: 90 } });
    // the container smoke's figures are not the bench's to drop
    expect((merged as unknown as { containers: unknown }).containers).toEqual({ services: [] });
  });

  test('no previous file, or one that is not results, keeps nothing', () => {
    for (const previous of [undefined, null, 'text', [1], { scenarios: [1, 2] }, { scenarios: { broken: 'x' } }]) {
      expect(mergeResults(previous, run({ machine: { wakeUpCostUs: 1 } })).scenarios).toEqual({ machine: { wakeUpCostUs: 1 } });
    }
  });
});
