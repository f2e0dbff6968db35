import { createTransport, type Transporter } from 'nodemailer';
import SMTPTransport from 'nodemailer/lib/smtp-transport';
import type { NotifierConfig } from '../config';

export type MailerConfig = Pick<
  NotifierConfig,
  'SMTP_URL' | 'MAIL_FROM' | 'SMTP_CONNECTION_TIMEOUT_MS' | 'SMTP_GREETING_TIMEOUT_MS' | 'SMTP_SOCKET_TIMEOUT_MS'
>;

export interface OutgoingMail {
  /** The idempotency key; becomes the Message-ID and the `X-Pasar-Message-Id` header. */
  messageId: string;
  template: string;
  to: { name: string; address: string };
  subject: string;
  text: string;
  html: string;
}

export interface SentMail {
  accepted: string[];
  /** The server's final answer, e.g. `250 OK: queued as ...`. */
  response: string;
}

/** The SMTP side of the notifier: one message per call, each with bounded waits. */
export interface Mailer {
  send(mail: OutgoingMail): Promise<SentMail>;
  /** A bound for one `send` (connect, greeting, conversation), for deadlines around it. */
  readonly maxSendMs: number;
  close(): void;
}

/** `Pasar <no-reply@pasar.local>` → `pasar.local` (the Message-ID's right-hand side). */
export function senderDomain(from: string): string {
  return /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? 'pasar.local';
}

/**
 * A nodemailer SMTP transport from SMTP_URL with explicit timeouts, so a server that does not
 * answer fails the attempt (and the rpc answers) instead of hanging. The URL carries host, port,
 * `smtps:` for implicit TLS and user:password; a server offering STARTTLS is upgraded to it.
 */
export function createMailer(config: MailerConfig): Mailer {
  const timeouts = {
    connectionTimeout: config.SMTP_CONNECTION_TIMEOUT_MS,
    greetingTimeout: config.SMTP_GREETING_TIMEOUT_MS,
    socketTimeout: config.SMTP_SOCKET_TIMEOUT_MS,
    dnsTimeout: config.SMTP_CONNECTION_TIMEOUT_MS,
  };
  // SMTPTransport merges the URL with the other options (createTransport({url, ...}) would drop them)
  const transport: Transporter<SMTPTransport.SentMessageInfo> = createTransport(new SMTPTransport({ url: config.SMTP_URL, ...timeouts }));
  const domain = senderDomain(config.MAIL_FROM);
  // dns + connect + greeting, then the conversation: each command may wait up to socketTimeout
  const maxSendMs = timeouts.dnsTimeout + timeouts.connectionTimeout + timeouts.greetingTimeout + 4 * timeouts.socketTimeout;

  return {
    maxSendMs,
    async send(mail) {
      const info = await transport.sendMail({
        from: config.MAIL_FROM,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: `<${mail.messageId}@${domain}>`,
        headers: { 'X-Pasar-Message-Id': mail.messageId, 'X-Pasar-Template': mail.template },
      });
      return { accepted: info.accepted.map((a) => (typeof a === 'string' ? a : a.address)), response: info.response };
    },
    close() {
      transport.close();
    },
  };
}

/** A short, single-line description of an SMTP failure for the log row (no message content). */
export function describeSmtpError(err: unknown): string {
  if (!(err instanceof Error)) return String(err).slice(0, 1000);
  const details = err as Error & { code?: unknown; responseCode?: unknown };
  const prefix = [details.code, details.responseCode].filter((part) => typeof part === 'string' || typeof part === 'number').join(' ');
  return `${prefix ? `${prefix}: ` : ''}${err.message}`.replace(/\s+/g, ' ').slice(0, 1000);
}
