import type { Refusal } from '@pasar/service-kit';
import { now, type AdminDeps } from '../deps';
import { CarrierCallError } from '../carriers/carriers';
import { labelUrlOf } from '../carrier-bookings/bookings';
import type { CarrierBooking } from '../generated/prisma/client';
import { checkLabelUrl, labelKeyOf, type LabelAccess } from '../labels/rules';

type Deps = Pick<AdminDeps, 'prisma' | 'config' | 'log' | 'carriers' | 'storage' | 'clock'>;
type LabelRefusal = Refusal<'not_found' | 'not_booked' | 'label_unavailable'>;

/**
 * The label PDF of a booked shipment, stored first when it is not (carrier_a's came with the
 * booking; carrier_b's, or one this instance's storage lacks, is fetched from the carrier now).
 */
async function ensureLabel(deps: Deps, booking: CarrierBooking | null): Promise<{ ok: true; pdf: Buffer } | LabelRefusal> {
  if (!booking) return { ok: false, code: 'not_found', detail: 'no booking for this shipment' };
  if (booking.status !== 'success' || !booking.trackingNumber) return { ok: false, code: 'not_booked', detail: `the booking is ${booking.status}` };
  const stored = booking.labelKey ? await deps.storage.get(booking.labelKey) : null;
  if (stored) return { ok: true, pdf: stored };
  let pdf: Buffer;
  try {
    pdf = await deps.carriers[booking.carrier].fetchLabel(booking.trackingNumber);
  } catch (err) {
    if (!(err instanceof CarrierCallError)) throw err;
    deps.log.warn({ shipmentId: booking.shipmentId, err: err.message }, 'label not fetched from the carrier');
    return { ok: false, code: 'label_unavailable', detail: 'the carrier did not hand out the label; try again' };
  }
  const key = labelKeyOf(booking.shipmentId);
  await deps.storage.put(key, pdf);
  await deps.prisma.carrierBooking.update({ where: { shipmentId: booking.shipmentId }, data: { labelKey: key } });
  return { ok: true, pdf };
}

/**
 * GET /admin/shipments/{id}/label-url: ensures the label is stored (a no-op when it is), then
 * signs a URL valid for 1 hour.
 */
export async function labelUrl(deps: Deps, shipmentId: string): Promise<{ ok: true; url: string; expiresAt: Date } | LabelRefusal> {
  const label = await ensureLabel(deps, await deps.prisma.carrierBooking.findUnique({ where: { shipmentId } }));
  if (!label.ok) return label;
  return { ok: true, ...labelUrlOf(deps, shipmentId) };
}

/** The signed label URL's answer: the PDF, or a refusal (tampered or expired → 403, before anything is read). */
export async function signedLabel(
  deps: Deps,
  shipmentId: string,
  query: { expires: string; signature: string },
): Promise<{ ok: true; pdf: Buffer } | Exclude<LabelAccess, { ok: true }> | LabelRefusal> {
  const access = checkLabelUrl(deps.config.LABEL_SIGNING_KEY, shipmentId, query.expires, query.signature, now(deps));
  if (!access.ok) return access;
  return ensureLabel(deps, await deps.prisma.carrierBooking.findUnique({ where: { shipmentId } }));
}
