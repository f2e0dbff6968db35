import { callRpc, RpcRefusal, serveRpc, type Bus } from '@pasar/bus';
import { b2bReleaseRequests, b2bReserveRequests, checkoutB2bReservationOrder, type RpcRequest, type RpcResponse } from '@pasar/contracts';
import { startPeriodic, type PeriodicWorker } from '@pasar/service-kit';
import { now, type B2bDeps } from '../deps';
import type { PrismaClient, PurchaseRequest } from '../generated/prisma/client';
import { taxGate, type Refusal } from '../members/rules';
import { planReservation, releaseTargets, reservationCutoff, reservationReleasable } from './rules';

type Deps = Pick<B2bDeps, 'prisma' | 'clock'>;
type SweepDeps = Deps & Pick<B2bDeps, 'bus' | 'log'>;
type ReserveInput = RpcRequest<typeof b2bReserveRequests>;
type Reservation = RpcResponse<typeof b2bReserveRequests>;
export type ReserveResult = { ok: true; reservation: Reservation } | Refusal<'not_found' | 'forbidden' | 'not_approved' | 'tax_incomplete'>;

/**
 * Step 1 of B2B submit (STYLE §1): holds the requests for one order under `reservationId`, in one
 * transaction with the rows locked (FOR UPDATE, in id order), so two checkouts of the same request
 * cannot both hold it. A repeat of the same reservation answers it again, even once confirmed.
 */
export async function reserveRequests(deps: Deps, input: ReserveInput): Promise<ReserveResult> {
  const ids = [...new Set(input.purchaseRequestIds)].sort();
  return deps.prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM purchase_request WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR UPDATE`;
    const requests = await tx.purchaseRequest.findMany({ where: { id: { in: rows.map((r) => r.id) } }, orderBy: { createdAt: 'asc' } });
    const companyId = requests[0]?.companyId;
    const member = companyId
      ? await tx.companyMember.findFirst({
          where: { companyId, userId: input.userId, status: 'active', company: { status: 'approved' } },
          include: { company: true },
        })
      : null;
    const plan = planReservation(ids, requests, member ? { companyId: member.companyId, role: member.b2bRole } : null, input.reservationId);
    if (!plan.ok) return plan;
    const company = member!.company;
    const gate = taxGate(company);
    if (!gate.ok) return gate;
    if (plan.action === 'reserve') {
      const at = now(deps);
      await tx.purchaseRequest.updateMany({
        where: { id: { in: ids }, status: 'approved' },
        data: { status: 'checkout_pending', reservationId: input.reservationId, reservedAt: at, updatedAt: at },
      });
    }
    return {
      ok: true,
      reservation: {
        reservationId: input.reservationId,
        companyId: company.id,
        companyName: company.name,
        buyerTin: company.tin!,
        companyAddress: {
          fullName: company.contactName,
          phone: company.contactPhone,
          addressLine1: company.addressLine1,
          addressLine2: null,
          city: company.city,
          postcode: company.postcode,
          state: company.state,
        },
        lines: requests.map((r: PurchaseRequest) => ({
          purchaseRequestId: r.id,
          productId: r.productId,
          variantId: r.variantId,
          quantity: r.quantity,
          unitPrice: r.unitPrice.toFixed(2),
        })),
        reserved: plan.action === 'reserve' ? ids : [],
      },
    };
  });
}

/**
 * The compensation of B2B submit: of the given requests (those the failed call reserved), the ones
 * still checkout_pending under this reservation become approved again, but those `repriced`
 * (409 `price_changed`: their catalog price is not the approved one) go back to pending at the
 * current price, their review cleared and the change in its note, for their approver to see
 * (releaseTargets). One transaction, the rows locked in id order. Confirmed (paid) requests, and
 * requests the call did not reserve, are untouched.
 */
export async function releaseRequests(
  deps: Deps,
  reservationId: string,
  purchaseRequestIds: readonly string[],
  repriced: readonly { purchaseRequestId: string; unitPrice: string }[] = [],
): Promise<number> {
  const at = now(deps);
  const freed = { reservationId: null, reservedAt: null, updatedAt: at };
  return deps.prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string; unitPrice: string }[]>`
      SELECT id, unit_price::text AS "unitPrice" FROM purchase_request
      WHERE id = ANY(${[...new Set(purchaseRequestIds)].sort()}::uuid[]) AND reservation_id = ${reservationId}::uuid AND status = 'checkout_pending'
      ORDER BY id FOR UPDATE`;
    const targets = releaseTargets(rows, repriced);
    const approved = targets.filter((target) => target.status === 'approved').map((target) => target.id);
    if (approved.length > 0) await tx.purchaseRequest.updateMany({ where: { id: { in: approved } }, data: { status: 'approved', ...freed } });
    for (const target of targets) {
      if (target.status !== 'pending') continue;
      const was = rows.find((row) => row.id === target.id)!.unitPrice;
      await tx.purchaseRequest.update({
        where: { id: target.id },
        data: {
          status: 'pending',
          unitPrice: target.unitPrice,
          reviewerId: null,
          reviewedAt: null,
          reviewNote: `the price changed from ${was} to ${target.unitPrice} after approval`,
          ...freed,
        },
      });
    }
    return targets.length;
  });
}

/**
 * One pass of the reservation sweep (DESIGN §6, STYLE §2): of up to `batchSize` reservations older
 * than the TTL, releases those that placed no order, as checkout answers
 * (rpc.checkout.b2b_reservation_order): none, or one that ended unpaid. A reservation whose order
 * exists keeps its requests for that order's order.created, however late it comes; when checkout
 * does not answer, nothing is released (the next pass asks again). The release claims the rows
 * with FOR UPDATE SKIP LOCKED, so instances take disjoint rows and a row a confirmation holds is
 * left for the next pass. Answers the ids of the released requests.
 */
export async function releaseExpiredReservations(deps: SweepDeps, ttlMs: number, batchSize = 100): Promise<string[]> {
  const at = now(deps);
  const cutoff = reservationCutoff(at, ttlMs);
  const expired = await deps.prisma.$queryRaw<{ reservationId: string }[]>`
    SELECT DISTINCT reservation_id AS "reservationId" FROM purchase_request
    WHERE status = 'checkout_pending' AND reserved_at <= ${cutoff} LIMIT ${batchSize}`;
  const released: string[] = [];
  for (const { reservationId } of expired) {
    const placed = await callRpc(deps.bus, checkoutB2bReservationOrder, { reservationId }).catch((err: unknown) => {
      deps.log.warn({ err, reservationId }, 'checkout did not say whether the reservation placed an order; kept for the next pass');
      return null;
    });
    if (!placed || !reservationReleasable(placed.status)) continue;
    const rows = await deps.prisma.$transaction(
      (tx) => tx.$queryRaw<{ id: string }[]>`
        UPDATE purchase_request SET status = 'approved', reservation_id = NULL, reserved_at = NULL, updated_at = ${at}
        WHERE id IN (SELECT id FROM purchase_request
                     WHERE status = 'checkout_pending' AND reservation_id = ${reservationId}::uuid AND reserved_at <= ${cutoff}
                     FOR UPDATE SKIP LOCKED)
        RETURNING id`,
    );
    released.push(...rows.map((r) => r.id));
  }
  return released;
}

/** A durable sweep every `intervalMs`: nothing lives in memory, so a restart loses no release. */
export function startReservationSweep(deps: SweepDeps, ttlMs: number, intervalMs: number): PeriodicWorker {
  const batchSize = 100;
  return startPeriodic({
    name: 'b2b-reservation-sweep',
    intervalMs,
    log: deps.log,
    runAtStart: false,
    async round() {
      const released = await releaseExpiredReservations(deps, ttlMs, batchSize);
      if (released.length > 0) deps.log.info({ released }, 'expired B2B reservations released');
      return released.length === batchSize;
    },
  });
}

/** rpc.b2b.reserve_requests and rpc.b2b.release_requests. */
export function reservationResponders(bus: Bus, prisma: PrismaClient) {
  return [
    serveRpc(bus, b2bReserveRequests, async (input) => {
      const result = await reserveRequests({ prisma }, input);
      if (!result.ok) throw new RpcRefusal(result.code, result.detail);
      return result.reservation;
    }),
    serveRpc(bus, b2bReleaseRequests, async ({ reservationId, purchaseRequestIds, repriced }) => ({
      released: await releaseRequests({ prisma }, reservationId, purchaseRequestIds, repriced),
    })),
  ];
}
