/**
 * The seed's door to the running stack: a signed-in browser session on the gateway's API, sign-in
 * and sign-up, a user made through identity's rpc, and the status check every seed step uses.
 * Shared by the demo seed (`seed.ts`), the B2B demo seed (`seed-b2b.ts`), the e2e tests and the benchmarks.
 */
import { callRpc, type Bus } from '@pasar/bus';
import { identityCreateUser } from '@pasar/contracts';

/** A signed-in browser: its cookie and a JSON call on the gateway's API (`path` after /api/v1). */
export interface Session {
  cookie: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer>;
}

export interface ApiAnswer {
  status: number;
  json: unknown;
  headers: Headers;
}

function sessionWith(gatewayUrl: string, cookie: string): Session {
  return {
    cookie,
    async call(method, path, body, headers = {}) {
      const r = await fetch(`${gatewayUrl}/api/v1${path}`, {
        method,
        headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      return { status: r.status, json: text && /json/.test(r.headers.get('content-type') ?? '') ? (JSON.parse(text) as unknown) : text || null, headers: r.headers };
    },
  };
}

const cookieOf = (response: Response) => response.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');

async function authenticate(gatewayUrl: string, action: 'sign-in' | 'sign-up', body: Record<string, string>, ok: number): Promise<{ session: Session; userId: string }> {
  const res = await fetch(`${gatewayUrl}/api/v1/auth/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== ok) throw new Error(`seed: ${action} of ${body.email} answered ${res.status}: ${text.slice(0, 300)}`);
  const { user } = JSON.parse(text) as { user: { id: string } };
  return { session: sessionWith(gatewayUrl, cookieOf(res)), userId: user.id };
}

export async function signIn(gatewayUrl: string, email: string, password: string): Promise<Session> {
  return (await authenticate(gatewayUrl, 'sign-in', { email, password }, 200)).session;
}

/** A new customer through the gateway's sign-up (one password hash, no sign-in rate limit), signed in. */
export function signUp(gatewayUrl: string, customer: { email: string; password: string; fullName: string }): Promise<{ session: Session; userId: string }> {
  return authenticate(gatewayUrl, 'sign-up', customer, 201);
}

export function expectStatus(what: string, got: { status: number; json: unknown }, ...ok: number[]): void {
  if (!ok.includes(got.status)) throw new Error(`seed: ${what} answered ${got.status}: ${JSON.stringify(got.json)}`);
}

/** A user created through identity's rpc (no e-mail, no password change asked); its id. */
export async function createUser(bus: Bus, email: string, fullName: string, role: 'vendor' | 'customer', password: string): Promise<string> {
  const { user } = await callRpc(bus, identityCreateUser, { email, fullName, role, password, mustChangePassword: false }, { timeoutMs: 10000 });
  return user.id;
}
