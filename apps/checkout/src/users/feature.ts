import type { CheckoutFeature } from '../feature';
import { userReplicaConsumer } from './events';

/** Checkout's replica of identity's users (e-mail addresses for order e-mails). */
export const usersFeature: CheckoutFeature = {
  name: 'users',
  consumers: ({ bus, prisma }) => [userReplicaConsumer(bus, prisma)],
};
