import { callRpc } from '@pasar/bus';
import { notifierSendEmail } from '@pasar/contracts';
import { randomUUID } from 'node:crypto';
import { consumedUpTo, emailMessage, publishEmailRequested, startHarness, type NotifierHarness } from '../../test/harness';

let h: NotifierHarness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

const sentTo = (messageId: string) => h.catcher.messages.filter((m) => m.header('x-pasar-message-id') === messageId);
const logRow = (messageId: string) => h.notifier.prisma.emailLog.findUnique({ where: { messageId } });

describe('rpc.notifier.send_email', () => {
  it('answers ok only once the SMTP server has accepted the message', async () => {
    const message = {
      messageId: randomUUID(),
      to: 'new-vendor@example.test',
      template: 'credentials' as const,
      vars: { fullName: 'Tan Wei Ming', email: 'new-vendor@example.test', password: 'Xk3-9fPq-2LmZ-8sTw', signInUrl: 'https://pasar.example/sign-in' },
    };
    const answer = await callRpc(h.client.bus, notifierSendEmail, message, { timeoutMs: 10000 });
    expect(answer).toEqual({ messageId: message.messageId, status: 'sent' });

    // already there when the answer arrives: no waiting
    const [mail] = sentTo(message.messageId);
    expect(mail).toBeDefined();
    expect(mail.to).toEqual(['new-vendor@example.test']);
    expect(mail.subject).toBe('Your Pasar sign-in details');
    expect(mail.raw).toContain('Xk3-9fPq-2LmZ-8sTw');
    expect(await logRow(message.messageId)).toMatchObject({ status: 'sent', attempts: 1, template: 'credentials' });
  });

  it('answers ok again for the same messageId without sending it twice', async () => {
    const message = emailMessage();
    await callRpc(h.client.bus, notifierSendEmail, message, { timeoutMs: 10000 });
    const again = await callRpc(h.client.bus, notifierSendEmail, message, { timeoutMs: 10000 });
    expect(again).toEqual({ messageId: message.messageId, status: 'sent' });
    expect(sentTo(message.messageId)).toHaveLength(1);
    expect(await logRow(message.messageId)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('sends once when the same messageId comes by rpc and by event', async () => {
    const message = emailMessage();
    await callRpc(h.client.bus, notifierSendEmail, message, { timeoutMs: 10000 });
    const { seq } = await publishEmailRequested(h.client.bus, message);
    await consumedUpTo(h.client.bus, seq);
    expect(sentTo(message.messageId)).toHaveLength(1);
  });

  it('sends once when concurrent rpc calls carry the same messageId', async () => {
    const message = emailMessage();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => callRpc(h.client.bus, notifierSendEmail, message, { timeoutMs: 10000 })),
    );
    expect(answers.every((a) => a.status === 'sent')).toBe(true);
    expect(sentTo(message.messageId)).toHaveLength(1);
    expect(await logRow(message.messageId)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('refuses with smtp_failed when the SMTP server turns the message down, then sends on the next call', async () => {
    const message = emailMessage();
    h.catcher.failNext(1);
    await expect(callRpc(h.client.bus, notifierSendEmail, message, { timeoutMs: 10000 })).rejects.toMatchObject({
      name: 'RpcFailedError',
      code: 'smtp_failed',
    });
    expect(await logRow(message.messageId)).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await logRow(message.messageId))?.lastError).toMatch(/451/);

    await expect(callRpc(h.client.bus, notifierSendEmail, message, { timeoutMs: 10000 })).resolves.toMatchObject({ status: 'sent' });
    expect(await logRow(message.messageId)).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
    expect(sentTo(message.messageId)).toHaveLength(1);
  });

  it('refuses a request that is not an e-mail message', async () => {
    const reply = await h.client.bus.nc.request(h.client.bus.naming.subject(notifierSendEmail.subject), JSON.stringify({ to: 'x' }), {
      timeout: 5000,
    });
    expect(reply.json()).toMatchObject({ ok: false, code: 'invalid_request' });
  });
});
