import { z } from 'zod';
import { defineRpc } from './messaging';
import { roleSchema } from './events';
import { emailMessageSchema } from './email';

const userSummary = z.object({
  id: z.uuid(),
  email: z.email(),
  fullName: z.string(),
  phone: z.string().nullable(),
  role: roleSchema,
  mustChangePassword: z.boolean(),
});
export type UserSummary = z.infer<typeof userSummary>;

/** Creates a user with a temporary password, or returns the existing one with that e-mail. */
export const identityCreateUser = defineRpc(
  'rpc.identity.create_user',
  z.object({
    email: z.email(),
    fullName: z.string().min(1).max(200),
    phone: z.string().max(40).nullish(),
    /** Never `admin`: administrators come only from the gateway's seed (ADMIN_EMAIL) or an operator command. */
    role: roleSchema.exclude(['admin']),
    password: z.string().min(8).max(128),
    mustChangePassword: z.boolean().default(true),
    /**
     * The caller's key for this creation (e.g. `vendor-application:<id>`): a repeat with the same key
     * (after a timeout) answers the first result, `created: true`, and sets the repeat's password,
     * so a retried saga step neither orphans an account nor loses the temporary password. Once the
     * user has chosen a password (must_change_password cleared), a repeat answers `created: false`
     * and changes nothing: the caller then sends no password.
     */
    idempotencyKey: z.string().min(1).max(200).optional(),
  }),
  z.object({ user: userSummary, created: z.boolean() }),
);

export const identityResetPassword = defineRpc(
  'rpc.identity.reset_password',
  z.object({ userId: z.uuid(), password: z.string().min(8).max(128), mustChangePassword: z.boolean().default(true) }),
  z.object({ user: userSummary }),
);

export const identityUsers = defineRpc(
  'rpc.identity.users',
  z.object({ userIds: z.array(z.uuid()).max(500) }),
  z.object({ users: z.array(userSummary) }),
);

/** Sends now; answers ok only after the SMTP server accepted the message. */
export const notifierSendEmail = defineRpc(
  'rpc.notifier.send_email',
  emailMessageSchema,
  z.object({ messageId: z.uuid(), status: z.literal('sent') }),
);

export const rpcs = { identityCreateUser, identityResetPassword, identityUsers, notifierSendEmail } as const;
