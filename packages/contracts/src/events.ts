import { z } from 'zod';
import { defineEvent } from './messaging';
import { emailMessageSchema } from './email';

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
);

/** any → notifier: send an e-mail with retries. */
export const notifyEmailRequested = defineEvent('notify.email.requested', emailMessageSchema);

export const events = { identityUserUpserted, notifyEmailRequested } as const;
