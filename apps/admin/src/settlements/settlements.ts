import type { SettlementImportBody, SettlementImportResult } from '@pasar/contracts';
import { now, type AdminDeps } from '../deps';
import type { SettlementRecord } from '../generated/prisma/client';
import { parseSettlementCsv, type SettlementRow } from './rules';

type Deps = Pick<AdminDeps, 'prisma' | 'clock'>;

/** Rows per INSERT: large enough for 100,000 rows in seconds, small enough for one statement's parameters. */
export const IMPORT_BATCH_SIZE = 5_000;

/**
 * POST /admin/shipping/settlements/import: parses the CSV (header exact, else `wrong_header`), then
 * inserts the valid rows in batches with `INSERT ... ON CONFLICT DO NOTHING RETURNING`, each batch
 * committed on its own. The counts are those of inserting row by row with the unique key
 * (carrier, tracking_id, billed_on): a row whose key exists already, or came earlier in the same
 * file, is a duplicate (PostgreSQL skips a statement's own repeated keys under DO NOTHING, and the
 * rows go in file order). Every valid row is inserted or duplicate; a row whose tracking id no
 * shipment has (tracking index) is stored too, counted in `unmatched`, its id listed once.
 */
export async function importSettlements(
  deps: Deps,
  importedBy: string,
  body: SettlementImportBody,
): Promise<{ ok: true; result: SettlementImportResult } | { ok: false; code: 'wrong_header'; detail: string }> {
  const parsed = parseSettlementCsv(body.carrier, body.csvText);
  if (!parsed.ok) return parsed;
  const importedAt = now(deps);
  let inserted = 0;
  let unmatched = 0;
  const unmatchedTrackingIds = new Set<string>();
  for (let start = 0; start < parsed.rows.length; start += IMPORT_BATCH_SIZE) {
    const batch = parsed.rows.slice(start, start + IMPORT_BATCH_SIZE);
    inserted += await insertBatch(deps, body.carrier, importedBy, importedAt, batch);
    const known = await knownTrackingIds(deps, batch);
    for (const row of batch) {
      if (known.has(row.trackingId)) continue;
      unmatched += 1;
      unmatchedTrackingIds.add(row.trackingId);
    }
  }
  return {
    ok: true,
    result: {
      total: parsed.total,
      inserted,
      duplicate: parsed.rows.length - inserted,
      unmatched,
      parseErrors: parsed.parseErrors,
      unmatchedTrackingIds: [...unmatchedTrackingIds],
    },
  };
}

/**
 * The batch goes in as newline-joined text parameters split in SQL (tracking ids, dates and
 * amounts never contain a newline: the rules checked them): a third of the time of array parameters
 * through Prisma's raw queries.
 */
const column = (batch: SettlementRow[], field: keyof SettlementRow): string => batch.map((row) => row[field]).join('\n');

async function insertBatch(deps: Deps, carrier: string, importedBy: string, importedAt: Date, batch: SettlementRow[]): Promise<number> {
  const rows = await deps.prisma.$queryRaw<{ inserted: number }[]>`
    WITH inserted AS (
      INSERT INTO settlement_record (carrier, tracking_id, actual_cost, billed_on, billed_kg, imported_at, imported_by, adjustment_order_id)
      SELECT ${carrier}::carrier, t.tracking_id, t.actual_cost, t.billed_on, t.billed_kg, ${importedAt}::timestamptz, ${importedBy}::uuid, ti.order_id
      FROM unnest(
          string_to_array(${column(batch, 'trackingId')}, E'\n'),
          string_to_array(${column(batch, 'actualCost')}, E'\n')::numeric[],
          string_to_array(${column(batch, 'billedOn')}, E'\n')::date[],
          string_to_array(${column(batch, 'billedKg')}, E'\n')::numeric[]
        ) WITH ORDINALITY AS t(tracking_id, actual_cost, billed_on, billed_kg, ord)
      LEFT JOIN tracking_index ti ON ti.tracking_id = t.tracking_id
      ORDER BY t.ord
      ON CONFLICT (carrier, tracking_id, billed_on) DO NOTHING
      RETURNING 1
    )
    SELECT count(*)::int AS inserted FROM inserted`;
  return rows[0]?.inserted ?? 0;
}

async function knownTrackingIds(deps: Deps, batch: SettlementRow[]): Promise<Set<string>> {
  const rows = await deps.prisma.$queryRaw<{ tracking_id: string }[]>`
    SELECT tracking_id FROM tracking_index WHERE tracking_id = ANY(string_to_array(${column(batch, 'trackingId')}, E'\n'))`;
  return new Set(rows.map((row) => row.tracking_id));
}

/** GET /admin/shipping/settlements: newest first (latest import, then its last rows first), at most `limit`. */
export function listSettlements({ prisma }: Pick<AdminDeps, 'prisma'>, limit: number): Promise<SettlementRecord[]> {
  return prisma.settlementRecord.findMany({ orderBy: [{ importedAt: 'desc' }, { seq: 'desc' }], take: limit });
}
