/**
 * Demo data for `npm start` (DESIGN §7): a vendor with a store, categories, live products with
 * stock, weights and dimensions, an active shipping method, a platform voucher, a KOL code and a
 * customer with an address. Everything goes through the services' own doors (rpc and the
 * gateway's API), so each service keeps owning its data. Idempotent: what exists is left alone.
 * The steps are exported for the e2e tests and the benchmarks, which build their own stores.
 */
import { randomUUID } from 'node:crypto';
import { callRpc, type Bus } from '@pasar/bus';
import {
  vendorCreateStore,
  type AddressBody,
  type CreateKolCodeBody,
  type CreateVoucherBody,
  type VendorProductBody,
} from '@pasar/contracts';
import { seedB2bDemo } from './seed-b2b';
import { createUser, expectStatus, signIn, type ApiAnswer, type Session } from './seed-client';

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

/** A live product body without variants; weight and dimensions set (carrier methods need them). */
export function liveProductBody(fields: {
  name: string;
  basePrice: string;
  stock: number;
  categoryId?: string;
  weightKg?: string;
  dims?: [string, string, string];
  description?: string;
}): VendorProductBody {
  const [lengthCm, widthCm, heightCm] = fields.dims ?? ['20', '15', '10'];
  return {
    name: fields.name,
    description: fields.description ?? '',
    categoryId: fields.categoryId,
    basePrice: fields.basePrice,
    status: 'live',
    imagePath: null,
    weightKg: fields.weightKg ?? '0.500',
    lengthCm,
    widthCm,
    heightCm,
    stock: fields.stock,
    variants: [],
  };
}

const CATEGORIES = ['Books', 'Kitchen', 'Batik & Textiles', 'Coffee & Tea'];

function demoProducts(categoryIds: Record<string, string>): VendorProductBody[] {
  const product = (name: string, category: string, basePrice: string, stock: number, weightKg: string, dims: [string, string, string], description: string) =>
    liveProductBody({ name, categoryId: categoryIds[category], basePrice, stock, weightKg, dims, description });
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

export async function waitUntil(what: string, timeoutMs: number, check: () => Promise<boolean>, intervalMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`seed: ${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The store of `ownerUserId` through rpc.vendor.create_store (idempotent by application id); its id. */
export async function createStore(bus: Bus, store: { applicationId: string; ownerUserId: string; name: string; description?: string }): Promise<string> {
  const { storeId } = await callRpc(
    bus,
    vendorCreateStore,
    {
      applicationId: store.applicationId,
      ownerUserId: store.ownerUserId,
      name: store.name,
      description: store.description ?? null,
      tin: 'C1234567890',
      msicCode: '47910',
      sstRegNo: null,
      bankName: 'Maybank',
      bankAccountNumber: '5140 1234 5678',
      bankAccountName: `${store.name} Sdn Bhd`,
      consent: { accepted: true, acceptedAt: new Date().toISOString(), tosVersion: '2026-01' },
    },
    { timeoutMs: 10000 },
  );
  return storeId;
}

/** The id of what a 201 created: the last segment of its Location. */
export function createdId(created: ApiAnswer): string {
  const location = created.headers.get('location') ?? '';
  const id = location.slice(location.lastIndexOf('/') + 1);
  if (!id) throw new Error('seed: a 201 answer without a Location');
  return id;
}

/** Waits until checkout knows the vendor's store (vendor.store.upserted): its catalog answers 200. */
export function waitForStoreInCheckout(vendor: Session, timeoutMs: number): Promise<void> {
  return waitUntil('the store reaching checkout', timeoutMs, async () => (await vendor.call('GET', '/vendor/products')).status === 200, 100);
}

/** Creates a product of the vendor's store; its id. */
export async function createProduct(vendor: Session, body: VendorProductBody): Promise<string> {
  const created = await vendor.call('POST', '/vendor/products', body);
  expectStatus(`product ${body.name}`, created, 201);
  return createdId(created);
}

/** Activates a shipping method; refuses to go on when the activation was blocked. */
export async function activateShippingMethod(vendor: Session, methodId: string): Promise<void> {
  const answer = await vendor.call('POST', `/vendor/shipping-methods/${methodId}/activate`, { active: true });
  expectStatus('shipping method activation', answer, 200);
  if (!(answer.json as { success: boolean }).success) throw new Error(`seed: shipping method activation refused: ${JSON.stringify(answer.json)}`);
}

/** A new flat-rate carrier_a method of the vendor's store, activated; its id. */
export async function addFlatShippingMethod(vendor: Session, method: { name: string; rate: number }): Promise<string> {
  const body = { name: method.name, provider: 'carrier_a', type: 'flat', rate_config: { rate: method.rate }, estimated_days_min: 2, estimated_days_max: 5 };
  const created = await vendor.call('POST', '/vendor/shipping-methods', body);
  expectStatus('shipping method', created, 201);
  const id = createdId(created);
  await activateShippingMethod(vendor, id);
  return id;
}

/** Adds an address to the customer's book; its id. */
export async function addAddress(customer: Session, address: AddressBody): Promise<string> {
  const created = await customer.call('POST', '/account/addresses', address);
  expectStatus('customer address', created, 201);
  return createdId(created);
}

export interface OpenedStore {
  vendor: Session;
  vendorUserId: string;
  storeId: string;
  /** The products' ids, in the order given. */
  productIds: string[];
  shippingMethodId: string;
}

/**
 * A vendor (identity rpc) with a store (rpc.vendor.create_store), signed in through the gateway;
 * once checkout knows the store, the given products and an active flat carrier_a method.
 * The method reaches checkout by event a moment later: a submit naming it answers 400
 * `shipping_method_unavailable` until then.
 */
export async function openStore(
  bus: Bus,
  gatewayUrl: string,
  store: { email: string; password: string; name: string; products: VendorProductBody[]; flatRate: number; timeoutMs?: number },
): Promise<OpenedStore> {
  const vendorUserId = await createUser(bus, store.email, `${store.name} Owner`, 'vendor', store.password);
  const storeId = await createStore(bus, { applicationId: randomUUID(), ownerUserId: vendorUserId, name: store.name });
  const vendor = await signIn(gatewayUrl, store.email, store.password);
  await waitForStoreInCheckout(vendor, store.timeoutMs ?? 30000);
  const productIds: string[] = [];
  for (const body of store.products) productIds.push(await createProduct(vendor, body));
  const shippingMethodId = await addFlatShippingMethod(vendor, { name: 'Flat delivery', rate: store.flatRate });
  return { vendor, vendorUserId, storeId, productIds, shippingMethodId };
}

export async function seedDemoData(options: DemoSeedOptions): Promise<DemoSeedResult> {
  const { bus, gatewayUrl, password } = options;
  const timeoutMs = options.timeoutMs ?? 30000;
  const vendorUserId = await createUser(bus, DEMO_VENDOR_EMAIL, 'Kedai Demo Owner', 'vendor', password);
  await createUser(bus, DEMO_CUSTOMER_EMAIL, 'Demo Customer', 'customer', password);
  const storeId = await createStore(bus, {
    applicationId: DEMO_APPLICATION_ID,
    ownerUserId: vendorUserId,
    name: 'Kedai Demo',
    description: 'The demo store of a fresh Pasar.',
  });

  const admin = await signIn(gatewayUrl, options.admin.email, options.admin.password);
  const vendor = await signIn(gatewayUrl, DEMO_VENDOR_EMAIL, password);
  const customer = await signIn(gatewayUrl, DEMO_CUSTOMER_EMAIL, password);

  // the store reaches checkout by event (vendor.store.upserted)
  await waitForStoreInCheckout(vendor, timeoutMs);

  for (const name of CATEGORIES) expectStatus(`category ${name}`, await admin.call('POST', '/admin/categories', { name }), 201, 409);
  const categories = await admin.call('GET', '/admin/categories');
  const categoryIds = Object.fromEntries((categories.json as { id: string; name: string }[]).map((c) => [c.name, c.id]));

  let productsCreated = 0;
  const existing = (await vendor.call('GET', '/vendor/products')).json as { total: number };
  if (existing.total === 0) {
    for (const body of demoProducts(categoryIds)) {
      await createProduct(vendor, body);
      productsCreated += 1;
    }
  }

  const methods = (await vendor.call('GET', '/vendor/shipping-methods')).json as { id: string; is_active: boolean }[];
  if (methods.length === 0) {
    await addFlatShippingMethod(vendor, { name: 'Standard delivery', rate: 8 });
  } else {
    for (const method of methods) if (!method.is_active) await activateShippingMethod(vendor, method.id);
  }

  const voucher: CreateVoucherBody = { code: 'WELCOME10', tier: 'platform', discountType: 'percentage', discountValue: '10', minOrderAmount: '20.00', maxUses: 1000, isActive: true };
  expectStatus('voucher', await admin.call('POST', '/admin/vouchers', voucher), 201, 409);
  const kol: CreateKolCodeBody = { code: 'KOL-BOOKS', discountType: 'percentage', discountValue: '5', categoryId: categoryIds.Books, isActive: true };
  expectStatus('KOL code', await admin.call('POST', '/admin/kol-codes', kol), 201, 409);

  await ensureHomeAddress(customer, 'Demo Customer');
  await seedB2bDemo({ bus, gatewayUrl, admin: options.admin, password });
  return { vendor: DEMO_VENDOR_EMAIL, customer: DEMO_CUSTOMER_EMAIL, storeId, productsCreated };
}

/** The customer's default home address (the demo's), unless the book has one already. */
async function ensureHomeAddress(customer: Session, fullName: string): Promise<void> {
  const addresses = (await customer.call('GET', '/account/addresses')).json as unknown[];
  if (addresses.length > 0) return;
  await addAddress(customer, {
    label: 'Home',
    full_name: fullName,
    phone: '+60 12-345 6789',
    address_line_1: '12 Jalan Telawi 3',
    address_line_2: 'Bangsar Baru',
    city: 'Kuala Lumpur',
    postcode: '59100',
    state: 'Wilayah Persekutuan',
    is_default: true,
  });
}

/** The e-mail of the n-th load customer (seedLoadCustomers). */
export const loadCustomerEmail = (n: number) => `load-${n}@pasar.local`;

/**
 * `count` more customers (`load-1@pasar.local` ...), each with a default address, for a load
 * that comes from many customers as a shop's does (`npm run cluster:chaos`): a payment takes its
 * customer's points account in turn, so one customer paying many orders a second measures that
 * queue, not the shop. Idempotent like the demo seed; resolves their e-mails.
 */
export async function seedLoadCustomers(options: { bus: Bus; gatewayUrl: string; password: string; count: number }): Promise<string[]> {
  const emails: string[] = [];
  for (let n = 1; n <= options.count; n += 1) {
    const email = loadCustomerEmail(n);
    await createUser(options.bus, email, `Load Customer ${n}`, 'customer', options.password);
    await ensureHomeAddress(await signIn(options.gatewayUrl, email, options.password), `Load Customer ${n}`);
    emails.push(email);
  }
  return emails;
}

/** What the README's curl walkthrough needs, printed in the start banner. */
export interface DemoWalkthroughIds {
  /** A demo product with variants, and its first variant (a submit must name one). */
  product: { id: string; name: string; variant: { id: string; name: string } };
  /** A demo product without variants. */
  simpleProduct?: { id: string; name: string };
  /** The demo customer's default address. */
  addressId: string;
}

/**
 * Reads the walkthrough's ids the way the README does: the public catalog (a product with its
 * variants) and the demo customer's address book. Undefined when the demo data is not there.
 */
export async function findDemoWalkthroughIds(gatewayUrl: string, customer: { email: string; password: string }): Promise<DemoWalkthroughIds | undefined> {
  const listing = await fetch(`${gatewayUrl}/api/v1/catalog/products`);
  if (listing.status !== 200) return undefined;
  const { products } = (await listing.json()) as { products: { id: string; name: string }[] };
  let product: DemoWalkthroughIds['product'] | undefined;
  let simpleProduct: DemoWalkthroughIds['simpleProduct'];
  for (const card of products) {
    const detail = await fetch(`${gatewayUrl}/api/v1/catalog/products/${card.id}`);
    if (detail.status !== 200) continue;
    const { variants } = (await detail.json()) as { variants: { id: string; name: string }[] };
    if (variants.length > 0) product ??= { id: card.id, name: card.name, variant: { id: variants[0].id, name: variants[0].name } };
    else simpleProduct ??= { id: card.id, name: card.name };
    if (product && simpleProduct) break;
  }
  if (!product) return undefined;
  const session = await signIn(gatewayUrl, customer.email, customer.password);
  try {
    const addresses = await session.call('GET', '/account/addresses');
    const list = addresses.status === 200 ? (addresses.json as { id: string; is_default: boolean }[]) : [];
    const address = list.find((a) => a.is_default) ?? list[0];
    if (!address) return undefined;
    return { product, simpleProduct, addressId: address.id };
  } finally {
    await session.call('POST', '/auth/sign-out').catch(() => undefined);
  }
}
