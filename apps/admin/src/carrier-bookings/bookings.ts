import { callRpc, enqueueEvent, RpcFailedError } from '@pasar/bus';
import { adminShipmentBooked, vendorBookingContext, type BookingResult, type CarrierBookingRecord, type RpcResponse } from '@pasar/contracts';
import type { Refusal } from '@pasar/service-kit';
import { EVENT_SOURCE, now, type AdminDeps } from '../deps';
import type { CarrierBooking, Prisma } from '../generated/prisma/client';
import { labelKeyOf, signedLabelUrl } from '../labels/rules';
import { carrierRequestSchema, type CarrierOutcome, type CarrierRequest } from '../carriers/carriers';
import { declaredGrams, kgOf, volumetricGrams } from '../reconciliation/rules';
import { bookable, leaseMs, nextStateAfter, startsNewAttempt } from './rules';

type Deps = Pick<AdminDeps, 'prisma' | 'bus' | 'config' | 'log' | 'carriers' | 'storage' | 'clock'>;

export type BookRefusal = Refusal<'not_found' | 'not_bookable' | 'no_carrier' | 'no_pickup_address'>;

/**
 * POST /admin/shipments/{id}/book (DESIGN §5): loads the shipment, items and pickup address
 * (rpc.vendor.booking_context), claims the booking row (a new one, or a failed one again), makes
 * one carrier call, and records its outcome: success (admin.shipment.booked through the outbox:
 * vendor sets tracking and awaiting_pickup), pending_retry (the retry worker takes it from there) or
 * failed. A booked or retrying shipment answers where its booking stands instead of booking again;
 * so do concurrent calls, of which one wins the claim.
 */
export async function bookShipment(deps: Deps, shipmentId: string): Promise<{ ok: true; result: BookingResult } | BookRefusal> {
  const existing = await deps.prisma.carrierBooking.findUnique({ where: { shipmentId } });
  if (existing && !startsNewAttempt(existing.status)) return { ok: true, result: bookingResultOf(deps, existing) };

  let context: RpcResponse<typeof vendorBookingContext>;
  try {
    context = await callRpc(deps.bus, vendorBookingContext, { shipmentId });
  } catch (err) {
    if (err instanceof RpcFailedError && err.code === 'not_found') return { ok: false, code: 'not_found', detail: 'shipment not found' };
    throw err;
  }
  const status = bookable(context.shipment.status);
  if (!status.ok) return status;
  if (!context.provider) return { ok: false, code: 'no_carrier', detail: "the shipment's shipping method has no carrier (carrier_a or carrier_b)" };
  if (!context.pickupAddress) return { ok: false, code: 'no_pickup_address', detail: 'the store has no pickup address' };

  const request: CarrierRequest = {
    reference: shipmentId,
    pickup: { label: context.pickupAddress.label, addressLine1: context.pickupAddress.addressLine1, postcode: context.pickupAddress.postcode, state: context.pickupAddress.state },
    recipient: context.recipient,
    parcels: context.items.map((item) => ({ description: item.productName, quantity: item.quantity, weightKg: item.weightKg, dimensionsCm: item.dimensionsCm ?? null })),
  };
  const claimed = await claimNewAttempt(deps, {
    shipmentId,
    orderId: context.shipment.orderId,
    carrier: context.provider,
    request,
    expected: expectationOf(deps.config.VOLUMETRIC_DIVISORS[context.provider], context),
  });
  if (!claimed) {
    const current = await deps.prisma.carrierBooking.findUniqueOrThrow({ where: { shipmentId } });
    return { ok: true, result: bookingResultOf(deps, current) };
  }
  const outcome = await deps.carriers[claimed.carrier].book(request);
  const recorded = await recordAttempt(deps, claimed, outcome);
  return { ok: true, result: bookingResultOf(deps, recorded) };
}

/** What a booking expects the carrier to bill (reconciliation): weights as kg strings, the quote. */
interface Expectation {
  storeId: string;
  declaredKg: string | null;
  volumetricKg: string | null;
  quotedCost: string | null;
  quotedCurrency: string | null;
}

function expectationOf(divisor: number, context: RpcResponse<typeof vendorBookingContext>): Expectation {
  const declared = declaredGrams(context.items);
  const volumetric = volumetricGrams(context.items, divisor);
  return {
    storeId: context.shipment.storeId,
    declaredKg: declared === null ? null : kgOf(declared),
    volumetricKg: volumetric === null ? null : kgOf(volumetric),
    quotedCost: context.quote?.amount ?? null,
    quotedCurrency: context.quote?.currency ?? null,
  };
}

/**
 * Inserts the booking as attempt 1, or restarts a failed one, leased to this call. The row is due
 * at once (next_attempt_at = now) but leased, so if this process dies mid-call the retry worker
 * takes it over when the lease ends. Null when another call holds or finished it.
 */
async function claimNewAttempt(
  deps: Deps,
  booking: { shipmentId: string; orderId: string; carrier: CarrierBooking['carrier']; request: CarrierRequest; expected: Expectation },
): Promise<CarrierBooking | null> {
  const at = now(deps);
  const leaseEnd = new Date(at.getTime() + leaseMs(deps.config.CARRIER_TIMEOUT_MS));
  const request = JSON.stringify(booking.request);
  const { storeId, declaredKg, volumetricKg, quotedCost, quotedCurrency } = booking.expected;
  const rows = await deps.prisma.$queryRaw<{ shipment_id: string }[]>`
    INSERT INTO carrier_booking (shipment_id, order_id, carrier, status, attempts, next_attempt_at, claimed_until, request, updated_at,
                                 store_id, declared_kg, volumetric_kg, quoted_cost, quoted_currency)
    VALUES (${booking.shipmentId}::uuid, ${booking.orderId}::uuid, ${booking.carrier}::carrier, 'pending_retry', 1, ${at}, ${leaseEnd}, ${request}::jsonb, ${at},
            ${storeId}::uuid, ${declaredKg}::numeric, ${volumetricKg}::numeric, ${quotedCost}::numeric, ${quotedCurrency})
    ON CONFLICT (shipment_id) DO UPDATE
      SET carrier = EXCLUDED.carrier, status = 'pending_retry', attempts = 1, next_attempt_at = EXCLUDED.next_attempt_at,
          claimed_until = EXCLUDED.claimed_until, request = EXCLUDED.request, last_error = NULL, updated_at = EXCLUDED.updated_at,
          store_id = EXCLUDED.store_id, declared_kg = EXCLUDED.declared_kg, volumetric_kg = EXCLUDED.volumetric_kg,
          quoted_cost = EXCLUDED.quoted_cost, quoted_currency = EXCLUDED.quoted_currency
      WHERE carrier_booking.status = 'failed'
    RETURNING shipment_id`;
  if (rows.length === 0) return null;
  return deps.prisma.carrierBooking.findUniqueOrThrow({ where: { shipmentId: booking.shipmentId } });
}

/**
 * Records the outcome of the attempt `claimed` made; only while that claim is still the row's
 * (status pending_retry, same attempt count), so a late answer never overwrites a newer state.
 * A booked attempt stores carrier_a's label first, then in one transaction: success, the
 * tracking index row and admin.shipment.booked.
 */
export async function recordAttempt(deps: Deps, claimed: CarrierBooking, outcome: CarrierOutcome): Promise<CarrierBooking> {
  const at = now(deps);
  const stillClaimed: Prisma.CarrierBookingWhereInput = { shipmentId: claimed.shipmentId, status: 'pending_retry', attempts: claimed.attempts };
  if (outcome.kind === 'booked') {
    let labelKey: string | null = null;
    if (outcome.label) {
      labelKey = labelKeyOf(claimed.shipmentId);
      await deps.storage.put(labelKey, outcome.label);
    }
    await deps.prisma.$transaction(async (tx) => {
      const { count } = await tx.carrierBooking.updateMany({
        where: stillClaimed,
        data: { status: 'success', trackingNumber: outcome.trackingNumber, labelKey, bookedAt: at, lastError: null, nextAttemptAt: null, claimedUntil: null },
      });
      if (count === 0) return;
      await tx.trackingIndex.upsert({
        where: { trackingId: outcome.trackingNumber },
        create: { trackingId: outcome.trackingNumber, shipmentId: claimed.shipmentId, orderId: claimed.orderId, courier: claimed.carrier, updatedAt: at },
        update: { shipmentId: claimed.shipmentId, orderId: claimed.orderId, courier: claimed.carrier, updatedAt: at },
      });
      await enqueueEvent(
        tx,
        adminShipmentBooked,
        { shipmentId: claimed.shipmentId, carrier: claimed.carrier, trackingNumber: outcome.trackingNumber, trackingUrl: null, bookedAt: at.toISOString() },
        EVENT_SOURCE,
      );
    });
  } else {
    const next = nextStateAfter(outcome.kind, claimed.attempts, deps.config.CARRIER_RETRY_WAITS, at);
    await deps.prisma.carrierBooking.updateMany({
      where: stillClaimed,
      data: {
        status: next.status,
        nextAttemptAt: next.status === 'pending_retry' ? next.nextAttemptAt : null,
        claimedUntil: null,
        lastError: outcome.error.slice(0, 1000),
      },
    });
    deps.log.warn({ shipmentId: claimed.shipmentId, attempts: claimed.attempts, next: next.status, error: outcome.error }, 'carrier booking attempt failed');
  }
  return deps.prisma.carrierBooking.findUniqueOrThrow({ where: { shipmentId: claimed.shipmentId } });
}

/** The spec's booking answer: {success, status, trackingNumber, labelUrl, error}. */
export function bookingResultOf(deps: Pick<Deps, 'config' | 'clock'>, booking: CarrierBooking): BookingResult {
  const success = booking.status === 'success';
  return {
    success,
    status: booking.status,
    trackingNumber: booking.trackingNumber,
    labelUrl: success ? labelUrlOf(deps, booking.shipmentId).url : null,
    error: success ? null : (booking.lastError ?? (booking.status === 'pending_retry' ? 'booking in progress' : null)),
  };
}

export function labelUrlOf(deps: Pick<Deps, 'config' | 'clock'>, shipmentId: string): { url: string; expiresAt: Date } {
  return signedLabelUrl(deps.config.LABEL_SIGNING_KEY, deps.config.PUBLIC_API_URL ?? '/api/v1', shipmentId, now(deps));
}

export function findBooking({ prisma }: Pick<Deps, 'prisma'>, shipmentId: string): Promise<CarrierBooking | null> {
  return prisma.carrierBooking.findUnique({ where: { shipmentId } });
}

/** GET /admin/shipments/bookings: bookings of one status, least recently changed first. */
export function listBookings({ prisma }: Pick<Deps, 'prisma'>, status: CarrierBooking['status'], limit: number): Promise<CarrierBooking[]> {
  return prisma.carrierBooking.findMany({ where: { status }, orderBy: [{ updatedAt: 'asc' }, { shipmentId: 'asc' }], take: limit });
}

/** GET /admin/shipments/{id}/booking: where a booking stands. */
export function toBookingRecord(b: CarrierBooking): CarrierBookingRecord {
  return {
    shipmentId: b.shipmentId,
    carrier: b.carrier,
    status: b.status,
    attempts: b.attempts,
    nextAttemptAt: b.status === 'pending_retry' ? (b.nextAttemptAt?.toISOString() ?? null) : null,
    lastError: b.lastError,
    trackingNumber: b.trackingNumber,
    bookedAt: b.bookedAt?.toISOString() ?? null,
    createdAt: b.createdAt.toISOString(),
    updatedAt: b.updatedAt.toISOString(),
  };
}

/** The stored request of a booking, as sent on the first attempt. */
export const requestOf = (booking: CarrierBooking): CarrierRequest => carrierRequestSchema.parse(booking.request);
