import { callRpc } from '@pasar/bus';
import { notifierSendEmail } from '@pasar/contracts';
import { freePort } from '@pasar/testkit';
import { emailMessage, startHarness, type NotifierHarness } from '../../test/harness';

let h: NotifierHarness;

beforeAll(async () => {
  // nothing listens on this port: every connection is refused
  const closedPort = await freePort();
  h = await startHarness({
    SMTP_URL: `smtp://127.0.0.1:${closedPort}`,
    SMTP_CONNECTION_TIMEOUT_MS: '1000',
    SMTP_GREETING_TIMEOUT_MS: '1000',
    SMTP_SOCKET_TIMEOUT_MS: '1000',
  });
});

afterAll(async () => {
  await h?.close();
});

describe('rpc.notifier.send_email with the SMTP server down', () => {
  it('answers the refusal smtp_failed within the timeouts and logs the e-mail failed', async () => {
    const message = emailMessage();
    // the refusal (not the caller's timeout) is the answer: the SMTP failure came back in time
    const error: unknown = await callRpc(h.client.bus, notifierSendEmail, message, { timeoutMs: 10_000 }).catch((err: unknown) => err);

    expect(error).toMatchObject({ name: 'RpcFailedError', code: 'smtp_failed', subject: notifierSendEmail.subject });

    const row = await h.notifier.prisma.emailLog.findUnique({ where: { messageId: message.messageId } });
    expect(row).toMatchObject({ status: 'failed', attempts: 1, sentAt: null, recipient: message.to });
    expect(row?.lastError).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
  });

  it('counts every attempt', async () => {
    const message = emailMessage();
    for (let i = 0; i < 2; i += 1) {
      await expect(callRpc(h.client.bus, notifierSendEmail, message, { timeoutMs: 5000 })).rejects.toMatchObject({ code: 'smtp_failed' });
    }
    expect(await h.notifier.prisma.emailLog.findUnique({ where: { messageId: message.messageId } })).toMatchObject({ status: 'failed', attempts: 2 });
  });
});
