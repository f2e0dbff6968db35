import { migrateServiceSchema } from '@pasar/bus';
import { createPrisma, createTestSchema, type TestSchema } from '@pasar/db';
import { silentLog, startSmtpCatcher, type SmtpCatcher } from '@pasar/testkit';
import { emailMessage } from '../../test/harness';
import { MIGRATIONS_DIR } from '../app';
import { PrismaClient } from '../generated/prisma/client';
import { DeliveryFailedError, deliver, type DeliveryDeps } from './deliver';
import { createMailer } from './transport';

let db: TestSchema;
let prisma: PrismaClient;
let catcher: SmtpCatcher;
let deps: DeliveryDeps;
const now = new Date('2026-03-01T08:00:00.000Z');

beforeAll(async () => {
  db = createTestSchema(undefined, 'notifier');
  await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: MIGRATIONS_DIR });
  prisma = createPrisma(PrismaClient, db.databaseUrl);
  catcher = await startSmtpCatcher();
  const mailer = createMailer({
    SMTP_URL: catcher.url,
    MAIL_FROM: 'Pasar <no-reply@pasar.local>',
    SMTP_CONNECTION_TIMEOUT_MS: 2000,
    SMTP_GREETING_TIMEOUT_MS: 2000,
    SMTP_SOCKET_TIMEOUT_MS: 2000,
  });
  deps = { prisma, mailer, log: silentLog, clock: () => now };
});

afterAll(async () => {
  deps?.mailer.close();
  await prisma?.$disconnect();
  await catcher?.close();
  await db?.drop();
});

afterEach(() => catcher.failNext(0));

const sentTo = (messageId: string) => catcher.messages.filter((m) => m.header('x-pasar-message-id') === messageId);

describe('deliver', () => {
  it('sends, then logs the e-mail sent with one attempt at the clock time', async () => {
    const message = emailMessage();
    const result = await deliver(deps, message);
    expect(result).toEqual({ messageId: message.messageId, status: 'sent', attempts: 1, alreadySent: false });
    expect(sentTo(message.messageId)).toHaveLength(1);
    const row = await prisma.emailLog.findUniqueOrThrow({ where: { messageId: message.messageId } });
    expect(row).toMatchObject({ status: 'sent', attempts: 1, sentAt: now, lastError: null, recipient: message.to, template: message.template });
  });

  it('does nothing for a messageId already sent', async () => {
    const message = emailMessage();
    await deliver(deps, message);
    const again = await deliver(deps, message);
    expect(again).toEqual({ messageId: message.messageId, status: 'sent', attempts: 1, alreadySent: true });
    expect(sentTo(message.messageId)).toHaveLength(1);
  });

  it('sends once when the same messageId is delivered concurrently', async () => {
    const message = emailMessage();
    const results = await Promise.all(Array.from({ length: 8 }, () => deliver(deps, message)));
    expect(results.filter((r) => !r.alreadySent)).toHaveLength(1);
    expect(results.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
    expect(sentTo(message.messageId)).toHaveLength(1);
  });

  it('records a refused attempt as failed with the reason and throws; the next attempt sends it', async () => {
    const message = emailMessage();
    catcher.failNext(1);
    const error: unknown = await deliver(deps, message).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DeliveryFailedError);
    expect(error).toMatchObject({ messageId: message.messageId, attempts: 1 });
    const failed = await prisma.emailLog.findUniqueOrThrow({ where: { messageId: message.messageId } });
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, sentAt: null });
    expect(failed.lastError).toMatch(/451/);

    const result = await deliver(deps, message);
    expect(result).toMatchObject({ status: 'sent', attempts: 2, alreadySent: false });
    const sent = await prisma.emailLog.findUniqueOrThrow({ where: { messageId: message.messageId } });
    expect(sent).toMatchObject({ status: 'sent', attempts: 2, lastError: null, sentAt: now });
    expect(sent.updatedAt.getTime()).toBeGreaterThanOrEqual(failed.updatedAt.getTime());
    expect(sentTo(message.messageId)).toHaveLength(1);
  });
});
