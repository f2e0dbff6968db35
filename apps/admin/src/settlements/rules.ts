import { parse as parseCsv, type CsvError } from 'csv-parse/sync';

export type CarrierName = 'carrier_a' | 'carrier_b';

/** Settlement CSV headers, exact and in order (DESIGN §7). */
export const SETTLEMENT_HEADERS: Record<CarrierName, readonly string[]> = {
  carrier_a: ['Waybill No', 'Billing Date', 'Weight (kg)', 'Amount (MYR)'],
  carrier_b: ['Tracking Number', 'Invoice Date', 'Chargeable Weight', 'Total Charge'],
};

/** One valid bill line: tracking id, billing date (YYYY-MM-DD), cost with two decimals, billed weight with three. */
export interface SettlementRow {
  trackingId: string;
  billedOn: string;
  actualCost: string;
  billedKg: string;
}

export type RowResult = { ok: true; row: SettlementRow } | { ok: false; error: string };

const TRACKING_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const WEIGHT = /^\d{1,6}(\.\d{1,3})?$/;
const AMOUNT = /^\d{1,10}(\.\d{1,2})?$/;

/** carrier_a writes dates YYYY-MM-DD, carrier_b DD/MM/YYYY; either becomes YYYY-MM-DD when it is a real day. */
export function billingDate(carrier: CarrierName, value: string): string | null {
  const match = carrier === 'carrier_a' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value);
  if (!match) return null;
  const [year, month, day] = carrier === 'carrier_a' ? [match[1], match[2], match[3]] : [match[3], match[2], match[1]];
  const date = new Date(`${year}-${month}-${day}T00:00:00.000Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== `${year}-${month}-${day}` || Number(year) < 2000) return null;
  return `${year}-${month}-${day}`;
}

/** Checks one data row of the carrier's layout; a bad one becomes `line N: why`. */
export function parseSettlementRow(carrier: CarrierName, fields: string[], line: number): RowResult {
  const fail = (why: string): RowResult => ({ ok: false, error: `line ${line}: ${why}` });
  const header = SETTLEMENT_HEADERS[carrier];
  if (fields.length !== header.length) return fail(`expected ${header.length} columns, got ${fields.length}`);
  const [trackingId, date, weight, amount] = fields.map((field) => field.trim());
  if (!TRACKING_ID.test(trackingId)) return fail(`${header[0]} "${trackingId.slice(0, 40)}" is not a tracking id`);
  const billedOn = billingDate(carrier, date);
  if (!billedOn) return fail(`${header[1]} "${date.slice(0, 40)}" is not a date (${carrier === 'carrier_a' ? 'YYYY-MM-DD' : 'DD/MM/YYYY'})`);
  if (!WEIGHT.test(weight)) return fail(`${header[2]} "${weight.slice(0, 40)}" is not a weight`);
  if (!AMOUNT.test(amount)) return fail(`${header[3]} "${amount.slice(0, 40)}" is not an amount`);
  return { ok: true, row: { trackingId, billedOn, actualCost: Number(amount).toFixed(2), billedKg: Number(weight).toFixed(3) } };
}

export type ParsedSettlementCsv =
  | { ok: true; total: number; rows: SettlementRow[]; parseErrors: string[] }
  | { ok: false; code: 'wrong_header'; detail: string };

/**
 * Parses the carrier's CSV with csv-parse: the header must match exactly or the file is refused
 * (`wrong_header`); every other bad row, malformed quoting included, is a parse error and the
 * rest go on; blank lines are skipped. `total` counts the data rows, good and bad.
 */
export function parseSettlementCsv(carrier: CarrierName, csvText: string): ParsedSettlementCsv {
  const records = recordsWithLines(csvText);
  const expected = SETTLEMENT_HEADERS[carrier];
  const [header, ...data] = records.records;
  const headerOk = header && header.line === 1 && header.fields.length === expected.length && header.fields.every((name, i) => name === expected[i]);
  if (!headerOk) {
    return { ok: false, code: 'wrong_header', detail: `the first line must be exactly: ${expected.join(',')}` };
  }
  const rows: SettlementRow[] = [];
  const parseErrors = [...records.errors];
  for (const { fields, line } of data) {
    const result = parseSettlementRow(carrier, fields, line);
    if (result.ok) rows.push(result.row);
    else parseErrors.push(result.error);
  }
  return { ok: true, total: data.length + records.errors.length, rows, parseErrors };
}

interface Records {
  records: { fields: string[]; line: number }[];
  /** Records csv-parse could not read (`line N: why`). */
  errors: string[];
}

/**
 * The non-blank records with their line numbers. The common file (one line per record, nothing
 * csv-parse refuses) is read without csv-parse's per-record info, which costs more than the
 * parsing itself; otherwise (a quoted field spanning lines, a malformed record) it is read again
 * with the info, so line numbers stay right.
 */
function recordsWithLines(csvText: string): Records {
  const base = { bom: true, relax_column_count: true, skip_records_with_error: true } as const;
  let skipped = 0;
  const plain = parseCsv(csvText, {
    ...base,
    on_skip: () => {
      skipped += 1;
    },
  }) as string[][];
  const simple = skipped === 0 && plain.every((fields) => fields.every((field) => !field.includes('\n') && !field.includes('\r')));
  if (simple) {
    const records = plain.map((fields, i) => ({ fields, line: i + 1 })).filter(({ fields }) => !(fields.length === 1 && fields[0].trim() === ''));
    return { records, errors: [] };
  }
  const errors: CsvError[] = [];
  const parsed = parseCsv(csvText, {
    ...base,
    info: true,
    skip_empty_lines: true,
    on_skip: (err) => {
      if (err) errors.push(err);
    },
  }) as unknown as { record: string[]; info: { lines: number } }[];
  return {
    records: parsed.map(({ record, info }) => ({ fields: record, line: info.lines })),
    errors: errors.map((err) => `line ${lineOf(err)}: ${err.message.slice(0, 200)}`),
  };
}

function lineOf(err: CsvError): number {
  const lines = (err as CsvError & { lines?: number }).lines;
  return typeof lines === 'number' ? lines : 0;
}
