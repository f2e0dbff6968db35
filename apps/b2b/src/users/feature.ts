import type { B2bFeature } from '../feature';
import { userReplicaConsumer } from './users';

/** The name/e-mail replica from identity.user.upserted. */
export const usersFeature: B2bFeature = {
  name: 'users',
  consumers: ({ bus, prisma }) => [userReplicaConsumer(bus, prisma)],
};
