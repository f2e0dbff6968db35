/**
 * The marketplace pieces an order-flow test needs, built through the services' own doors (rpc
 * and the gateway's API) with the launcher's seed steps: a vendor with a store, a live product
 * and an active flat shipping method; customers with an address; submits and polls.
 */
import { randomUUID } from 'node:crypto';
import { addAddress, liveProductBody, openStore as openStoreWithSeed, type Session } from '@pasar/stack';
import { waitFor, type TestBus } from '@pasar/testkit';
import { show, type ApiClient, type ApiResponse, type Problem } from './http';
import { addressBody, newCustomer } from './identity';
import { API, type E2eStack } from './stack';

/** The seed steps' view of an e2e client (same cookie jar). */
export function asSession(client: ApiClient): Session {
  return {
    get cookie() {
      return client.jar.header() ?? '';
    },
    async call(method, path, body, headers) {
      const response = await client.request(method, `${API}${path}`, { body, headers });
      return { status: response.status, json: response.body ?? (response.text || null), headers: response.headers };
    },
  };
}

export interface E2eStore {
  vendor: ApiClient;
  storeId: string;
  productId: string;
  shippingMethodId: string;
}

/**
 * A vendor with a store, one live product and one active flat carrier_a method (the launcher's
 * `openStore`), and the vendor signed in on an e2e client of its own.
 */
export async function openStore(e2e: E2eStack, testBus: TestBus, product: { basePrice: string; stock: number; weightKg?: string }, flatRate: number): Promise<E2eStore> {
  const owner = newCustomer('vendor');
  const suffix = randomUUID().slice(0, 8);
  const opened = await openStoreWithSeed(testBus.bus, e2e.stack.gatewayUrl, {
    email: owner.email,
    password: owner.password,
    name: `E2E Store ${suffix}`,
    products: [liveProductBody({ name: `Kopi Tenom ${suffix}`, ...product })],
    flatRate,
  });
  const vendor = e2e.client();
  const signIn = await vendor.post(`${API}/auth/sign-in`, { email: owner.email, password: owner.password });
  if (signIn.status !== 200) throw new Error(`vendor sign-in: ${show(signIn)}`);
  return { vendor, storeId: opened.storeId, productId: opened.productIds[0], shippingMethodId: opened.shippingMethodId };
}

export interface Shopper {
  client: ApiClient;
  userId: string;
  addressId: string;
}

/** A customer signed up through the gateway, with one address (and the login, to sign in again). */
export async function newShopper(e2e: E2eStack, label: string): Promise<Shopper & { email: string; password: string }> {
  const client = e2e.client();
  const customer = newCustomer(label);
  const signUp = await client.post<{ user: { id: string } }>(`${API}/auth/sign-up`, customer);
  if (signUp.status !== 201) throw new Error(`sign-up: ${show(signUp)}`);
  const addressId = await addAddress(asSession(client), addressBody('Home') as Parameters<typeof addAddress>[1]);
  return { client, userId: signUp.body.user.id, addressId, email: customer.email, password: customer.password };
}

export interface PlacedOrder {
  orderId: string;
  shortId: string;
  status: string;
  subtotal: string;
  shippingTotal: string;
  total: string;
}

/**
 * POST /checkout/submit with an Idempotency-Key. The shipping method reaches checkout by event;
 * while it has not, the submit answers 400 `shipping_method_unavailable` and writes nothing, so
 * that answer is retried (with the same key) until it is another.
 */
export function submit(client: ApiClient, body: Record<string, unknown>, idempotencyKey: string): Promise<ApiResponse<PlacedOrder>> {
  return waitFor(
    async () => {
      const response = await client.post<PlacedOrder>(`${API}/checkout/submit`, body, { headers: { 'idempotency-key': idempotencyKey } });
      const waiting = response.status === 400 && (response.body as unknown as Problem).code === 'shipping_method_unavailable';
      return waiting ? undefined : response;
    },
    30_000,
    100,
  );
}

/** Polls GET `path` until its JSON body satisfies `done`; returns that body. */
export async function pollUntil<T>(client: ApiClient, path: string, done: (body: T) => boolean, timeoutMs = 20_000): Promise<T> {
  let last = 'no answer yet';
  try {
    return await waitFor(
      async () => {
        const response = await client.get<T>(`${API}${path}`);
        last = show(response);
        return response.status === 200 && done(response.body) ? response.body : undefined;
      },
      timeoutMs,
      50,
    );
  } catch (err) {
    throw new Error(`GET ${path} never satisfied the condition; last answer: ${last}`, { cause: err });
  }
}
