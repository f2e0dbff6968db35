import { z } from 'zod';
import { postalAddress } from './address';
import { defineEvent } from './messaging';
import { emailEventSchema } from './email';

export const roleSchema = z.enum(['customer', 'vendor', 'admin']);
export type Role = z.infer<typeof roleSchema>;

/** gateway → b2b, checkout, admin: name/e-mail replicas. */
export const identityUserUpserted = defineEvent(
  'identity.user.upserted',
  z.object({
    userId: z.uuid(),
    email: z.email(),
    fullName: z.string(),
    phone: z.string().nullable(),
    role: roleSchema,
    updatedAt: z.iso.datetime(),
  }),
  { aggregateOf: (d) => `user:${d.userId}` },
);

/**
 * gateway → checkout, b2b: a user with a temporary password completed account setup; their
 * pending memberships become active and must_change_password is cleared.
 */
export const identityAccountSetupCompleted = defineEvent(
  'identity.account.setup_completed',
  z.object({
    userId: z.uuid(),
    fullName: z.string(),
    phone: z.string().nullable(),
    address: postalAddress
      .nullable(),
    billing: z.object({ tin: z.string().nullable() }).nullable(),
    completedAt: z.iso.datetime(),
  }),
  { aggregateOf: (d) => `user:${d.userId}` },
);

/** any → notifier: send an e-mail with retries. */
/** An e-mail to send; never one with a password (emailEventSchema): those go through rpc.notifier.send_email. */
export const notifyEmailRequested = defineEvent('notify.email.requested', emailEventSchema);

export const events = { identityUserUpserted, identityAccountSetupCompleted, notifyEmailRequested } as const;
