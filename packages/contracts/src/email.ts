import { z } from 'zod';

/** A link put into an e-mail: absolute http(s) only, so no `javascript:` or relative URL ends up in an href. */
const emailLink = z.url({ protocol: /^https?$/, hostname: z.regexes.hostname });
/** Money as the API answers it: a decimal string with two decimals, e.g. "12.50" (MYR). */
const moneyString = z.string().regex(/^-?\d+\.\d{2}$/, 'expected a money string like "12.50"');
const personName = z.string().min(1).max(200);

/**
 * Every e-mail the platform sends is one of these templates with its typed variables; the
 * notifier renders them (subject, text and HTML, every variable escaped).
 */
export const emailTemplateSchema = z.discriminatedUnion('template', [
  /** A customer signed up. */
  z.object({ template: z.literal('welcome'), vars: z.object({ fullName: personName }) }),
  /** An account was created for someone (vendor approval) or its password was reset: sign-in details. */
  z.object({
    template: z.literal('credentials'),
    vars: z.object({ fullName: personName, email: z.email(), password: z.string().min(1), signInUrl: emailLink }),
  }),
  /** A B2B company or family group invited a member; they sign in with the temporary password. */
  z.object({
    template: z.literal('invite'),
    vars: z.object({
      fullName: personName,
      inviterName: personName,
      groupName: z.string().min(1).max(200),
      email: z.email(),
      /** Null when the invitee already had an account: they sign in with their own password. */
      temporaryPassword: z.string().min(1).nullable(),
      setupUrl: emailLink,
    }),
  }),
  /** An order was paid. `total` in MYR. */
  z.object({
    template: z.literal('order_confirmation'),
    vars: z.object({ fullName: personName, shortId: z.string().min(1).max(40), total: moneyString }),
  }),
  z.object({
    template: z.literal('vendor_application_rejected'),
    vars: z.object({ fullName: personName, storeName: z.string().min(1).max(200), note: z.string().max(5000) }),
  }),
  /** A B2B company was approved or rejected; `reason` is the admin's note (rejections). */
  z.object({
    template: z.literal('company_reviewed'),
    vars: z.object({
      fullName: personName,
      companyName: z.string().min(1).max(200),
      approved: z.boolean(),
      reason: z.string().max(5000).nullable(),
    }),
  }),
  /** A vendor's webhook endpoint was disabled: its receiver answered 410 Gone, or failed for days. */
  z.object({
    template: z.literal('webhook_endpoint_disabled'),
    vars: z.object({ storeName: z.string().min(1).max(200), url: z.string().min(1).max(2000), reason: z.string().min(1).max(500) }),
  }),
]);
export type EmailTemplate = z.infer<typeof emailTemplateSchema>;
export type EmailTemplateName = EmailTemplate['template'];
/** The variables of one template. */
export type EmailVars<T extends EmailTemplateName> = Extract<EmailTemplate, { template: T }>['vars'];

export const emailMessageSchema = z.intersection(
  z.object({
    /** Idempotency key of the e-mail: the same key is sent once (by the event and the rpc path alike). */
    messageId: z.uuid(),
    to: z.email(),
  }),
  emailTemplateSchema,
);
export type EmailMessage = z.infer<typeof emailMessageSchema>;

/** True when the message carries a password: sign-in details, or an invite's temporary password. */
export function carriesPassword(message: EmailMessage): boolean {
  return message.template === 'credentials' || (message.template === 'invite' && message.vars.temporaryPassword !== null);
}

/**
 * What a `notify.email.requested` event may carry: never a password. Events are stored (outbox
 * rows, JetStream, dead letters); an e-mail with a password goes through the synchronous
 * `rpc.notifier.send_email` only.
 */
export const emailEventSchema = emailMessageSchema.refine((message) => !carriesPassword(message), {
  message: 'an e-mail with a password goes through rpc.notifier.send_email, never through an event',
});
