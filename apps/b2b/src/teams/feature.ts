import type { B2bFeature } from '../feature';
import { teamRoutes } from './routes';
import { memberActivationConsumer } from './teams';

/** Teams: invites, the member list, activation on account setup. */
export const teamsFeature: B2bFeature = {
  name: 'teams',
  routes: teamRoutes,
  consumers: ({ bus, prisma }) => [memberActivationConsumer(bus, prisma)],
};
