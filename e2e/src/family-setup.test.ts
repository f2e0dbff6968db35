/**
 * Black-box, through the gateway (issue "Customer account", item 5): a family member invited with a
 * temporary password must change it → account setup → flag cleared, membership active, address
 * saved as the default, old password refused, the member's other sessions signed out.
 */
import { waitFor } from '@pasar/testkit';
import { newCustomer } from './support/identity';
import { API, useE2eStack, withLogs } from './support/stack';

const env = useE2eStack();

const homeAddress = {
  fullName: 'Nur Invited',
  phone: '+60 12-000 1111',
  addressLine1: '7 Jalan Ampang',
  addressLine2: null,
  city: 'Kuala Lumpur',
  postcode: '50450',
  state: 'Wilayah Persekutuan',
};

/** The temporary password from the invite e-mail (text part; quoted-printable soft breaks removed). */
function temporaryPasswordOf(raw: string): string {
  const match = /Temporary password: ([A-Za-z0-9_-]{16})/.exec(raw.replace(/=\r?\n/g, ''));
  if (!match) throw new Error(`no temporary password in the invite e-mail:\n${raw.slice(0, 2000)}`);
  return match[1];
}

test(
  'invite with a temporary password → must change it → setup → active member with a default address; old password and other sessions refused',
  withLogs(env, async () => {
    const { smtp, client } = env();
    const owner = client();
    const ownerLogin = newCustomer('owner');
    expect((await owner.post(`${API}/auth/sign-up`, ownerLogin)).status).toBe(201);
    const family = await owner.post(`${API}/family`, { name: 'The Rahmans' });
    expect(family.status).toBe(201);
    expect((await owner.put(`${API}/family/address`, homeAddress)).status).toBe(204);

    const invitedEmail = newCustomer('invited').email;
    const invite = await owner.post(`${API}/family/members`, { email: invitedEmail, fullName: 'Nur Invited' });
    // the same answer whoever owns the e-mail (an invite does not tell accounts apart)
    expect(invite.status).toBe(202);
    expect(invite.body).toMatchObject({ status: 'pending' });
    const mail = await smtp.waitFor((m) => m.to.includes(invitedEmail) && /invited you/.test(m.subject), 30_000);
    const temporary = temporaryPasswordOf(mail.raw);

    const member = client();
    const signIn = await member.post(`${API}/auth/sign-in`, { email: invitedEmail, password: temporary });
    expect(signIn.status).toBe(200);
    expect((signIn.body as { user: { mustChangePassword: boolean } }).user.mustChangePassword).toBe(true);
    expect((await member.get(`${API}/account/must-change-password`)).body).toEqual({ mustChangePassword: true });
    const pending = await member.get(`${API}/family/cart`);
    expect(pending.status).toBe(403);

    const otherDevice = client();
    expect((await otherDevice.post(`${API}/auth/sign-in`, { email: invitedEmail, password: temporary })).status).toBe(200);

    const wrong = await member.post(`${API}/account/setup`, {
      currentPassword: 'not-the-password',
      newPassword: 'my-own-password-2026',
      fullName: 'Nur Invited',
      phone: '+60 12-000 1111',
      address: homeAddress,
    });
    expect(wrong.status).toBe(400);

    const setup = await member.post(`${API}/account/setup`, {
      currentPassword: temporary,
      newPassword: 'my-own-password-2026',
      fullName: 'Nur Invited',
      phone: '+60 12-000 1111',
      address: homeAddress,
      billing: { tin: 'ig 123 456 789' },
    });
    expect(setup.status).toBe(204);

    expect((await member.get(`${API}/account/must-change-password`)).body).toEqual({ mustChangePassword: false });
    expect((await otherDevice.get(`${API}/auth/session`)).status).toBe(401);
    expect((await client().post(`${API}/auth/sign-in`, { email: invitedEmail, password: temporary })).status).toBe(401);
    expect((await client().post(`${API}/auth/sign-in`, { email: invitedEmail, password: 'my-own-password-2026' })).status).toBe(200);

    // checkout applies identity.account.setup_completed: membership active, address saved as the default, TIN saved
    const cart = await waitFor(async () => {
      const r = await member.get(`${API}/family/cart`);
      return r.status === 200 ? r : null;
    }, 20_000);
    expect(cart.body).toMatchObject({ items: [] });
    const addresses = await waitFor(async () => {
      const r = await member.get<{ address_line_1: string; is_default: boolean }[]>(`${API}/account/addresses`);
      return r.status === 200 && r.body.length > 0 ? r.body : null;
    }, 20_000);
    expect(addresses).toEqual([expect.objectContaining({ address_line_1: '7 Jalan Ampang', is_default: true })]);
    const tin = await member.get(`${API}/account/tin`);
    expect({ status: tin.status, body: tin.body }).toEqual({ status: 200, body: { tin: 'IG123456789' } });
    const view = await owner.get<{ members: { email: string; status: string; mustChangePassword: boolean }[] }>(`${API}/family`);
    expect(view.body.members.find((m) => m.email === invitedEmail)).toMatchObject({ status: 'active', mustChangePassword: false });
  }),
  120_000,
);
