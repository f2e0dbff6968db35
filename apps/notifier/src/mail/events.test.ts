import { waitFor } from '@pasar/testkit';
import { consumedUpTo, emailMessage, publishEmailRequested, startHarness, type NotifierHarness } from '../../test/harness';

/** The consumer's backoff in this file: tried once plus three retries. */
const BACKOFF_MS = [500, 1000, 1500];

let h: NotifierHarness;

beforeAll(async () => {
  h = await startHarness({ EMAIL_RETRY_BACKOFF_MS: BACKOFF_MS.join(',') });
});

afterAll(async () => {
  await h?.close();
});

afterEach(() => {
  h.catcher.failNext(0);
});

const byMessageId = (messageId: string) => (m: { header(name: string): string | undefined }) => m.header('x-pasar-message-id') === messageId;
const logRow = (messageId: string) => h.notifier.prisma.emailLog.findUnique({ where: { messageId } });
const sentTo = (messageId: string) => h.catcher.messages.filter(byMessageId(messageId));

describe('notify.email.requested', () => {
  it('runs a durable consumer with explicit ack that the server never gives up on (SMTP refusals are counted by the handler)', async () => {
    const jsm = await h.client.bus.jsm;
    const info = await jsm.consumers.info(h.client.bus.naming.stream('NOTIFY'), 'notifier_email-requested');
    // the pauses are applied by nak(delay); a server-side backoff would shorten ack_wait to its first entry
    expect(info.config.backoff).toBeUndefined();
    // unlimited: a database outage must never drop an e-mail; only BACKOFF_MS.length + 1 SMTP refusals park it
    expect(info.config.max_deliver).toBe(-1);
    expect(info.config.ack_policy).toBe('explicit');
  });

  it('sends the e-mail to the recipient with the rendered subject and logs it sent', async () => {
    const message = emailMessage();
    await publishEmailRequested(h.client.bus, message);

    const mail = await h.catcher.waitFor(byMessageId(message.messageId));
    expect(mail.to).toEqual([message.to]);
    expect(mail.subject).toBe(`Order ${message.vars.shortId} confirmed`);
    expect(mail.from).toBe('no-reply@pasar.local');
    expect(mail.header('message-id')).toBe(`<${message.messageId}@pasar.local>`);

    const row = await waitFor(async () => {
      const r = await logRow(message.messageId);
      return r?.status === 'sent' ? r : null;
    });
    expect(row).toMatchObject({ template: 'order_confirmation', recipient: message.to, attempts: 1, lastError: null });
    expect(row.subject).toBe(mail.subject);
    expect(row.sentAt).toBeInstanceOf(Date);
  });

  it('sends one e-mail when two events carry the same messageId', async () => {
    const message = emailMessage();
    const first = await publishEmailRequested(h.client.bus, message);
    const second = await publishEmailRequested(h.client.bus, message); // another event id, same e-mail
    expect(second.envelope.id).not.toBe(first.envelope.id);
    expect(second.duplicate).toBe(false);

    await h.catcher.waitFor(byMessageId(message.messageId));
    await consumedUpTo(h.client.bus, second.seq);
    expect(sentTo(message.messageId)).toHaveLength(1);
    expect(await logRow(message.messageId)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('sends one e-mail when the same envelope is published again (within and after the dedupe window)', async () => {
    const message = emailMessage();
    const first = await publishEmailRequested(h.client.bus, message);
    // the same JetStream msg id: dropped by the stream
    const again = await publishEmailRequested(h.client.bus, message, { eventId: first.envelope.id });
    expect(again.duplicate).toBe(true);
    // the same envelope under another msg id, as a re-publish after the dedupe window would be
    const late = await publishEmailRequested(h.client.bus, message, { eventId: first.envelope.id, msgId: `${first.envelope.id}-late` });
    expect(late.duplicate).toBe(false);

    await h.catcher.waitFor(byMessageId(message.messageId));
    await consumedUpTo(h.client.bus, late.seq);
    expect(sentTo(message.messageId)).toHaveLength(1);
  });

  it('retries a temporarily failing SMTP server with the backoff until it is sent (attempts = 3)', async () => {
    h.catcher.failNext(2);
    const message = emailMessage();
    const started = Date.now();
    await publishEmailRequested(h.client.bus, message);

    const mail = await h.catcher.waitFor(byMessageId(message.messageId));
    const elapsed = Date.now() - started;
    expect(mail.to).toEqual([message.to]);
    // at least one backoff pause (JetStream may also redeliver after ack_wait = the first pause)
    expect(elapsed).toBeGreaterThanOrEqual(BACKOFF_MS[0] - 50);

    const row = await waitFor(async () => {
      const r = await logRow(message.messageId);
      return r?.status === 'sent' ? r : null;
    });
    expect(row.attempts).toBe(3);
    expect(row.lastError).toBeNull();
    expect(sentTo(message.messageId)).toHaveLength(1);
  });

  it('after the last attempt leaves the e-mail logged failed and parks the message', async () => {
    h.catcher.failNext(1000);
    const message = emailMessage();
    const { envelope } = await publishEmailRequested(h.client.bus, message);

    await waitFor(() => h.notifier.prisma.parkedMessage.findFirst({ where: { eventId: envelope.id } }), 15000);
    const row = await logRow(message.messageId);
    expect(row).toMatchObject({ status: 'failed', attempts: BACKOFF_MS.length + 1, sentAt: null });
    expect(row?.lastError).toMatch(/451/);
    expect(sentTo(message.messageId)).toHaveLength(0);

    const parked = await waitFor(() => h.notifier.prisma.parkedMessage.findFirst({ where: { eventId: envelope.id } }));
    expect(parked).toMatchObject({ consumer: 'notifier_email-requested', deliveries: BACKOFF_MS.length + 1 });
    expect(parked.error).toMatch(/not accepted by the SMTP server/);
  });
});
