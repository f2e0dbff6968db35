import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { signIn } from '@pasar/stack';
import { round } from '../stats';
import type { BenchContext, Scenario, ScenarioResult } from '../types';

const ROWS = 100_000;
const HEADER = 'Waybill No,Billing Date,Weight (kg),Amount (MYR)';

interface ImportAnswer {
  total: number;
  inserted: number;
  duplicate: number;
  unmatched: number;
  parseErrors: string[];
}

/**
 * Issue 11's bench: POST /admin/shipping/settlements/import of a 100,000-row carrier_a CSV through
 * the gateway as the administrator, timed from request to answer (parse, validate, batched
 * `INSERT ... ON CONFLICT DO NOTHING`, matching); then the same file again, where every row is a
 * duplicate. Reported as rows per second.
 */
export const settlementImport: Scenario = {
  name: 'settlement-import',
  title: `POST /admin/shipping/settlements/import of ${ROWS.toLocaleString('en')} rows`,
  // a 100,000-row import is one request: give it room beyond the default upstream timeout
  env: { gateway: { UPSTREAM_TIMEOUT_MS: '120000' } },
  async run({ stack, log }: BenchContext): Promise<ScenarioResult> {
    const admin = await signIn(stack.gatewayUrl, stack.admin.email, stack.admin.password);
    const run = randomBytes(4).toString('hex').toUpperCase();
    const lines = [HEADER];
    for (let i = 0; i < ROWS; i += 1) {
      const day = String((i % 28) + 1).padStart(2, '0');
      lines.push(`B${run}${String(i).padStart(7, '0')},2026-10-${day},${(0.5 + (i % 40) / 10).toFixed(2)},${(5 + (i % 300) / 10).toFixed(2)}`);
    }
    const csvText = lines.join('\n');
    const mib = Buffer.byteLength(csvText) / (1024 * 1024);
    log(`${ROWS} rows, ${mib.toFixed(1)} MiB of CSV`);

    const timedImport = async (): Promise<{ seconds: number; answer: ImportAnswer }> => {
      const started = performance.now();
      const res = await admin.call('POST', '/admin/shipping/settlements/import', { carrier: 'carrier_a', csvText });
      const seconds = (performance.now() - started) / 1000;
      if (res.status !== 200) throw new Error(`import answered ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
      return { seconds, answer: res.json as ImportAnswer };
    };

    const first = await timedImport();
    if (first.answer.inserted !== ROWS || first.answer.parseErrors.length !== 0) throw new Error(`first import: ${JSON.stringify({ ...first.answer, parseErrors: first.answer.parseErrors.length })}`);
    log(`new rows: ${first.seconds.toFixed(2)} s`);
    const again = await timedImport();
    if (again.answer.duplicate !== ROWS) throw new Error(`second import counted ${again.answer.duplicate} duplicates`);
    log(`same file again (all duplicates): ${again.seconds.toFixed(2)} s`);

    const rate = (seconds: number) => Math.round(ROWS / seconds);
    return {
      rows: [
        { scenario: 'settlement import', case: `${ROWS} new rows`, values: { 'rows/s': rate(first.seconds), 's': round(first.seconds), MiB: round(mib) } },
        { scenario: 'settlement import', case: `${ROWS} duplicate rows`, values: { 'rows/s': rate(again.seconds), 's': round(again.seconds), MiB: round(mib) } },
      ],
      data: {
        rows: ROWS,
        csvMiB: round(mib),
        newRows: { seconds: round(first.seconds), rowsPerSecond: rate(first.seconds), inserted: first.answer.inserted, unmatched: first.answer.unmatched },
        duplicateRows: { seconds: round(again.seconds), rowsPerSecond: rate(again.seconds), duplicate: again.answer.duplicate },
      },
    };
  },
};
