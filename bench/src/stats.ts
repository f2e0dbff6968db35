/** The p-th percentile (0-100) by nearest rank; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** A table with aligned columns; the header is the union of the rows' value keys. */
export function renderTable(rows: { scenario: string; case: string; values: Record<string, string | number> }[]): string {
  const keys: string[] = [];
  for (const row of rows) for (const key of Object.keys(row.values)) if (!keys.includes(key)) keys.push(key);
  const header = ['scenario', 'case', ...keys];
  const body = rows.map((row) => [row.scenario, row.case, ...keys.map((k) => (row.values[k] === undefined ? '' : String(row.values[k])))]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** The median (the mean of the middle two for an even count); NaN for no samples. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
