import { disputeBody, reconciliationQuery, resolveBody, trackingIdParam, type ReconciliationLine } from '@pasar/contracts';
import { parse, refusalProblems, requireRole } from '@pasar/service-kit';
import { stringify } from 'csv-stringify/sync';
import type { Request, Router } from 'express';
import type { AdminDeps } from '../deps';
import { addNote, reconcile, reconcileAll } from './reconciliation';

const BASE = '/admin/shipping/reconciliation';

const problemOf = refusalProblems({ not_found: 404, already_resolved: 409 });

const CSV_COLUMNS: (keyof ReconciliationLine)[] = [
  'trackingId',
  'shipmentId',
  'storeId',
  'carrier',
  'declaredKg',
  'volumetricKg',
  'billedKg',
  'expectedCost',
  'billedCost',
  'variance',
  'currency',
  'flags',
  'status',
];

/** `?format=csv`, or an Accept header that prefers text/csv to JSON. */
const wantsCsv = (req: Request, format: string | undefined): boolean => format === 'csv' || (format === undefined && req.accepts(['application/json', 'text/csv']) === 'text/csv');

/** The lines as CSV: one row per line, flags joined by `|`, empty cells for unknowns. */
export function linesCsv(lines: ReconciliationLine[]): string {
  return stringify(
    lines.map((line) => CSV_COLUMNS.map((column) => (column === 'flags' ? line.flags.join('|') : (line[column] ?? '')))),
    { header: true, columns: CSV_COLUMNS as string[] },
  );
}

/** GET /admin/shipping/reconciliation (JSON or CSV), POST …/{trackingId}/dispute and …/resolve. */
export function reconciliationRoutes(router: Router, deps: AdminDeps): void {
  router.get(BASE, async (req, res) => {
    requireRole(req, 'admin');
    const query = parse(reconciliationQuery, req.query);
    if (wantsCsv(req, query.format)) {
      const csv = linesCsv(await reconcileAll(deps, query));
      res.status(200).type('text/csv; charset=utf-8').setHeader('content-disposition', 'attachment; filename="reconciliation.csv"').send(csv);
      return;
    }
    res.json(await reconcile(deps, query));
  });

  router.post(`${BASE}/:trackingId/dispute`, async (req, res) => {
    const admin = requireRole(req, 'admin');
    const { trackingId } = parse(trackingIdParam, req.params);
    const { note } = parse(disputeBody, req.body);
    const outcome = await addNote(deps, admin.userId, trackingId, { kind: 'dispute', note });
    if (!outcome.ok) throw problemOf(outcome);
    res.json(outcome.history);
  });

  router.post(`${BASE}/:trackingId/resolve`, async (req, res) => {
    const admin = requireRole(req, 'admin');
    const { trackingId } = parse(trackingIdParam, req.params);
    const { note, outcome: result } = parse(resolveBody, req.body);
    const outcome = await addNote(deps, admin.userId, trackingId, { kind: 'resolve', note, outcome: result });
    if (!outcome.ok) throw problemOf(outcome);
    res.json(outcome.history);
  });
}
