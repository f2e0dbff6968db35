import { randomUUID } from 'node:crypto';
import { carriesPassword, type EmailMessage } from './email';
import { notifierSendEmail } from './rpc';
import { notifyEmailRequested } from './events';

const invite = (temporaryPassword: string | null): EmailMessage => ({
  messageId: randomUUID(),
  to: 'member@example.test',
  template: 'invite',
  vars: { fullName: 'Mei', inviterName: 'Tan', groupName: 'Keluarga Tan', email: 'member@example.test', temporaryPassword, setupUrl: 'https://pasar.example/account/setup' },
});
const credentials: EmailMessage = {
  messageId: randomUUID(),
  to: 'vendor@example.test',
  template: 'credentials',
  vars: { fullName: 'Kedai', email: 'vendor@example.test', password: 'Xk3-9fPq-2LmZ', signInUrl: 'https://pasar.example/sign-in' },
};
const confirmation: EmailMessage = { messageId: randomUUID(), to: 'buyer@example.test', template: 'order_confirmation', vars: { fullName: 'Siti', shortId: 'PSR-1', total: '10.00' } };

describe('e-mails with passwords never travel as events', () => {
  test('carriesPassword: sign-in details and invites with a temporary password', () => {
    expect([credentials, invite('Tmp-123'), invite(null), confirmation].map(carriesPassword)).toEqual([true, true, false, false]);
  });

  test('notify.email.requested refuses them (so no outbox row, stream or dead letter can hold one); the rpc takes them', () => {
    expect(notifyEmailRequested.data.safeParse(credentials).success).toBe(false);
    const refused = notifyEmailRequested.data.safeParse(invite('Tmp-123'));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0].message).toMatch(/rpc\.notifier\.send_email/);
    expect(notifyEmailRequested.data.safeParse(invite(null)).success).toBe(true);
    expect(notifyEmailRequested.data.safeParse(confirmation).success).toBe(true);
    expect(notifierSendEmail.request.safeParse(credentials).success).toBe(true);
    expect(notifierSendEmail.request.safeParse(invite('Tmp-123')).success).toBe(true);
  });
});
