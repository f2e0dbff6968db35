import { randomUUID } from 'node:crypto';
import type { Bus } from '@pasar/bus';
import { notifyEmailRequested, type EmailMessage, type EventEnvelope } from '@pasar/contracts';
import { createTestSchema, type TestSchema } from '@pasar/db';
import { loadConfig } from '@pasar/service-kit';
import { createTestBus, silentLog, startSmtpCatcher, TEST_IDENTITY_SECRET, TEST_NATS_URL, type SmtpCatcher, type TestBus } from '@pasar/testkit';
import { startNotifier, SERVICE_NAME, type RunningNotifier } from '../src/app';
import { notifierConfigSchema } from '../src/config';

export interface NotifierHarness {
  notifier: RunningNotifier;
  catcher: SmtpCatcher;
  /** Another service's connection in the notifier's namespace: publishes events, calls the rpc. */
  client: TestBus;
  db: TestSchema;
  close(): Promise<void>;
}

/**
 * A notifier on a fresh schema and NATS namespace, sending to a fresh SMTP catcher. `env`
 * overrides the config (e.g. SMTP_URL, EMAIL_RETRY_BACKOFF_MS).
 */
export async function startHarness(env: Record<string, string> = {}, overrides: { log?: typeof silentLog } = {}): Promise<NotifierHarness> {
  const db = createTestSchema(undefined, 'notifier');
  const catcher = await startSmtpCatcher();
  const client = await createTestBus('test-client');
  const config = loadConfig(notifierConfigSchema, {
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: db.databaseUrl,
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: client.namespace,
    LOG_LEVEL: 'silent',
    IDENTITY_SECRET: TEST_IDENTITY_SECRET,
    SMTP_URL: catcher.url,
    EMAIL_RETRY_BACKOFF_MS: '200,400,600',
    ...env,
  });
  let notifier: RunningNotifier;
  try {
    notifier = await startNotifier(config, { log: overrides.log ?? silentLog });
  } catch (err) {
    await client.close();
    await catcher.close();
    await db.drop();
    throw err;
  }
  await Promise.all(notifier.consumers.map((c) => c.ready));
  return {
    notifier,
    catcher,
    client,
    db,
    async close() {
      await notifier.close();
      await client.close();
      await catcher.close();
      await db.drop();
    },
  };
}

export type OrderConfirmationMessage = Extract<EmailMessage, { template: 'order_confirmation' }>;

/** An order confirmation with a fresh messageId and recipient. */
export function emailMessage(overrides: Partial<Pick<EmailMessage, 'messageId' | 'to'>> = {}): OrderConfirmationMessage {
  return {
    messageId: overrides.messageId ?? randomUUID(),
    to: overrides.to ?? `buyer-${randomUUID().slice(0, 8)}@example.test`,
    template: 'order_confirmation',
    vars: { fullName: 'Nur Aisyah', shortId: `PSR-${randomUUID().slice(0, 6).toUpperCase()}`, total: '149.90' },
  };
}

/** Publishes `notify.email.requested` straight to JetStream, as an outbox relay would. */
export async function publishEmailRequested(
  bus: Bus,
  message: EmailMessage,
  options: { eventId?: string; msgId?: string } = {},
): Promise<{ envelope: EventEnvelope<EmailMessage>; seq: number; duplicate: boolean }> {
  const envelope: EventEnvelope<EmailMessage> = {
    id: options.eventId ?? randomUUID(),
    type: notifyEmailRequested.type,
    source: 'test',
    occurredAt: new Date().toISOString(),
    data: message,
  };
  const ack = await bus.js.publish(bus.naming.eventSubject(envelope), JSON.stringify(envelope), {
    msgID: options.msgId ?? envelope.id,
  });
  return { envelope, seq: ack.seq, duplicate: ack.duplicate };
}

/** Resolves once the notifier's e-mail consumer has acknowledged or terminated everything up to `seq`. */
export async function consumedUpTo(bus: Bus, seq: number, timeoutMs = 10000): Promise<void> {
  const jsm = await bus.jsm;
  const stream = bus.naming.stream('NOTIFY');
  const durable = bus.naming.durable(SERVICE_NAME, 'email-requested');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await jsm.consumers.info(stream, durable);
    // delivered that far, nothing waiting for an ack or a redelivery (a terminated message does not move ack_floor)
    if (info.delivered.stream_seq >= seq && info.num_pending === 0 && info.num_ack_pending === 0) return;
    if (Date.now() > deadline) throw new Error(`consumer ${durable} did not get past stream seq ${seq} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
