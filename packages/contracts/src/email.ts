import { z } from 'zod';

/** Every e-mail the platform sends is one of these templates with its typed variables. */
export const emailTemplateSchema = z.discriminatedUnion('template', [
  z.object({ template: z.literal('welcome'), vars: z.object({ fullName: z.string() }) }),
  z.object({
    template: z.literal('credentials'),
    vars: z.object({ fullName: z.string(), email: z.email(), password: z.string(), signInUrl: z.string() }),
  }),
  z.object({
    template: z.literal('invite'),
    vars: z.object({
      fullName: z.string(),
      inviterName: z.string(),
      groupName: z.string(),
      email: z.email(),
      temporaryPassword: z.string(),
      setupUrl: z.string(),
    }),
  }),
  z.object({
    template: z.literal('order_confirmation'),
    vars: z.object({ fullName: z.string(), shortId: z.string(), total: z.string() }),
  }),
  z.object({
    template: z.literal('vendor_application_rejected'),
    vars: z.object({ fullName: z.string(), storeName: z.string(), note: z.string() }),
  }),
  z.object({
    template: z.literal('company_reviewed'),
    vars: z.object({ fullName: z.string(), companyName: z.string(), approved: z.boolean(), reason: z.string().nullable() }),
  }),
]);
export type EmailTemplate = z.infer<typeof emailTemplateSchema>;
export type EmailTemplateName = EmailTemplate['template'];

export const emailMessageSchema = z.intersection(
  z.object({
    /** Idempotency key of the e-mail: the same key is sent once. */
    messageId: z.uuid(),
    to: z.email(),
  }),
  emailTemplateSchema,
);
export type EmailMessage = z.infer<typeof emailMessageSchema>;
