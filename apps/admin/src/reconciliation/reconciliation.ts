import { randomUUID } from 'node:crypto';
import { RECONCILIATION_FLAGS, type ReconciliationHistory, type ReconciliationLine, type ReconciliationPage, type ReconciliationQuery, type ReconciliationTotals } from '@pasar/contracts';
import { lockKey, now, type AdminDeps } from '../deps';
import { actionAllowed, centsOf, flagsOf, gramsOf, kgOf, moneyOf, statusOf, type Refusal, type Tolerances } from './rules';

type Deps = Pick<AdminDeps, 'prisma' | 'config' | 'clock'>;

/** The tolerances of the running config (RECON_* variables). */
export function tolerancesOf(config: AdminDeps['config']): Tolerances {
  return {
    weightGrams: Math.round(config.RECON_WEIGHT_TOLERANCE_KG * 1000),
    weightPercent: config.RECON_WEIGHT_TOLERANCE_PERCENT,
    costCents: Math.round(config.RECON_COST_TOLERANCE * 100),
    costPercent: config.RECON_COST_TOLERANCE_PERCENT,
    unbilledAfterMs: config.RECON_UNBILLED_AFTER,
  };
}

/** One row per tracking id: its bills folded (count, largest, total, heaviest), the booking's expectation, the shipment's state, the last action. */
interface ParcelRow {
  tracking_id: string;
  bill_count: number;
  largest_bill: string | null;
  billed_total: string | null;
  billed_kg: string | null;
  bill_carrier: string | null;
  known: boolean;
  shipment_id: string | null;
  store_id: string | null;
  carrier: string | null;
  declared_kg: string | null;
  volumetric_kg: string | null;
  quoted_cost: string | null;
  quoted_currency: string | null;
  shipment_status: string | null;
  shipped_at: Date | null;
  last_action: 'dispute' | 'resolve' | null;
}

/**
 * The parcels to reconcile: every billed tracking id, and every shipment shipped before the
 * unbilled cutoff that no bill names. `carrier`, `from`, `to` filter in SQL (billing days, or the
 * ship day of an unbilled one); one statement, so 100,000 bills take one round trip.
 */
async function parcelRows(deps: Deps, query: ReconciliationQuery, cutoff: Date): Promise<ParcelRow[]> {
  const carrier = query.carrier ?? null;
  const from = query.from ?? null;
  const to = query.to ?? null;
  return deps.prisma.$queryRaw<ParcelRow[]>`
    WITH bills AS (
      SELECT tracking_id, count(*)::int AS bill_count, max(actual_cost)::text AS largest_bill,
             sum(actual_cost)::text AS billed_total, max(billed_kg)::text AS billed_kg, min(carrier::text) AS bill_carrier
      FROM settlement_record
      WHERE (${carrier}::text IS NULL OR carrier::text = ${carrier}::text)
        AND (${from}::date IS NULL OR billed_on >= ${from}::date)
        AND (${to}::date IS NULL OR billed_on <= ${to}::date)
      GROUP BY tracking_id
    ),
    overdue AS (
      SELECT ti.tracking_id
      FROM tracking_index ti
      JOIN shipment_state s ON s.shipment_id = ti.shipment_id
      LEFT JOIN carrier_booking cb ON cb.shipment_id = ti.shipment_id
      WHERE s.status <> 'cancelled' AND s.shipped_at < ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM settlement_record r WHERE r.tracking_id = ti.tracking_id)
        AND (${carrier}::text IS NULL OR coalesce(cb.carrier::text, ti.courier) = ${carrier}::text)
        AND (${from}::date IS NULL OR s.shipped_at >= ${from}::date)
        AND (${to}::date IS NULL OR s.shipped_at < ${to}::date + 1)
    ),
    parcels AS (SELECT tracking_id FROM bills UNION ALL SELECT tracking_id FROM overdue),
    last_note AS (
      SELECT DISTINCT ON (tracking_id) tracking_id, action FROM reconciliation_note ORDER BY tracking_id, seq DESC
    )
    SELECT p.tracking_id, coalesce(b.bill_count, 0) AS bill_count, b.largest_bill, b.billed_total, b.billed_kg, b.bill_carrier,
           ti.tracking_id IS NOT NULL AS known, ti.shipment_id::text AS shipment_id,
           coalesce(cb.store_id, s.store_id)::text AS store_id,
           coalesce(b.bill_carrier, cb.carrier::text, ti.courier) AS carrier,
           cb.declared_kg::text AS declared_kg, cb.volumetric_kg::text AS volumetric_kg,
           cb.quoted_cost::text AS quoted_cost, cb.quoted_currency,
           s.status AS shipment_status, s.shipped_at, n.action AS last_action
    FROM parcels p
    LEFT JOIN bills b ON b.tracking_id = p.tracking_id
    LEFT JOIN tracking_index ti ON ti.tracking_id = p.tracking_id
    LEFT JOIN carrier_booking cb ON cb.shipment_id = ti.shipment_id
    LEFT JOIN shipment_state s ON s.shipment_id = ti.shipment_id
    LEFT JOIN last_note n ON n.tracking_id = p.tracking_id
    ORDER BY p.tracking_id`;
}

const CARRIERS = new Set(['carrier_a', 'carrier_b']);
const orNull = <T, R>(value: T | null, f: (value: T) => R): R | null => (value === null ? null : f(value));

/** A parcel row → its line (flags by the pure rules); cents kept beside it for the totals. */
function lineOf(row: ParcelRow, tolerances: Tolerances, at: Date): { line: ReconciliationLine; expected: number | null; billed: number | null } {
  // the parcel's bills folded in SQL (foldBills): count, largest amount, heaviest weight
  const billedGrams = orNull(row.billed_kg, gramsOf);
  const bills = { count: row.bill_count, largestCents: orNull(row.largest_bill, centsOf), heaviestGrams: billedGrams };
  const expected = orNull(row.quoted_cost, centsOf);
  const billed = orNull(row.billed_total, centsOf);
  const flags = flagsOf(
    {
      known: row.known,
      declaredGrams: orNull(row.declared_kg, gramsOf),
      volumetricGrams: orNull(row.volumetric_kg, gramsOf),
      expectedCents: expected,
      bills,
      shipmentStatus: row.shipment_status,
      shippedAt: row.shipped_at,
    },
    tolerances,
    at,
  );
  const carrier = row.carrier && CARRIERS.has(row.carrier) ? (row.carrier as 'carrier_a' | 'carrier_b') : null;
  return {
    expected,
    billed,
    line: {
      trackingId: row.tracking_id,
      shipmentId: row.shipment_id,
      storeId: row.store_id,
      carrier,
      declaredKg: orNull(orNull(row.declared_kg, gramsOf), kgOf),
      volumetricKg: orNull(orNull(row.volumetric_kg, gramsOf), kgOf),
      billedKg: orNull(billedGrams, kgOf),
      expectedCost: orNull(expected, moneyOf),
      billedCost: orNull(billed, moneyOf),
      variance: expected !== null && billed !== null ? moneyOf(billed - expected) : null,
      currency: row.quoted_currency ?? (billed !== null ? 'MYR' : null),
      flags,
      status: statusOf(flags, row.last_action),
    },
  };
}

/**
 * GET /admin/shipping/reconciliation: the lines the filters select, by tracking id after `cursor`,
 * at most `limit`, and the totals over all of them (not only the page), summed in cents.
 */
export async function reconcile(deps: Deps, query: ReconciliationQuery): Promise<ReconciliationPage> {
  const at = now(deps);
  const tolerances = tolerancesOf(deps.config);
  const cutoff = new Date(at.getTime() - tolerances.unbilledAfterMs);
  const rows = await parcelRows(deps, query, cutoff);
  const byFlag = Object.fromEntries(RECONCILIATION_FLAGS.map((flag) => [flag, { lines: 0, variance: 0 }]));
  let expectedTotal = 0;
  let billedTotal = 0;
  let varianceTotal = 0;
  let count = 0;
  const page: ReconciliationLine[] = [];
  let more = false;
  for (const row of rows) {
    const { line, expected, billed } = lineOf(row, tolerances, at);
    if (query.flag && !line.flags.includes(query.flag)) continue;
    count += 1;
    const variance = expected !== null && billed !== null ? billed - expected : 0;
    expectedTotal += expected ?? 0;
    billedTotal += billed ?? 0;
    varianceTotal += variance;
    for (const flag of line.flags) {
      byFlag[flag].lines += 1;
      byFlag[flag].variance += variance;
    }
    if (query.cursor !== undefined && line.trackingId <= query.cursor) continue;
    if (page.length < query.limit) page.push(line);
    else more = true;
  }
  const totals: ReconciliationTotals = {
    lines: count,
    expected: moneyOf(expectedTotal),
    billed: moneyOf(billedTotal),
    variance: moneyOf(varianceTotal),
    byFlag: Object.fromEntries(Object.entries(byFlag).map(([flag, t]) => [flag, { lines: t.lines, variance: moneyOf(t.variance) }])) as ReconciliationTotals['byFlag'],
  };
  return { lines: page, totals, nextCursor: more ? page[page.length - 1].trackingId : null };
}

/** Every line the filters select (CSV download): the pages walked to the end. */
export async function reconcileAll(deps: Deps, query: ReconciliationQuery): Promise<ReconciliationLine[]> {
  const first = await reconcile(deps, { ...query, cursor: undefined, limit: Number.MAX_SAFE_INTEGER });
  return first.lines;
}

export type NoteRefusal = Refusal<'not_found' | 'already_resolved'>;

/**
 * POST …/reconciliation/{trackingId}/dispute and …/resolve: appends the note (who, when, what)
 * under the line's lock, unless the line is resolved already. A tracking id no bill and no
 * shipment has is `not_found`.
 */
export async function addNote(
  deps: Deps,
  actorId: string,
  trackingId: string,
  action: { kind: 'dispute'; note: string } | { kind: 'resolve'; note: string; outcome: string },
): Promise<{ ok: true; history: ReconciliationHistory } | NoteRefusal> {
  return deps.prisma.$transaction(async (tx) => {
    await lockKey(tx, `reconciliation:${trackingId}`);
    const [billed, indexed] = await Promise.all([
      tx.settlementRecord.findFirst({ where: { trackingId }, select: { id: true } }),
      tx.trackingIndex.findUnique({ where: { trackingId }, select: { trackingId: true } }),
    ]);
    if (!billed && !indexed) return { ok: false, code: 'not_found', detail: 'no bill or shipment has this tracking id' } as const;
    const last = await tx.reconciliationNote.findFirst({ where: { trackingId }, orderBy: { seq: 'desc' } });
    const allowed = actionAllowed(statusOf([], (last?.action as 'dispute' | 'resolve' | undefined) ?? null));
    if (!allowed.ok) return allowed;
    await tx.reconciliationNote.create({
      data: { id: randomUUID(), trackingId, action: action.kind, outcome: action.kind === 'resolve' ? action.outcome : null, note: action.note, actorId, createdAt: now(deps) },
    });
    return { ok: true, history: await historyOf(tx, trackingId) } as const;
  });
}

export async function historyOf(db: Pick<AdminDeps['prisma'], 'reconciliationNote'>, trackingId: string): Promise<ReconciliationHistory> {
  const notes = await db.reconciliationNote.findMany({ where: { trackingId }, orderBy: { seq: 'asc' } });
  const last = notes.at(-1);
  return {
    trackingId,
    status: last ? statusOf([], last.action as 'dispute' | 'resolve') : 'open',
    history: notes.map((n) => ({ action: n.action as 'dispute' | 'resolve', outcome: n.outcome, note: n.note, by: n.actorId, at: n.createdAt.toISOString() })),
  };
}
