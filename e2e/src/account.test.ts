/**
 * Black-box, through the gateway: a customer's account journey (sign-up with welcome e-mail,
 * sessions, address book), and the identity headers that only the gateway may sign.
 */
import { randomUUID } from 'node:crypto';
import { signFor } from '@pasar/testkit';
import { ApiClient, show, type Problem } from './support/http';
import { addressBody, newCustomer } from './support/identity';
import { API, useE2eStack, withLogs } from './support/stack';

interface SessionBody {
  user: { id: string; email: string; fullName: string; role: string; mustChangePassword: boolean };
}
interface Address {
  id: string;
  label: string;
  address_line_1: string;
  city: string;
  is_default: boolean;
}

const env = useE2eStack();

function expectProblem(response: { status: number; contentType: string; body: unknown; text: string }, status: number, code?: string) {
  expect({ status: response.status, text: response.text }).toEqual({ status, text: expect.any(String) });
  expect(response.contentType).toMatch(/^application\/problem\+json/);
  const problem = response.body as Problem;
  expect(problem.status).toBe(status);
  if (code) expect(problem.code).toBe(code);
}

describe('a customer through the gateway', () => {
  it(
    'signs up (welcome e-mail), signs out and in, manages addresses, and is locked out after sign-out',
    withLogs(
      env,
      async () => {
        const { smtp } = env();
        const browser = env().client();
        const customer = newCustomer('journey');

        // sign-up: 201 {user} + session cookie
        const signUp = await browser.post<SessionBody>(`${API}/auth/sign-up`, customer);
        expect(signUp.status).toBe(201);
        expect(signUp.body.user).toMatchObject({ email: customer.email, fullName: customer.fullName, role: 'customer' });
        expect(browser.jar.get('pasar.session_token')).toEqual(expect.any(String));
        const cookie = signUp.headers.getSetCookie().find((c) => c.startsWith('pasar.session_token='));
        expect(cookie).toMatch(/HttpOnly/i);
        expect(cookie).toMatch(/SameSite=Lax/i);

        // the welcome e-mail comes through NATS → notifier → SMTP
        const welcome = await smtp.waitFor((m) => m.to.includes(customer.email), 30_000);
        expect(welcome.header('x-pasar-message-id')).toEqual(expect.any(String));

        const session = await browser.get<SessionBody>(`${API}/auth/session`);
        expect(session.status).toBe(200);
        expect(session.body.user.id).toBe(signUp.body.user.id);

        // sign-out, then the session is gone
        expect((await browser.post(`${API}/auth/sign-out`)).status).toBe(204);
        expectProblem(await browser.get(`${API}/auth/session`), 401);

        // wrong password, then the right one
        expectProblem(await browser.post(`${API}/auth/sign-in`, { email: customer.email, password: 'not-the-password' }), 401);
        const signIn = await browser.post<SessionBody>(`${API}/auth/sign-in`, { email: customer.email, password: customer.password });
        expect(signIn.status).toBe(200);
        expect(signIn.body.user.email).toBe(customer.email);

        // address book: the first address becomes the default
        const list = async () => {
          const response = await browser.get<Address[]>(`${API}/account/addresses`);
          expect(response.status).toBe(200);
          return response.body;
        };
        expect(await list()).toEqual([]);
        const created = await browser.post(`${API}/account/addresses`, addressBody('Home'));
        expect(created.status).toBe(201);
        const afterCreate = await list();
        expect(afterCreate).toHaveLength(1);
        const home = afterCreate[0];
        expect(home).toMatchObject({ label: 'Home', is_default: true, city: 'Kuala Lumpur' });
        expect(created.headers.get('location')).toBe(`${API}/account/addresses/${home.id}`);

        // update
        const updated = await browser.put(`${API}/account/addresses/${home.id}`, addressBody('Home', { address_line_1: '99, Jalan Baru', city: 'Petaling Jaya' }));
        expect(updated.status).toBe(204);
        expect((await list()).find((a) => a.id === home.id)).toMatchObject({ address_line_1: '99, Jalan Baru', city: 'Petaling Jaya', is_default: true });

        // a second address, made the default
        expect((await browser.post(`${API}/account/addresses`, addressBody('Office'))).status).toBe(201);
        const office = (await list()).find((a) => a.label === 'Office');
        expect(office).toMatchObject({ is_default: false });
        expect((await browser.patch(`${API}/account/addresses/${office?.id}/default`)).status).toBe(204);
        const afterDefault = await list();
        expect(afterDefault.map((a) => [a.label, a.is_default]).sort()).toEqual([
          ['Home', false],
          ['Office', true],
        ]);

        // delete the first
        expect((await browser.delete(`${API}/account/addresses/${home.id}`)).status).toBe(204);
        expect((await list()).map((a) => a.label)).toEqual(['Office']);

        // another customer cannot see or touch it
        const other = env().client();
        expect((await other.post(`${API}/auth/sign-up`, newCustomer('other'))).status).toBe(201);
        expect((await other.get<Address[]>(`${API}/account/addresses`)).body).toEqual([]);
        expectProblem(await other.delete(`${API}/account/addresses/${office?.id}`), 404);

        // signed out: the address book answers 401
        expect((await browser.post(`${API}/auth/sign-out`)).status).toBe(204);
        expect(browser.jar.get('pasar.session_token')).toBeUndefined();
        const locked = await browser.get(`${API}/account/addresses`);
        expectProblem(locked, 401);
      },
    ),
    90_000,
  );
});

describe('identity headers only the gateway may sign', () => {
  const identity = () => ({ userId: randomUUID(), role: 'customer' as const, email: 'mallory@e2e.pasar.test' });

  it(
    'a service refuses headers signed with the wrong secret, and accepts the right one',
    withLogs(
      env,
      async () => {
        const checkout = new ApiClient(env().stack.services.checkout.url);
        const forged = await checkout.get(`${API}/account/addresses`, { headers: signFor('GET', `${API}/account/addresses`, identity(), 'not-the-identity-secret-at-all') });
        expectProblem(forged, 401, 'unauthenticated');

        const tampered = signFor('GET', `${API}/account/addresses`, identity(), env().stack.identitySecret);
        tampered['x-pasar-role'] = 'admin';
        expectProblem(await checkout.get(`${API}/account/addresses`, { headers: tampered }), 401, 'unauthenticated');

        expectProblem(await checkout.get(`${API}/account/addresses`), 401, 'unauthenticated');

        const genuine = await checkout.get(`${API}/account/addresses`, { headers: signFor('GET', `${API}/account/addresses`, identity(), env().stack.identitySecret) });
        expect(genuine.status).toBe(200);
        expect(genuine.body).toEqual([]);
      },
    ),
  );

  it(
    'the gateway strips x-pasar-* from the outside, even correctly signed ones',
    withLogs(
      env,
      async () => {
        const outsider = env().client();
        const headers = signFor('GET', `${API}/account/addresses`, identity(), env().stack.identitySecret);
        const response = await outsider.get(`${API}/account/addresses`, { headers });
        expectProblem(response, 401);
        expect(show(response)).not.toContain('mallory');
      },
    ),
  );
});
