import { z } from 'zod';
import { moneyString, orderStatusSchema } from './commerce';
import { postalAddress } from './address';
import { orderDetail } from './http/orders';
import { defineEvent, defineRpc } from './messaging';

// B2B events and rpc (DESIGN §4, §6).

/** b2b → notifier: an administrator approved or rejected a company; the owner gets the company_reviewed e-mail. */
export const b2bCompanyReviewed = defineEvent(
  'b2b.company.reviewed',
  z.object({
    companyId: z.uuid(),
    companyName: z.string(),
    ownerId: z.uuid(),
    ownerEmail: z.email(),
    ownerName: z.string(),
    approved: z.boolean(),
    reason: z.string().nullable(),
    reviewedBy: z.uuid(),
    reviewedAt: z.iso.datetime(),
  }),
  { aggregateOf: (d) => `company:${d.companyId}` },
);

/**
 * checkout's B2B submit asks b2b to hold approved purchase requests for one order (DESIGN §6):
 * same company, caller an active company_admin or finance member, every request approved, tax
 * gate. The requests become checkout_pending under `reservationId`; a repeat with the same id
 * answers the same reservation (even once confirmed). Refusals: `not_found` (a request outside
 * the caller's company), `forbidden`, `not_approved`, `tax_incomplete`.
 */
export const b2bReserveRequests = defineRpc(
  'rpc.b2b.reserve_requests',
  z.object({
    reservationId: z.uuid(),
    userId: z.uuid(),
    purchaseRequestIds: z.array(z.uuid()).min(1).max(50),
  }),
  z.object({
    reservationId: z.uuid(),
    companyId: z.uuid(),
    companyName: z.string(),
    /** The company TIN: the order's buyer_tin. */
    buyerTin: z.string(),
    /** The company's address, for orders submitted without an addressId. */
    companyAddress: postalAddress,
    lines: z.array(
      z.object({
        purchaseRequestId: z.uuid(),
        productId: z.uuid(),
        variantId: z.uuid().nullable(),
        quantity: z.number().int().positive(),
        /** The unit price the approver approved (the request's snapshot): the order is priced at it or refused. */
        unitPrice: z.string(),
      }),
    ),
    /** The requests this call newly held (empty on a repeat): all a failed submit may release. */
    reserved: z.array(z.uuid()),
  }),
);

/**
 * checkout's B2B submit failed after reserving: of the requests this call reserved (`reserved` of
 * its reserve answer), those still checkout_pending under this reservation become approved again.
 * `repriced`: the requests whose catalog price is no longer the approved one (the submit answered
 * 409 `price_changed`): those go back to `pending` at the current price, for their approver to see.
 */
export const b2bReleaseRequests = defineRpc(
  'rpc.b2b.release_requests',
  z.object({
    reservationId: z.uuid(),
    purchaseRequestIds: z.array(z.uuid()).min(1).max(50),
    repriced: z
      .array(z.object({ purchaseRequestId: z.uuid(), unitPrice: moneyString }))
      .max(50)
      .optional(),
  }),
  z.object({ released: z.number().int() }),
);

/**
 * b2b's reservation sweep and order confirmation ask checkout which order a reservation placed
 * (at most one: checkout records it in the order's transaction), and its status; null when none.
 */
export const checkoutB2bReservationOrder = defineRpc(
  'rpc.checkout.b2b_reservation_order',
  z.object({ reservationId: z.uuid() }),
  z.object({ orderId: z.uuid().nullable(), status: orderStatusSchema.nullable() }),
);

/**
 * b2b found a B2B order whose purchase requests its reservation no longer holds (another order has
 * them): checkout cancels it while unpaid and returns its stock. `cancelled` false: the order was
 * not pending payment (its status says what it is).
 */
export const checkoutCancelB2bOrder = defineRpc(
  'rpc.checkout.cancel_b2b_order',
  z.object({ orderId: z.uuid(), reason: z.string().max(200) }),
  z.object({ cancelled: z.boolean(), status: orderStatusSchema.nullable() }),
);

/** b2b's order detail: checkout answers the order detail (null when no such order). */
export const checkoutOrderDetails = defineRpc(
  'rpc.checkout.order_details',
  z.object({ orderId: z.uuid() }),
  z.object({ order: orderDetail.nullable() }),
);
