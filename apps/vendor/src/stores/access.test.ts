import { randomUUID } from 'node:crypto';
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { asCustomer, asVendor, givenStore, startTestVendor, type TestStore, type TestVendor } from '../../test/vendor';
import { givenShipment } from '../../test/shipments';

let t: TestVendor;
let owner: TestStore;
let other: TestStore;
const ids = { method: '', address: '', shipment: '' };

beforeAll(async () => {
  t = await startTestVendor();
  [owner, other] = await Promise.all([givenStore(t), givenStore(t)]);
  const method = await t.vendor.prisma.shippingMethod.create({
    data: { storeId: owner.storeId, name: 'Standard', provider: 'carrier_a', type: 'flat', rateConfig: { rate: '8.00' } },
  });
  const address = await t.vendor.prisma.pickupAddress.create({
    data: { storeId: owner.storeId, label: 'Warehouse', addressLine1: '1 Jalan Gudang', postcode: '40000', state: 'Selangor', isDefault: true },
  });
  const shipment = await givenShipment(t, owner.storeId, 'paid');
  Object.assign(ids, { method: method.id, address: address.id, shipment: shipment.id });
});
afterAll(async () => {
  await t?.stop();
});

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const methodBody = { name: 'Express', provider: 'carrier_b', type: 'flat', rate_config: { rate: '12.00' } };
const addressBody = { label: 'Shop', address_line_1: '2 Jalan Kedai', postcode: '50000', state: 'Kuala Lumpur' };
const shipBody = { courier: 'carrier_a', trackingId: 'A123' };

/** Every vendor endpoint: method, path (`:method` etc. stand for the owner's resources), a valid body. */
const endpoints: [Method, string, object?][] = [
  ['get', '/vendor/shipping-methods'],
  ['post', '/vendor/shipping-methods', methodBody],
  ['put', '/vendor/shipping-methods/:method', methodBody],
  ['delete', '/vendor/shipping-methods/:method'],
  ['patch', '/vendor/shipping-methods/:method/toggle-active'],
  ['post', '/vendor/shipping-methods/:method/activate', { active: false }],
  ['get', '/vendor/pickup-addresses'],
  ['post', '/vendor/pickup-addresses', addressBody],
  ['put', '/vendor/pickup-addresses/:address', addressBody],
  ['delete', '/vendor/pickup-addresses/:address'],
  ['get', '/vendor/shipments'],
  ['get', '/vendor/shipments/:shipment'],
  ['post', '/vendor/shipments/:shipment/process'],
  ['post', '/vendor/shipments/:shipment/ship', shipBody],
  ['post', '/vendor/shipments/:shipment/deliver'],
  ['post', '/vendor/shipments/:shipment/cancel', {}],
];
const withId = endpoints.filter(([, path]) => path.includes(':'));

function call([method, path, body]: (typeof endpoints)[number], headers: Record<string, string>) {
  const url = path.replace(/:(method|address|shipment)/, (_, key: keyof typeof ids) => ids[key]);
  const req = request(t.vendor.url)[method](`/api/v1${url}`).set(headers);
  return body ? req.send(body) : req;
}

async function unchanged(): Promise<void> {
  const [method, address, shipment] = await Promise.all([
    t.vendor.prisma.shippingMethod.findUniqueOrThrow({ where: { id: ids.method } }),
    t.vendor.prisma.pickupAddress.findUniqueOrThrow({ where: { id: ids.address } }),
    t.vendor.prisma.shipment.findUniqueOrThrow({ where: { id: ids.shipment } }),
  ]);
  expect([method.name, method.isActive, address.label, shipment.status]).toEqual(['Standard', false, 'Warehouse', 'paid']);
}

describe.each(endpoints)('%s %s', (...endpoint) => {
  test('401 without a signature, 403 for a customer, 403 no_store for a vendor without a store', async () => {
    const unsigned = await call(endpoint, {});
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await call(endpoint, signedHeaders(null))).body).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect((await call(endpoint, asCustomer())).body).toMatchObject({ status: 403, code: 'forbidden' });
    expect((await call(endpoint, signedHeaders({ role: 'admin' }))).body).toMatchObject({ status: 403, code: 'forbidden' });
    expect((await call(endpoint, asVendor(randomUUID()))).body).toMatchObject({ status: 403, code: 'no_store' });
    await unchanged();
  });
});

describe.each(withId)('%s %s', (...endpoint) => {
  test("404 for a vendor of another store, and the owner's resource is untouched", async () => {
    const res = await call(endpoint, other.headers());
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found' });
    await unchanged();
  });
});

test('an id that is not a uuid is a 400', async () => {
  const res = await request(t.vendor.url).get('/api/v1/vendor/shipments/nope').set(owner.headers()).expect(400);
  expect(res.body.code).toBe('validation_failed');
});
