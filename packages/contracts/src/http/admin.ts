import { z } from 'zod';
import { carrierSchema } from '../commerce';
import { listQuery, money } from './common';

/** Text PostgreSQL can store (no NUL character), trimmed, 1..max characters. */
const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((v) => !v.includes('\u0000'), 'must not contain NUL characters');
const optionalText = (max: number) => text(max).nullish();
/** A link the applicant gives (certificate, logo, banner): absolute http(s) only. */
const link = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .refine((v) => !v.includes('\u0000'), 'must not contain NUL characters')
  .nullish();

// ---------------------------------------------------------------- vendor applications (snake_case, spec)

export const vendorApplicationStatusSchema = z.enum(['pending', 'approved', 'rejected']);
export type VendorApplicationStatus = z.infer<typeof vendorApplicationStatusSchema>;

/** Body of POST /vendor-applications: the spec's Vendor application fields the applicant gives. */
export const vendorApplicationBody = z
  .object({
    email: z.email().max(254).meta({ description: "The vendor account's sign-in e-mail (a new account is created on approval)" }),
    full_name: text(200),
    phone: z.string().regex(/^\+?[0-9][0-9 -]{5,18}[0-9]$/, 'expected a phone number such as +60123456789'),
    store_name: text(200),
    description: optionalText(5000),
    location_address: optionalText(500),
    location_lat: z.number().min(-90).max(90).nullish(),
    location_lng: z.number().min(-180).max(180).nullish(),
    ssm_cert_url: link,
    logo_url: link,
    banner_url: link,
    bank_name: text(100),
    bank_account_number: z.string().regex(/^[0-9][0-9 -]{3,32}[0-9]$/, 'expected 5 to 34 digits (spaces and dashes allowed)'),
    bank_account_name: text(200),
    tin: text(20).meta({ description: 'Tax identification number (validated and normalised, DESIGN §7)', example: 'C 0012345678' }),
    msic_code: text(10).meta({ description: 'MSIC code, 5 digits', example: '47711' }),
    sst_reg_no: optionalText(40),
    intermediary_consent_accepted: z.literal(true, { message: 'the intermediary consent must be accepted' }),
    intermediary_consent_tos_version: text(40),
  })
  .strict()
  .meta({ id: 'VendorApplicationRequest', description: 'One pending application per user (409 application_pending).' });
export type VendorApplicationBody = z.infer<typeof vendorApplicationBody>;

/** The spec's Vendor application resource. Decimal coordinates as strings, timestamps ISO 8601. */
export const vendorApplication = z
  .object({
    id: z.uuid(),
    email: z.string(),
    full_name: z.string(),
    phone: z.string(),
    store_name: z.string(),
    description: z.string().nullable(),
    location_address: z.string().nullable(),
    location_lat: z.string().nullable(),
    location_lng: z.string().nullable(),
    ssm_cert_url: z.string().nullable(),
    logo_url: z.string().nullable(),
    banner_url: z.string().nullable(),
    bank_name: z.string(),
    bank_account_number: z.string(),
    bank_account_name: z.string(),
    status: vendorApplicationStatusSchema,
    rejection_note: z.string().nullable(),
    reviewed_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    tin: z.string(),
    msic_code: z.string(),
    sst_reg_no: z.string().nullable(),
    intermediary_consent_accepted: z.boolean(),
    intermediary_consent_at: z.iso.datetime().nullable(),
    intermediary_consent_tos_version: z.string().nullable(),
  })
  .meta({ id: 'VendorApplication' });
export type VendorApplication = z.infer<typeof vendorApplication>;

/** GET /admin/vendor-applications: optional status filter; newest first; paged (`listQuery`). */
export const vendorApplicationsQuery = listQuery.extend({ status: vendorApplicationStatusSchema.optional() });

export const rejectVendorApplicationBody = z.object({ note: text(5000) }).strict().meta({ id: 'RejectVendorApplicationRequest' });

// ---------------------------------------------------------------- carrier bookings (camelCase, spec)

/** `cancelled`: the shipment was cancelled while the booking was being retried; the retries stopped (lastError says why). */
export const carrierBookingStatusSchema = z.enum(['success', 'pending_retry', 'failed', 'cancelled']);
export type CarrierBookingStatus = z.infer<typeof carrierBookingStatusSchema>;

/** Answer of POST /admin/shipments/{id}/book (spec). A failed or deferred booking is success=false with error. */
export const bookingResult = z
  .object({
    success: z.boolean(),
    status: carrierBookingStatusSchema,
    trackingNumber: z.string().nullable(),
    labelUrl: z.string().nullable().meta({ description: 'A signed label URL (1 hour) once booked' }),
    error: z.string().nullable(),
  })
  .meta({ id: 'BookingResult' });
export type BookingResult = z.infer<typeof bookingResult>;

/** GET /admin/shipments/{id}/booking: where a booking stands (DESIGN §5). */
export const carrierBookingRecord = z
  .object({
    shipmentId: z.uuid(),
    carrier: carrierSchema,
    status: carrierBookingStatusSchema,
    attempts: z.number().int(),
    nextAttemptAt: z.iso.datetime().nullable(),
    lastError: z.string().nullable(),
    trackingNumber: z.string().nullable(),
    bookedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'CarrierBooking' });
export type CarrierBookingRecord = z.infer<typeof carrierBookingRecord>;

/** GET /admin/shipments/bookings: bookings of one status (the console's failed work: pending_retry, failed), oldest change first. */
export const carrierBookingsQuery = z.object({
  status: carrierBookingStatusSchema,
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** GET /admin/shipments/{id}/label-url (DESIGN §7). */
export const labelUrlResponse = z
  .object({ url: z.string(), expiresAt: z.iso.datetime() })
  .meta({ id: 'LabelUrl', description: 'A signed URL serving the label PDF without a session until expiresAt (1 hour)' });
export type LabelUrlResponse = z.infer<typeof labelUrlResponse>;

/** The signed label URL's path parameter and query: `/shipment-labels/{id}?expires=<unix s>&signature=<hex>`. */
export const labelQuery = z
  .object({
    expires: z.string().regex(/^\d{1,12}$/),
    signature: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

// ---------------------------------------------------------------- settlements (snake_case records, spec)

/** 20 MiB of CSV: ~200,000 rows. The import route takes bodies up to SETTLEMENT_IMPORT_BODY_LIMIT. */
export const SETTLEMENT_CSV_MAX_CHARS = 20 * 1024 * 1024;
export const SETTLEMENT_IMPORT_BODY_LIMIT = '21mb';
/** The settlement import route (POST, under /api/v1): the one that takes bodies over 1 MB (gateway and admin). */
export const SETTLEMENT_IMPORT_PATH = '/admin/shipping/settlements/import';

export const settlementImportBody = z
  .object({
    carrier: carrierSchema,
    csvText: z.string().min(1).max(SETTLEMENT_CSV_MAX_CHARS),
  })
  .strict()
  .meta({
    id: 'SettlementImportRequest',
    description:
      'CSV with the exact header of the carrier (DESIGN §7): carrier_a `Waybill No,Billing Date,Weight (kg),Amount (MYR)` (YYYY-MM-DD); carrier_b `Tracking Number,Invoice Date,Chargeable Weight,Total Charge` (DD/MM/YYYY).',
  });
export type SettlementImportBody = z.infer<typeof settlementImportBody>;

export const settlementImportResult = z
  .object({
    total: z.number().int().meta({ description: 'Data rows in the file' }),
    inserted: z.number().int(),
    duplicate: z.number().int().meta({ description: 'Rows whose (carrier, tracking id, date) exists already, or earlier in the file' }),
    unmatched: z.number().int().meta({ description: 'Valid rows (inserted or duplicate) whose tracking id matches no shipment' }),
    parseErrors: z.array(z.string()).meta({ description: '`line N: why` per bad row (not imported)' }),
    unmatchedTrackingIds: z.array(z.string()),
  })
  .meta({ id: 'SettlementImportResult' });
export type SettlementImportResult = z.infer<typeof settlementImportResult>;

export const settlementsQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) });

export const settlementRecord = z
  .object({
    id: z.uuid(),
    carrier: carrierSchema,
    tracking_id: z.string(),
    actual_cost: money,
    billed_on: z.iso.date(),
    imported_at: z.iso.datetime(),
    imported_by: z.uuid(),
    adjustment_order_id: z.uuid().nullable(),
    notes: z.string().nullable(),
  })
  .meta({ id: 'CarrierSettlementRecord' });
export type SettlementRecord = z.infer<typeof settlementRecord>;
