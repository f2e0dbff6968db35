import { SETTLEMENT_IMPORT_PATH, settlementImportBody, settlementsQuery, type SettlementRecord as SettlementRecordResource } from '@pasar/contracts';
import { ProblemError, parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import type { AdminDeps } from '../deps';
import type { SettlementRecord } from '../generated/prisma/client';
import { importSettlements, listSettlements } from './settlements';

export { SETTLEMENT_IMPORT_PATH };

/** POST /admin/shipping/settlements/import and GET /admin/shipping/settlements. */
export function settlementRoutes(router: Router, deps: AdminDeps): void {
  router.post(SETTLEMENT_IMPORT_PATH, async (req, res) => {
    const admin = requireRole(req, 'admin');
    const outcome = await importSettlements(deps, admin.userId, parse(settlementImportBody, req.body));
    if (!outcome.ok) throw new ProblemError(400, outcome.code, outcome.detail);
    res.json(outcome.result);
  });

  router.get('/admin/shipping/settlements', async (req, res) => {
    requireRole(req, 'admin');
    const { limit } = parse(settlementsQuery, req.query);
    res.json((await listSettlements(deps, limit)).map(toSettlementRecord));
  });
}

/** The spec's Carrier settlement record (snake_case). */
export function toSettlementRecord(r: SettlementRecord): SettlementRecordResource {
  return {
    id: r.id,
    carrier: r.carrier,
    tracking_id: r.trackingId,
    actual_cost: r.actualCost.toFixed(2),
    billed_on: r.billedOn.toISOString().slice(0, 10),
    imported_at: r.importedAt.toISOString(),
    imported_by: r.importedBy,
    adjustment_order_id: r.adjustmentOrderId,
    notes: r.notes,
  };
}
