import { now, type AdminDeps } from '../deps';
import { CarrierCallError } from '../carrier-bookings/carriers';
import { labelUrlOf } from '../carrier-bookings/bookings';
import { checkLabelUrl, labelKeyOf, type LabelAccess } from './rules';

type Deps = Pick<AdminDeps, 'prisma' | 'config' | 'log' | 'carriers' | 'storage' | 'clock'>;
export type Refusal<C extends string> = { ok: false; code: C; detail: string };

/**
 * GET /admin/shipments/{id}/label-url: ensures the label is stored (a no-op when it is; carrier_a's
 * came with the booking, carrier_b's is fetched now), then signs a URL valid for 1 hour.
 */
export async function labelUrl(
  deps: Deps,
  shipmentId: string,
): Promise<{ ok: true; url: string; expiresAt: Date } | Refusal<'not_found' | 'not_booked' | 'label_unavailable'>> {
  const booking = await deps.prisma.carrierBooking.findUnique({ where: { shipmentId } });
  if (!booking) return { ok: false, code: 'not_found', detail: 'no booking for this shipment' };
  if (booking.status !== 'success' || !booking.trackingNumber) return { ok: false, code: 'not_booked', detail: `the booking is ${booking.status}` };
  if (!booking.labelKey || !(await deps.storage.get(booking.labelKey))) {
    let pdf: Buffer;
    try {
      pdf = await deps.carriers[booking.carrier].fetchLabel(booking.trackingNumber);
    } catch (err) {
      if (!(err instanceof CarrierCallError)) throw err;
      deps.log.warn({ shipmentId, err: err.message }, 'label not fetched from the carrier');
      return { ok: false, code: 'label_unavailable', detail: 'the carrier did not hand out the label; try again' };
    }
    const key = labelKeyOf(shipmentId);
    await deps.storage.put(key, pdf);
    await deps.prisma.carrierBooking.update({ where: { shipmentId }, data: { labelKey: key } });
  }
  return { ok: true, ...labelUrlOf(deps, shipmentId) };
}

/** The signed label URL's answer: the PDF, or a refusal (tampered or expired → 403; nothing stored → 404). */
export async function signedLabel(
  deps: Deps,
  shipmentId: string,
  query: { expires: string; signature: string },
): Promise<{ ok: true; pdf: Buffer } | Exclude<LabelAccess, { ok: true }> | Refusal<'not_found'>> {
  const access = checkLabelUrl(deps.config.LABEL_SIGNING_KEY, shipmentId, query.expires, query.signature, now(deps));
  if (!access.ok) return access;
  const booking = await deps.prisma.carrierBooking.findUnique({ where: { shipmentId }, select: { labelKey: true } });
  const pdf = booking?.labelKey ? await deps.storage.get(booking.labelKey) : null;
  if (!pdf) return { ok: false, code: 'not_found', detail: 'label not found' };
  return { ok: true, pdf };
}
