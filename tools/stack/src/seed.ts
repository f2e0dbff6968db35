/**
 * Demo data for `npm start` (DESIGN §7): a vendor with a store, categories, live products with
 * stock, weights and dimensions, an active shipping method, a platform voucher, a KOL code and a
 * customer with an address. Everything goes through the services' own doors (rpc and the
 * gateway's API), so each service keeps owning its data. Idempotent: what exists is left alone.
 */
import { callRpc, type Bus } from '@pasar/bus';
import {
  identityCreateUser,
  vendorCreateStore,
  type AddressBody,
  type CreateKolCodeBody,
  type CreateVoucherBody,
  type VendorProductBody,
} from '@pasar/contracts';

export const DEMO_VENDOR_EMAIL = 'vendor@pasar.local';
export const DEMO_CUSTOMER_EMAIL = 'customer@pasar.local';
/** A fixed application id makes the store creation idempotent across runs. */
const DEMO_APPLICATION_ID = '5e0d0000-0000-4000-8000-000000000001';

export interface DemoSeedOptions {
  bus: Bus;
  gatewayUrl: string;
  admin: { email: string; password: string };
  password: string;
  /** How long to wait for the store to reach checkout (event replication). */
  timeoutMs?: number;
}

export interface DemoSeedResult {
  vendor: string;
  customer: string;
  storeId: string;
  productsCreated: number;
}

interface Session {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
}

async function signIn(gatewayUrl: string, email: string, password: string): Promise<Session> {
  const res = await fetch(`${gatewayUrl}/api/v1/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`demo seed: sign-in of ${email} answered ${res.status}`);
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return {
    async call(method, path, body) {
      const r = await fetch(`${gatewayUrl}/api/v1${path}`, {
        method,
        headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      return { status: r.status, json: text ? (JSON.parse(text) as unknown) : null };
    },
  };
}

function expectStatus(what: string, got: { status: number; json: unknown }, ...ok: number[]): void {
  if (!ok.includes(got.status)) throw new Error(`demo seed: ${what} answered ${got.status}: ${JSON.stringify(got.json)}`);
}

const CATEGORIES = ['Books', 'Kitchen', 'Batik & Textiles', 'Coffee & Tea'];

function demoProducts(categoryIds: Record<string, string>): VendorProductBody[] {
  const product = (name: string, category: string, basePrice: string, stock: number, weightKg: string, dims: [string, string, string], description: string): VendorProductBody => ({
    name,
    description,
    categoryId: categoryIds[category],
    basePrice,
    status: 'live',
    imagePath: null,
    weightKg,
    lengthCm: dims[0],
    widthCm: dims[1],
    heightCm: dims[2],
    stock,
    variants: [],
  });
  return [
    product('Kopi Tenom 500 g', 'Coffee & Tea', '28.90', 120, '0.550', ['20', '12', '6'], 'Sabah robusta, medium roast.'),
    product('BOH Cameron Highlands Tea, 100 bags', 'Coffee & Tea', '15.50', 200, '0.250', ['18', '9', '8'], 'Classic black tea.'),
    product('Cast Iron Wok 32 cm', 'Kitchen', '89.00', 40, '3.200', ['45', '33', '10'], 'Pre-seasoned.'),
    product('Malaysian Cookbook', 'Books', '59.90', 60, '0.900', ['26', '20', '3'], 'Two hundred home recipes.'),
    product('Sejarah Melayu (paperback)', 'Books', '35.00', 80, '0.450', ['20', '13', '3'], 'The Malay Annals.'),
    {
      ...product('Hand-drawn Batik Sarong', 'Batik & Textiles', '120.00', 0, '0.400', ['30', '25', '3'], 'Cotton, hand-drawn in Kelantan.'),
      variants: [
        { name: 'Indigo', priceOverride: null, stock: 15 },
        { name: 'Sogan brown', priceOverride: '135.00', stock: 10 },
      ],
    },
  ];
}

async function createDemoUser(bus: Bus, email: string, fullName: string, role: 'vendor' | 'customer', password: string): Promise<string> {
  const { user } = await callRpc(bus, identityCreateUser, { email, fullName, role, password, mustChangePassword: false }, { timeoutMs: 10000 });
  return user.id;
}

async function waitUntil(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`demo seed: ${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function seedDemoData(options: DemoSeedOptions): Promise<DemoSeedResult> {
  const { bus, gatewayUrl, password } = options;
  const timeoutMs = options.timeoutMs ?? 30000;
  const vendorUserId = await createDemoUser(bus, DEMO_VENDOR_EMAIL, 'Kedai Demo Owner', 'vendor', password);
  await createDemoUser(bus, DEMO_CUSTOMER_EMAIL, 'Demo Customer', 'customer', password);
  const { storeId } = await callRpc(
    bus,
    vendorCreateStore,
    {
      applicationId: DEMO_APPLICATION_ID,
      ownerUserId: vendorUserId,
      name: 'Kedai Demo',
      description: 'The demo store of a fresh Pasar.',
      tin: 'C1234567890',
      msicCode: '47910',
      sstRegNo: null,
      bankName: 'Maybank',
      bankAccountNumber: '5140 1234 5678',
      bankAccountName: 'Kedai Demo Sdn Bhd',
      consent: { accepted: true, acceptedAt: new Date().toISOString(), tosVersion: '2026-01' },
    },
    { timeoutMs: 10000 },
  );

  const admin = await signIn(gatewayUrl, options.admin.email, options.admin.password);
  const vendor = await signIn(gatewayUrl, DEMO_VENDOR_EMAIL, password);
  const customer = await signIn(gatewayUrl, DEMO_CUSTOMER_EMAIL, password);

  // the store reaches checkout by event (vendor.store.upserted)
  await waitUntil('the demo store reaching checkout', timeoutMs, async () => (await vendor.call('GET', '/vendor/products')).status === 200);

  for (const name of CATEGORIES) expectStatus(`category ${name}`, await admin.call('POST', '/admin/categories', { name }), 201, 409);
  const categories = await admin.call('GET', '/admin/categories');
  const categoryIds = Object.fromEntries((categories.json as { id: string; name: string }[]).map((c) => [c.name, c.id]));

  let productsCreated = 0;
  const existing = (await vendor.call('GET', '/vendor/products')).json as { total: number };
  if (existing.total === 0) {
    for (const body of demoProducts(categoryIds)) {
      expectStatus(`product ${body.name}`, await vendor.call('POST', '/vendor/products', body), 201);
      productsCreated += 1;
    }
  }

  const methods = (await vendor.call('GET', '/vendor/shipping-methods')).json as { id: string; is_active: boolean }[];
  if (methods.length === 0) {
    const body = { name: 'Standard delivery', provider: 'carrier_a', type: 'flat', rate_config: { rate: 8 }, estimated_days_min: 2, estimated_days_max: 5 };
    expectStatus('shipping method', await vendor.call('POST', '/vendor/shipping-methods', body), 201);
  }
  for (const method of (await vendor.call('GET', '/vendor/shipping-methods')).json as { id: string; is_active: boolean }[]) {
    if (!method.is_active) expectStatus('shipping method activation', await vendor.call('POST', `/vendor/shipping-methods/${method.id}/activate`, { active: true }), 200);
  }

  const voucher: CreateVoucherBody = { code: 'WELCOME10', tier: 'platform', discountType: 'percentage', discountValue: '10', minOrderAmount: '20.00', maxUses: 1000, isActive: true };
  expectStatus('voucher', await admin.call('POST', '/admin/vouchers', voucher), 201, 409);
  const kol: CreateKolCodeBody = { code: 'KOL-BOOKS', discountType: 'percentage', discountValue: '5', categoryId: categoryIds.Books, isActive: true };
  expectStatus('KOL code', await admin.call('POST', '/admin/kol-codes', kol), 201, 409);

  const addresses = (await customer.call('GET', '/account/addresses')).json as unknown[];
  if (addresses.length === 0) {
    const address: AddressBody = {
      label: 'Home',
      full_name: 'Demo Customer',
      phone: '+60 12-345 6789',
      address_line_1: '12 Jalan Telawi 3',
      address_line_2: 'Bangsar Baru',
      city: 'Kuala Lumpur',
      postcode: '59100',
      state: 'Wilayah Persekutuan',
      is_default: true,
    };
    expectStatus('customer address', await customer.call('POST', '/account/addresses', address), 201);
  }
  return { vendor: DEMO_VENDOR_EMAIL, customer: DEMO_CUSTOMER_EMAIL, storeId, productsCreated };
}
