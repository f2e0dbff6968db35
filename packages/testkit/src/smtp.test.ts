import { connect } from 'node:net';
import nodemailer from 'nodemailer';
import { startSmtpCatcher } from './smtp';

describe('startSmtpCatcher', () => {
  it('keeps serving after a client resets its connection mid-session', async () => {
    const catcher = await startSmtpCatcher();
    try {
      // a client that vanishes with a TCP reset inside a mail transaction (a SIGKILLed notifier)
      await new Promise<void>((resolve, reject) => {
        const socket = connect(catcher.port, '127.0.0.1');
        const replies: string[] = [];
        socket.once('error', reject);
        socket.on('data', (chunk: Buffer) => {
          replies.push(...chunk.toString('utf8').split('\r\n').filter(Boolean));
          const last = replies[replies.length - 1];
          if (last.startsWith('220 ')) socket.write('HELO gone.example\r\n');
          else if (last.startsWith('250 ') && !replies.some((r) => r.includes('Accepted'))) socket.write('MAIL FROM:<a@example.test>\r\n');
          else if (last.includes('Accepted')) {
            socket.resetAndDestroy();
            resolve();
          }
        });
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: catcher.port, secure: false, ignoreTLS: true });
      await transport.sendMail({ from: 'a@example.test', to: 'b@example.test', subject: 'still here', text: 'hi' });
      const mail = await catcher.waitFor((m) => m.subject === 'still here', 5000);
      expect(mail.to).toEqual(['b@example.test']);
    } finally {
      await catcher.close();
    }
  });
});
