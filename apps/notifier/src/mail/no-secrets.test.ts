import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { callRpc } from '@pasar/bus';
import { notifierSendEmail, type EmailMessage } from '@pasar/contracts';
import { createLogger } from '@pasar/service-kit';
import { startHarness, type NotifierHarness } from '../../test/harness';

/** Everything the notifier logs, as text. */
class CapturedLog extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

const log = new CapturedLog();
let h: NotifierHarness;

beforeAll(async () => {
  h = await startHarness({}, { log: createLogger('notifier', 'trace', log) });
});
afterAll(async () => {
  await h?.close();
});

describe('the e-mail log and the service log hold no password', () => {
  test('an invite with a temporary password and sign-in credentials are delivered, and logged without the password', async () => {
    const temporaryPassword = `Tmp-${randomUUID()}`;
    const password = `Pw-${randomUUID()}`;
    const messages: EmailMessage[] = [
      {
        messageId: randomUUID(),
        to: 'invited@example.test',
        template: 'invite',
        vars: {
          fullName: 'Tan Mei Ling',
          inviterName: 'Tan Ah Kow',
          groupName: 'Keluarga Tan',
          email: 'invited@example.test',
          temporaryPassword,
          setupUrl: 'http://127.0.0.1:8080/account/setup',
        },
      },
      {
        messageId: randomUUID(),
        to: 'vendor@example.test',
        template: 'credentials',
        vars: { fullName: 'Kedai Batik', email: 'vendor@example.test', password, signInUrl: 'http://127.0.0.1:8080/sign-in' },
      },
    ];
    for (const message of messages) await callRpc(h.client.bus, notifierSendEmail, message, { timeoutMs: 10_000 });

    // the recipients got their passwords
    const raw = h.catcher.messages.map((m) => m.raw).join('\n');
    expect(raw).toContain(temporaryPassword);
    expect(raw).toContain(password);

    // the e-mail log records both, without the passwords
    const rows = await h.notifier.prisma.emailLog.findMany({ where: { messageId: { in: messages.map((m) => m.messageId) } } });
    expect(rows.map((r) => r.status)).toEqual(['sent', 'sent']);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(temporaryPassword);
    expect(stored).not.toContain(password);

    // the service log tells the sends, without the passwords
    expect(log.text).toContain('e-mail sent');
    expect(log.text).not.toContain(temporaryPassword);
    expect(log.text).not.toContain(password);
  });
});
