import { createServer, type Server, type Socket } from 'node:net';
import { startSmtpCatcher } from '@pasar/testkit';
import { randomUUID } from 'node:crypto';
import { createMailer, describeSmtpError, senderDomain, type MailerConfig } from './transport';

const config = (smtpUrl: string, timeoutMs = 1000): MailerConfig => ({
  SMTP_URL: smtpUrl,
  MAIL_FROM: 'Pasar <no-reply@mail.pasar.example>',
  SMTP_CONNECTION_TIMEOUT_MS: timeoutMs,
  SMTP_GREETING_TIMEOUT_MS: timeoutMs,
  SMTP_SOCKET_TIMEOUT_MS: timeoutMs,
});

const mail = (messageId = randomUUID()) => ({
  messageId,
  template: 'welcome',
  to: { name: 'Ali "the buyer" bin Abu', address: 'ali@example.test' },
  subject: 'Welcome to Pasar',
  text: 'Hi Ali,\n\nwelcome.\n',
  html: '<p>Hi Ali,</p><p>welcome.</p>',
});

/** A TCP server that accepts connections and never says a word (a hung SMTP server). */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('createMailer', () => {
  it('sends text and HTML from MAIL_FROM with the messageId as Message-ID and header', async () => {
    const catcher = await startSmtpCatcher();
    const mailer = createMailer(config(catcher.url));
    try {
      const message = mail();
      const sent = await mailer.send(message);
      expect(sent.accepted).toEqual(['ali@example.test']);
      expect(sent.response).toMatch(/^250/);

      const [caught] = catcher.messages;
      expect(caught.from).toBe('no-reply@mail.pasar.example');
      expect(caught.to).toEqual(['ali@example.test']);
      expect(caught.header('message-id')).toBe(`<${message.messageId}@mail.pasar.example>`);
      expect(caught.header('x-pasar-message-id')).toBe(message.messageId);
      expect(caught.header('x-pasar-template')).toBe('welcome');
      expect(caught.header('to')).toContain('<ali@example.test>');
      expect(caught.header('content-type')).toMatch(/multipart\/alternative/);
      expect(caught.raw).toContain('Content-Type: text/plain');
      expect(caught.raw).toContain('Content-Type: text/html');
    } finally {
      mailer.close();
      await catcher.close();
    }
  });

  it('gives up on a server that never greets after the greeting timeout', async () => {
    const server = await silentServer();
    const mailer = createMailer(config(`smtp://127.0.0.1:${server.port}`, 300));
    try {
      const started = Date.now();
      const error: unknown = await mailer.send(mail()).catch((err: unknown) => err);
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(Error);
      expect(describeSmtpError(error)).toMatch(/^ETIMEDOUT/);
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(15_000); // far below nodemailer's 30 s default: our 300 ms applied (loose: CI machines are loaded)
    } finally {
      mailer.close();
      await server.close();
    }
  });

  it('bounds one send by its timeouts', () => {
    expect(createMailer(config('smtp://127.0.0.1:1025', 1000)).maxSendMs).toBe(7000);
  });
});

describe('senderDomain', () => {
  it('takes the domain of the sender address', () => {
    expect(senderDomain('Pasar <no-reply@pasar.local>')).toBe('pasar.local');
    expect(senderDomain('bot@mail.example.com')).toBe('mail.example.com');
    expect(senderDomain('no address')).toBe('pasar.local');
  });
});

describe('describeSmtpError', () => {
  it('puts code and response code first, on one line', () => {
    const err = Object.assign(new Error('Message failed: 451 try again\nlater'), { code: 'EMESSAGE', responseCode: 451 });
    expect(describeSmtpError(err)).toBe('EMESSAGE 451: Message failed: 451 try again later');
    expect(describeSmtpError('boom')).toBe('boom');
  });
});
