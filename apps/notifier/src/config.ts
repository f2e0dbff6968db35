import { serviceConfigSchema } from '@pasar/service-kit';
import { z } from 'zod';

const milliseconds = z.coerce.number().int().min(1).max(600_000);

/** "5000,30000,120000" → [5000, 30000, 120000] */
const backoffList = z
  .string()
  .trim()
  .transform((value, ctx) => {
    const parts = value.split(',').map((part) => part.trim());
    const list = parts.map(Number);
    if (parts.some((part) => part === '') || list.some((ms) => !Number.isInteger(ms) || ms < 1 || ms > 86_400_000)) {
      ctx.addIssue({ code: 'custom', message: 'expected a comma-separated list of milliseconds, e.g. "5000,30000,120000"' });
      return z.NEVER;
    }
    return list;
  });

export const notifierConfigSchema = serviceConfigSchema(
  { port: 4005, schema: 'notifier' },
  {
    /** smtp://[user:pass@]host:port or smtps://... */
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\/[^/]+/, 'expected smtp://host:port or smtps://host:port')
      .default('smtp://127.0.0.1:1025'),
    MAIL_FROM: z.string().min(3).default('Pasar <no-reply@pasar.local>'),
    /** How long to wait for the TCP (and TLS) connection. */
    SMTP_CONNECTION_TIMEOUT_MS: milliseconds.default(10_000),
    /** How long to wait for the server's greeting once connected. */
    SMTP_GREETING_TIMEOUT_MS: milliseconds.default(10_000),
    /** How long the connection may stay silent during the conversation. */
    SMTP_SOCKET_TIMEOUT_MS: milliseconds.default(10_000),
    /**
     * Pauses before each redelivery of a failed `notify.email.requested` (ms); the message is
     * tried once plus once per entry, then logged `failed` and parked. Pauses are applied by
     * nak(delay), so a slow send is not redelivered while it runs.
     */
    EMAIL_RETRY_BACKOFF_MS: backoffList.default([30_000, 120_000, 600_000, 1_800_000, 7_200_000]),
  },
);
export type NotifierConfig = z.infer<typeof notifierConfigSchema>;
