import type { Bus } from '@pasar/bus';
import type { EmailMessage } from '@pasar/contracts';
import type { PrismaClient } from '../generated/prisma/client';
import { renderEmail } from '../templates/render';
import { describeSmtpError, type Mailer } from './transport';

/** pino, as every service logs */
export type Logger = Bus['log'];

export interface DeliveryDeps {
  prisma: PrismaClient;
  mailer: Mailer;
  log: Logger;
  clock?: () => Date;
}

export interface Delivered {
  messageId: string;
  status: 'sent';
  /** Attempts so far, this one included (the earlier one that sent it, when `alreadySent`). */
  attempts: number;
  /** True when an earlier delivery sent this messageId; nothing was sent now. */
  alreadySent: boolean;
}

/** The SMTP server did not accept the message; the log row says `failed` with the reason. */
export class DeliveryFailedError extends Error {
  override readonly name = 'DeliveryFailedError';
  constructor(
    readonly messageId: string,
    readonly attempts: number,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`e-mail ${messageId} not accepted by the SMTP server (attempt ${attempts}): ${reason}`, options);
  }
}

/** Slack on top of the mailer's own bound for the transaction that holds the row during a send. */
const TRANSACTION_SLACK_MS = 10_000;

/**
 * Sends one e-mail at most once per messageId, whichever path asks (event consumer or rpc) and
 * however often:
 * 1. the `email_log` row is created if missing (`queued`);
 * 2. in one transaction, `attempts` is incremented unless the row is already `sent`; that UPDATE
 *    holds the row lock, so a concurrent delivery of the same messageId waits for this one and
 *    then finds `sent`;
 * 3. the message goes to the SMTP server; on acceptance the row becomes `sent`, otherwise `failed`
 *    with `last_error` (committed) and DeliveryFailedError is thrown for the caller to retry or
 *    refuse.
 * A crash mid-send rolls the attempt back and leaves the row as it was, so a redelivery sends it.
 */
export async function deliver(deps: DeliveryDeps, message: EmailMessage): Promise<Delivered> {
  const { prisma, mailer } = deps;
  const clock = deps.clock ?? (() => new Date());
  const log = deps.log.child({ messageId: message.messageId, template: message.template });
  const rendered = renderEmail(message);

  await prisma.emailLog.createMany({
    data: [{ messageId: message.messageId, template: message.template, recipient: message.to, subject: rendered.subject }],
    skipDuplicates: true,
  });

  type Outcome = { kind: 'sent'; attempts: number } | { kind: 'already_sent'; attempts: number } | { kind: 'failed'; attempts: number; error: unknown };

  const outcome = await prisma.$transaction(
    async (tx): Promise<Outcome> => {
      const { count } = await tx.emailLog.updateMany({
        where: { messageId: message.messageId, status: { not: 'sent' } },
        data: { attempts: { increment: 1 } },
      });
      if (count === 0) {
        const row = await tx.emailLog.findUniqueOrThrow({ where: { messageId: message.messageId } });
        return { kind: 'already_sent', attempts: row.attempts };
      }
      try {
        const sent = await mailer.send({
          messageId: message.messageId,
          template: message.template,
          to: { name: 'fullName' in message.vars ? message.vars.fullName : message.vars.storeName, address: message.to },
          ...rendered,
        });
        const row = await tx.emailLog.update({
          where: { messageId: message.messageId },
          data: { status: 'sent', sentAt: clock(), lastError: null },
        });
        log.info({ attempts: row.attempts, smtp: sent.response }, 'e-mail sent');
        return { kind: 'sent', attempts: row.attempts };
      } catch (error) {
        const row = await tx.emailLog.update({
          where: { messageId: message.messageId },
          data: { status: 'failed', lastError: describeSmtpError(error) },
        });
        return { kind: 'failed', attempts: row.attempts, error };
      }
    },
    { timeout: mailer.maxSendMs + TRANSACTION_SLACK_MS, maxWait: TRANSACTION_SLACK_MS },
  );

  switch (outcome.kind) {
    case 'sent':
      return { messageId: message.messageId, status: 'sent', attempts: outcome.attempts, alreadySent: false };
    case 'already_sent':
      log.info({ attempts: outcome.attempts }, 'e-mail already sent; not sending again');
      return { messageId: message.messageId, status: 'sent', attempts: outcome.attempts, alreadySent: true };
    case 'failed': {
      const reason = describeSmtpError(outcome.error);
      log.warn({ attempts: outcome.attempts, reason }, 'e-mail not accepted by the SMTP server');
      throw new DeliveryFailedError(message.messageId, outcome.attempts, reason, { cause: outcome.error });
    }
  }
}
