/** Signs up a fresh customer through the gateway; returns the session cookie and the user. */
export async function signUpCustomer(
  gatewayUrl: string,
  label: string,
): Promise<{ cookie: string; user: { id: string; email: string; role: 'customer' }; email: string; password: string }> {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const email = `${label}-${suffix}@bench.pasar.test`;
  const password = `bench-${suffix}-password`;
  const response = await fetch(`${gatewayUrl}/api/v1/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, fullName: `Bench ${label}` }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`sign-up answered ${response.status}: ${text}`);
  const body = JSON.parse(text) as { user: { id: string; email: string; role: 'customer' } };
  return { cookie: cookieOf(response), user: body.user, email, password };
}

/** The `name=value` pairs of a response's set-cookie headers, as a cookie request header. */
export function cookieOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

/** A JSON request that must answer `expected`. */
export async function call(url: string, init: { method: string; cookie?: string; body?: unknown }, expected: number): Promise<{ response: Response; text: string }> {
  const headers: Record<string, string> = {};
  if (init.cookie) headers.cookie = init.cookie;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method: init.method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${init.method} ${url} answered ${response.status}: ${text}`);
  return { response, text };
}
