import type { B2bFeature } from '../feature';
import { reservationResponders, startReservationSweep } from './reservations';

/** B2B checkout reservations: reserve/release rpc for checkout, and the sweep of unconfirmed ones. */
export const reservationsFeature: B2bFeature = {
  name: 'reservations',
  rpc: ({ bus, prisma }) => reservationResponders(bus, prisma),
  workers: ({ prisma, bus, log, config }) => [startReservationSweep({ prisma, bus, log }, config.B2B_RESERVATION_TTL, config.B2B_RESERVATION_SWEEP)],
};
