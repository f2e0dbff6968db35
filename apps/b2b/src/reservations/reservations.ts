import { RpcRefusal, serveRpc, type Bus } from '@pasar/bus';
import { b2bReleaseRequests, b2bReserveRequests, type RpcRequest, type RpcResponse } from '@pasar/contracts';
import { startPeriodic, type PeriodicWorker } from '@pasar/service-kit';
import type { Logger } from 'pino';
import { now, type B2bDeps } from '../deps';
import type { PrismaClient, PurchaseRequest } from '../generated/prisma/client';
import { taxGate, type Refusal } from '../members/rules';
import { planReservation, reservationCutoff } from './rules';

type Deps = Pick<B2bDeps, 'prisma' | 'clock'>;
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
        lines: requests.map((r: PurchaseRequest) => ({ purchaseRequestId: r.id, productId: r.productId, variantId: r.variantId, quantity: r.quantity })),
      },
    };
  });
}

/**
 * The compensation of B2B submit, and the sweep's release: the requests still checkout_pending
 * under this reservation become approved again. Confirmed (paid) requests are untouched.
 */
export async function releaseRequests(deps: Deps, reservationId: string): Promise<number> {
  const released = await deps.prisma.purchaseRequest.updateMany({
    where: { reservationId, status: 'checkout_pending' },
    data: { status: 'approved', reservationId: null, reservedAt: null, updatedAt: now(deps) },
  });
  return released.count;
}

/**
 * One pass of the reservation sweep (DESIGN §6, STYLE §2): releases up to `batchSize` requests
 * whose reservation is older than the TTL. Rows are claimed with FOR UPDATE SKIP LOCKED, so
 * instances take disjoint rows and a row a confirmation holds is left for the next pass.
 */
export async function releaseExpiredReservations(deps: Deps, ttlMs: number, batchSize = 100): Promise<string[]> {
  const at = now(deps);
  const cutoff = reservationCutoff(at, ttlMs);
  return deps.prisma.$transaction(async (tx) => {
    const released = await tx.$queryRaw<{ id: string }[]>`
      UPDATE purchase_request SET status = 'approved', reservation_id = NULL, reserved_at = NULL, updated_at = ${at}
      WHERE id IN (SELECT id FROM purchase_request
                   WHERE status = 'checkout_pending' AND reserved_at <= ${cutoff}
                   ORDER BY reserved_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)
      RETURNING id`;
    return released.map((r) => r.id);
  });
}

/** A durable sweep every `intervalMs`: nothing lives in memory, so a restart loses no release. */
export function startReservationSweep(deps: Deps & { log: Logger }, ttlMs: number, intervalMs: number): PeriodicWorker {
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
    serveRpc(bus, b2bReleaseRequests, async ({ reservationId }) => ({ released: await releaseRequests({ prisma }, reservationId) })),
  ];
}
