/**
 * Black-box fuzzing through the gateway, driven only by the OpenAPI document it serves
 * (`GET /api/v1/openapi.json`): every operation gets wrong types, missing fields, huge strings and
 * numbers, NUL characters, bad path parameters (not a uuid, bad percent-encoding), bad query
 * values, bad JSON and wrong content types, as an anonymous caller on public operations and as
 * a signed-in customer, vendor or admin on the others (whichever role the gateway lets through).
 * No answer may be >= 500. Deterministic (seeded) and bounded (a few thousand requests).
 */
import { randomUUID } from 'node:crypto';
import { addAddress, liveProductBody, openStore } from '@pasar/stack';
import { seededRandom, type TestBus } from '@pasar/testkit';
import { asSession } from './support/commerce';
import { connectStackBus } from './support/bus';
import {
  HEADER_MUTATIONS,
  IdPool,
  PATH_PARAM_MUTATIONS,
  QUERY_MUTATIONS,
  SchemaSampler,
  bodyMutations,
  fieldMutations,
  fieldsOf,
  operationsOf,
  withField,
  type OpenApiDocument,
  type Operation,
} from './support/fuzz';
import { ApiClient, show } from './support/http';
import { addressBody, newCustomer } from './support/identity';
import { API, useE2eStack, withLogs } from './support/stack';

const SEED = 20261124;
/** At most this many field variants per operation (chosen by the seeded generator when there are more). */
const MAX_FIELD_VARIANTS_PER_OPERATION = 120;

type Role = 'customer' | 'vendor' | 'admin';
const ROLES: Role[] = ['customer', 'vendor', 'admin'];

interface Attempt {
  operation: string;
  variant: string;
  url: string;
  status: number;
  excerpt: string;
}

const env = useE2eStack();
let testBus: TestBus | undefined;

afterAll(async () => {
  await testBus?.bus.close();
});

/** A signed-in client per role that signs in again (or, for a customer, signs up anew) when its session ended. */
class Sessions {
  private readonly clients = new Map<Role, ApiClient>();
  private readonly credentials = new Map<Role, { email: string; password: string }>();

  constructor(private readonly gatewayUrl: string) {}

  async add(role: Role, credentials: { email: string; password: string }): Promise<void> {
    this.credentials.set(role, credentials);
    this.clients.set(role, await this.signIn(credentials));
  }

  cookie(role: Role): string {
    return this.clients.get(role)?.jar.header() ?? '';
  }

  /** Keeps the role signed in: an operation may have signed it out or changed what it needs. */
  async ensure(role: Role): Promise<void> {
    const client = this.clients.get(role);
    if (client && (await client.get(`${API}/auth/session`)).status === 200) return;
    const credentials = this.credentials.get(role);
    if (!credentials) throw new Error(`no ${role} credentials`);
    try {
      this.clients.set(role, await this.signIn(credentials));
    } catch (err) {
      if (role !== 'customer') throw err;
      // a customer locked out by the fuzzing itself (wrong passwords): a fresh one takes its place
      await this.add('customer', await signUpCustomer(this.gatewayUrl));
    }
  }

  private async signIn(credentials: { email: string; password: string }): Promise<ApiClient> {
    const client = new ApiClient(this.gatewayUrl);
    const response = await client.post(`${API}/auth/sign-in`, credentials);
    if (response.status !== 200) throw new Error(`sign-in of ${credentials.email}: ${show(response)}`);
    return client;
  }
}

async function signUpCustomer(gatewayUrl: string): Promise<{ email: string; password: string; addressId: string }> {
  const customer = newCustomer('fuzz');
  const client = new ApiClient(gatewayUrl);
  const signUp = await client.post(`${API}/auth/sign-up`, customer);
  if (signUp.status !== 201) throw new Error(`sign-up: ${show(signUp)}`);
  const addressId = await addAddress(asSession(client), addressBody('Home') as Parameters<typeof addAddress>[1]);
  return { ...customer, addressId };
}

describe('fuzzing every operation of the served OpenAPI document', () => {
  it(
    'answers no request with a status >= 500',
    withLogs(env, async () => {
      const e2e = env();
      const gatewayUrl = e2e.stack.gatewayUrl;
      testBus = await connectStackBus(e2e);

      // the cast: an anonymous caller, a customer with an address, a vendor with a store, the seeded admin
      const sessions = new Sessions(gatewayUrl);
      const customer = await signUpCustomer(gatewayUrl);
      await sessions.add('customer', customer);
      const vendor = { email: `fuzz-vendor-${randomUUID().slice(0, 8)}@e2e.pasar.test`, password: `pw-${randomUUID()}` };
      const store = await openStore(testBus.bus, gatewayUrl, {
        ...vendor,
        name: `Fuzz Store ${randomUUID().slice(0, 8)}`,
        products: [liveProductBody({ name: 'Fuzz Kopi', basePrice: '12.50', stock: 1000 })],
        flatRate: 5,
      });
      await sessions.add('vendor', vendor);
      await sessions.add('admin', e2e.stack.admin);

      const documentResponse = await fetch(`${gatewayUrl}${API}/openapi.json`);
      expect(documentResponse.status).toBe(200);
      const document = (await documentResponse.json()) as OpenApiDocument;
      const operations = operationsOf(document);
      expect(operations.length).toBeGreaterThan(50);

      const random = seededRandom(SEED);
      const ids = new IdPool();
      ids.add('addressId', customer.addressId);
      ids.add('storeId', store.storeId);
      ids.add('productId', store.productIds[0]);
      ids.add('shippingMethodId', store.shippingMethodId);
      const sampler = new SchemaSampler(document, random, ids);
      const attempts: Attempt[] = [];
      const failures: Attempt[] = [];
      const byClass: Record<string, number> = {};
      let requestCounter = 0;

      type Init = { contentType?: string; body?: string; headers?: Record<string, string> };
      async function send(operation: Operation, role: Role | null, variant: string, url: string, init: Init = {}): Promise<number> {
        requestCounter += 1;
        const headers: Record<string, string> = { accept: 'application/json' };
        if (role) headers.cookie = sessions.cookie(role);
        if (init.contentType) headers['content-type'] = init.contentType;
        if (operation.method === 'POST') headers['idempotency-key'] = `fuzz-${SEED}-${requestCounter}`;
        Object.assign(headers, init.headers);
        let status: number;
        let excerpt = '';
        try {
          const response = await fetch(`${gatewayUrl}${API}${url}`, { method: operation.method, headers, body: init.body, signal: AbortSignal.timeout(30_000) });
          status = response.status;
          const text = await response.text();
          excerpt = text.slice(0, 300);
          if (status < 300) {
            // what exists now: later requests pick these ids
            const location = response.headers.get('location');
            if (location) ids.add('id', location.split('/').pop() ?? '');
            if ((response.headers.get('content-type') ?? '').includes('json') && text) ids.harvest(JSON.parse(text) as unknown);
          }
        } catch (err) {
          status = 599; // no HTTP answer at all (connection dropped): as bad as a 5xx
          excerpt = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
        }
        const attempt = { operation: `${operation.method} ${operation.path}`, variant, url: url.slice(0, 200), status, excerpt };
        attempts.push(attempt);
        const statusClass = `${Math.floor(status / 100)}xx`;
        byClass[statusClass] = (byClass[statusClass] ?? 0) + 1;
        if (status >= 500) failures.push(attempt);
        return status;
      }

      const roleFor = new Map<string, Role | null>();
      for (const operation of operations) {
        const sampleParams = () =>
          Object.fromEntries(operation.pathParams.map((p) => [p.name, encodeURIComponent(String(sampler.sample(p.schema ?? { type: 'string' }, 0, p.name)))]));
        const urlOf = (params: Record<string, string>, query = '') =>
          operation.path.replace(/\{(\w+)\}/g, (_m, name: string) => params[name] ?? 'x') + (query ? `?${query}` : '');
        const sampleQuery = () =>
          operation.queryParams
            .map((p) => [p.name, sampler.sample(p.schema ?? { type: 'string' }, 0, p.name)] as const)
            .filter(([, value]) => value !== null && value !== undefined)
            .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
            .join('&');
        const json = (value: unknown) => ({ contentType: 'application/json', body: JSON.stringify(value) });
        const validBody = () => (operation.body ? sampler.sample(operation.body) : undefined);
        const withBody = (value: unknown) => (value === undefined ? {} : json(value));

        // which caller: anonymous on public operations, else the first role the gateway lets through
        let role: Role | null = null;
        if (!operation.isPublic) {
          role = 'customer';
          for (const candidate of ROLES) {
            await sessions.ensure(candidate);
            const status = await send(operation, candidate, 'role probe', urlOf(sampleParams(), sampleQuery()), withBody(validBody()));
            if (status !== 401 && status !== 403) {
              role = candidate;
              break;
            }
          }
          await sessions.ensure(role);
        }
        roleFor.set(`${operation.method} ${operation.path}`, role);

        // plausible requests (required fields only, then a fuller one), then every field of the fuller body replaced in turn
        sampler.optionalShare = 0;
        await send(operation, role, 'plausible (required fields)', urlOf(sampleParams(), sampleQuery()), withBody(validBody()));
        sampler.optionalShare = 0.7;
        const sample = validBody();
        await send(operation, role, 'plausible', urlOf(sampleParams(), sampleQuery()), withBody(sample));
        if (sample !== undefined && sample !== null && typeof sample === 'object') {
          const variants = fieldsOf(sample).flatMap((field) =>
            fieldMutations(field.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], sample)).map((mutation) => ({ field, mutation })),
          );
          while (variants.length > MAX_FIELD_VARIANTS_PER_OPERATION) variants.splice(Math.floor(random() * variants.length), 1);
          for (const { field, mutation } of variants) {
            await send(operation, role, `${field.join('.')}: ${mutation.name}`, urlOf(sampleParams(), sampleQuery()), json(withField(sample, field, mutation.value)));
          }
        }
        // whole-body variants on every write (also the ones that take no body)
        if (operation.method !== 'GET') {
          for (const mutation of bodyMutations(sample ?? {})) {
            await send(operation, role, `body: ${mutation.name}`, urlOf(sampleParams(), sampleQuery()), { contentType: mutation.contentType, body: mutation.text });
          }
        }
        // bad path parameters, one at a time
        for (const param of operation.pathParams) {
          for (const mutation of PATH_PARAM_MUTATIONS) {
            await send(operation, role, `path ${param.name}: ${mutation.name}`, urlOf({ ...sampleParams(), [param.name]: mutation.raw }, sampleQuery()), withBody(validBody()));
          }
        }
        // bad query values, one parameter at a time
        for (const param of operation.queryParams) {
          for (const mutation of QUERY_MUTATIONS) {
            const query = `${encodeURIComponent(param.name)}=${mutation.raw.replace('{name}', encodeURIComponent(param.name))}`;
            await send(operation, role, `query ${param.name}: ${mutation.name}`, urlOf(sampleParams(), query));
          }
        }
        // odd headers (a bad session cookie replaces the caller's)
        for (const mutation of HEADER_MUTATIONS) {
          await send(operation, role, `header: ${mutation.name}`, urlOf(sampleParams(), sampleQuery()), { ...withBody(validBody()), headers: mutation.headers });
        }
        if (role) await sessions.ensure(role);
      }

      const figures = {
        seed: SEED,
        operations: operations.length,
        requestsSent: attempts.length,
        responsesByStatusClass: byClass,
        responsesAtOrAbove500: failures.length,
        operationsWithA2xx: new Set(attempts.filter((a) => a.status < 300).map((a) => a.operation)).size,
        operationsByCaller: Object.fromEntries([...ROLES, null].map((r) => [r ?? 'anonymous', [...roleFor.values()].filter((v) => v === r).length])),
      };
      process.stdout.write(`\nfuzz figures: ${JSON.stringify(figures)}\n`);
      if (process.env.FUZZ_VERBOSE === '1') {
        const accepted = new Set(attempts.filter((a) => a.status < 300).map((a) => a.operation));
        const never = [...new Set(attempts.map((a) => a.operation))].filter((o) => !accepted.has(o));
        process.stdout.write(`operations never answered 2xx: ${never.join(', ')}\n`);
      }
      // a huge string or number is a validation 400, never stored
      const hugeAccepted = attempts
        .filter((a) => a.status < 300 && !/^(query|path) /.test(a.variant) && /: (huge string|huge number)$/.test(a.variant))
        .map((a) => `${a.operation} [${a.variant}]`);
      const distinct = [...new Map(failures.map((f) => [`${f.operation} ${f.variant}`, f])).values()];
      expect(distinct.map((f) => `${f.status} ${f.operation} [${f.variant}] ${f.url} → ${f.excerpt}`)).toEqual([]);
      expect(hugeAccepted).toEqual([]);
      expect(attempts.length).toBeGreaterThan(operations.length * 5);
    }),
    900_000,
  );
});
