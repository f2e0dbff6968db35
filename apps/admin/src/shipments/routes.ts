import { carrierBookingsQuery, labelQuery, uuidParam } from '@pasar/contracts';
import { parse, refusalProblems, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import type { AdminDeps } from '../deps';
import { bookShipment, findBooking, listBookings, toBookingRecord } from '../carrier-bookings/bookings';
import { LABEL_PATH } from '../labels/rules';
import { labelUrl, signedLabel } from './labels';

const BASE = '/admin/shipments';

const STATUS_OF: Record<string, number> = {
  not_found: 404,
  not_bookable: 409,
  no_carrier: 409,
  no_pickup_address: 409,
  not_booked: 409,
  label_unavailable: 502,
  label_url_invalid: 403,
  label_url_expired: 403,
};

const problemOf = refusalProblems(STATUS_OF);

/** GET /admin/shipments/bookings, POST /admin/shipments/{id}/book, GET .../booking, GET .../label-url, and the signed label URL itself. */
export function shipmentRoutes(router: Router, deps: AdminDeps): void {
  router.get(`${BASE}/bookings`, async (req, res) => {
    requireRole(req, 'admin');
    const { status, limit } = parse(carrierBookingsQuery, req.query);
    res.json((await listBookings(deps, status, limit)).map(toBookingRecord));
  });

  router.post(`${BASE}/:id/book`, async (req, res) => {
    requireRole(req, 'admin');
    const outcome = await bookShipment(deps, parse(uuidParam, req.params).id);
    if (!outcome.ok) throw problemOf(outcome);
    res.json(outcome.result);
  });

  router.get(`${BASE}/:id/booking`, async (req, res) => {
    requireRole(req, 'admin');
    const booking = await findBooking(deps, parse(uuidParam, req.params).id);
    if (!booking) throw problemOf({ code: 'not_found', detail: 'no booking for this shipment' });
    res.json(toBookingRecord(booking));
  });

  router.get(`${BASE}/:id/label-url`, async (req, res) => {
    requireRole(req, 'admin');
    const result = await labelUrl(deps, parse(uuidParam, req.params).id);
    if (!result.ok) throw problemOf(result);
    res.json({ url: result.url, expiresAt: result.expiresAt.toISOString() });
  });

  // public (no session): the signature is the permission
  router.get(`${LABEL_PATH}/:id`, async (req, res) => {
    const params = uuidParam.safeParse(req.params);
    const query = labelQuery.safeParse(req.query);
    if (!params.success || !query.success) throw problemOf({ code: 'label_url_invalid', detail: 'the label URL is not valid' });
    const result = await signedLabel(deps, params.data.id, query.data);
    if (!result.ok) throw problemOf(result);
    res
      .status(200)
      .type('application/pdf')
      .setHeader('content-disposition', `inline; filename="label-${params.data.id}.pdf"`)
      .setHeader('cache-control', 'private, no-store')
      .send(result.pdf);
  });
}
