import { z } from 'zod';
import { carrierSchema } from '../commerce';
import { money } from './common';

// ---------------------------------------------------------------- carrier settlement reconciliation (admin)

export const RECONCILIATION_FLAGS = ['weight_over', 'cost_over', 'duplicate_bill', 'unknown_parcel', 'billed_cancelled', 'unbilled'] as const;
export const reconciliationFlagSchema = z.enum(RECONCILIATION_FLAGS);
export type ReconciliationFlag = z.infer<typeof reconciliationFlagSchema>;

/** `ok`: nothing flagged; `open`: flagged, untouched; then `disputed` or `resolved` by an administrator. */
export const reconciliationStatusSchema = z.enum(['ok', 'open', 'disputed', 'resolved']);
export type ReconciliationStatus = z.infer<typeof reconciliationStatusSchema>;

const kg = z.string().regex(/^\d+\.\d{3}$/).meta({ example: '1.250' });

/** GET /admin/shipping/reconciliation: filters, paging by tracking id, and `format=csv`. */
export const reconciliationQuery = z.object({
  carrier: carrierSchema.optional(),
  /** Billing or shipping day, inclusive (YYYY-MM-DD). */
  from: z.iso.date().optional(),
  to: z.iso.date().optional(),
  flag: reconciliationFlagSchema.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** The last tracking id of the previous page (`nextCursor`). */
  cursor: z.string().min(1).max(100).optional(),
  format: z.enum(['json', 'csv']).optional(),
});
export type ReconciliationQuery = z.infer<typeof reconciliationQuery>;

export const reconciliationLine = z
  .object({
    trackingId: z.string(),
    shipmentId: z.uuid().nullable(),
    storeId: z.uuid().nullable(),
    carrier: carrierSchema.nullable(),
    declaredKg: kg.nullable(),
    volumetricKg: kg.nullable(),
    billedKg: kg.nullable(),
    expectedCost: money.nullable(),
    billedCost: money.nullable(),
    variance: money.nullable().meta({ description: 'billedCost − expectedCost, when both are known' }),
    currency: z.string().nullable(),
    flags: z.array(reconciliationFlagSchema),
    status: reconciliationStatusSchema,
  })
  .meta({ id: 'ReconciliationLine', description: 'What a parcel was expected to cost against what its carrier billed' });
export type ReconciliationLine = z.infer<typeof reconciliationLine>;

export const reconciliationTotals = z
  .object({
    lines: z.number().int(),
    expected: money,
    billed: money,
    variance: money,
    byFlag: z.record(reconciliationFlagSchema, z.object({ lines: z.number().int(), variance: money })),
  })
  .meta({ id: 'ReconciliationTotals', description: 'Over every line the filters select (not only this page); money exact to the cent' });
export type ReconciliationTotals = z.infer<typeof reconciliationTotals>;

export const reconciliationPage = z
  .object({ lines: z.array(reconciliationLine), totals: reconciliationTotals, nextCursor: z.string().nullable() })
  .meta({ id: 'ReconciliationPage' });
export type ReconciliationPage = z.infer<typeof reconciliationPage>;

export const trackingIdParam = z.object({ trackingId: z.string().min(1).max(100).regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/) });

export const disputeBody = z.object({ note: z.string().trim().min(1).max(2000) }).strict().meta({ id: 'ReconciliationDisputeRequest' });
export const resolveBody = z
  .object({ note: z.string().trim().min(1).max(2000), outcome: z.enum(['credited', 'accepted', 'written_off']) })
  .strict()
  .meta({ id: 'ReconciliationResolveRequest', description: 'credited: the carrier refunds; accepted: the bill stands; written_off: not pursued' });

export const reconciliationNote = z.object({
  action: z.enum(['dispute', 'resolve']),
  outcome: z.string().nullable(),
  note: z.string(),
  by: z.uuid(),
  at: z.iso.datetime(),
});

export const reconciliationHistory = z
  .object({ trackingId: z.string(), status: reconciliationStatusSchema, history: z.array(reconciliationNote) })
  .meta({ id: 'ReconciliationHistory' });
export type ReconciliationHistory = z.infer<typeof reconciliationHistory>;
