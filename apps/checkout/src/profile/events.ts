import { consumeWithInbox, type Bus, type RunningConsumer } from '@pasar/bus';
import { identityAccountSetupCompleted } from '@pasar/contracts';
import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client';
import { applyAccountSetup } from './profile';

/** identity.account.setup_completed → the setup address becomes the default address, the billing TIN the profile TIN. */
export function accountSetupProfileConsumer(bus: Bus, prisma: PrismaClient, log: Logger): RunningConsumer {
  return consumeWithInbox(bus, {
    name: 'profile-account-setup',
    event: identityAccountSetupCompleted,
    db: prisma,
    handler: (event, { tx }) => applyAccountSetup({ prisma, log }, tx, event),
  });
}
