import { randomUUID } from 'node:crypto';
import { acceptsOrderCreated, checkoutOrderCreated, checkoutOrderPaid, checkoutOrderStatusChanged } from './commerce';

const item = (over: Record<string, unknown> = {}) => ({
  orderItemId: randomUUID(),
  productId: randomUUID(),
  variantId: null,
  productName: 'Kopi',
  variantName: null,
  quantity: 1,
  unitPrice: '10.00',
  weightKg: '1.250',
  ...over,
});

const subOrder = (over: Record<string, unknown> = {}) => ({
  subOrderId: randomUUID(),
  storeId: randomUUID(),
  shippingMethodId: randomUUID(),
  subtotal: '10.00',
  shippingFee: '5.00',
  total: '15.00',
  items: [item()],
  ...over,
});

const orderCreated = (over: Record<string, unknown> = {}) => ({
  orderId: randomUUID(),
  shortId: 'PSR-7K2M9Q',
  customerId: randomUUID(),
  isB2b: false,
  familyId: null,
  purchaseRequestIds: [],
  buyerTin: null,
  total: '15.00',
  shippingAddress: { fullName: 'Siti', phone: '+60123456789', addressLine1: 'Jalan 1', addressLine2: null, city: 'KL', postcode: '50000', state: 'WP' },
  subOrders: [subOrder()],
  createdAt: new Date().toISOString(),
  ...over,
});

/** Valid events of every shape checkout writes. */
const valid = [
  orderCreated(),
  orderCreated({ isB2b: true, familyId: randomUUID(), purchaseRequestIds: [randomUUID(), randomUUID()], buyerTin: 'C1234567890' }),
  orderCreated({
    shippingAddress: { fullName: '', phone: '', addressLine1: '', addressLine2: 'Blok B', city: '', postcode: '', state: '' },
    subOrders: [
      subOrder({ shippingMethodId: null, items: [item({ variantId: randomUUID(), variantName: 'Besar', quantity: 3, weightKg: null }), item()] }),
      subOrder({ items: [] }),
    ],
  }),
  orderCreated({ total: '-0.50', subOrders: [], createdAt: '2024-02-29T23:59:59.123Z' }),
  orderCreated({ createdAt: '2026-01-01T00:00:00Z', total: '1234567890.99' }),
];

/** Odd values for any field: wrong types, near misses of each format, undefined and the like. */
const oddValues: unknown[] = [
  undefined,
  null,
  '',
  'x',
  0,
  -1,
  1.5,
  2 ** 60,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  [],
  {},
  [undefined],
  '12.5',
  '12.500',
  '12345678901.00',
  '1e3',
  ' 1.00',
  '00000000-0000-0000-0000-000000000000',
  '00000000-0000-0000-0000-000000000001',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1',
  'a0eebc99-9c0b-0ef8-bb6d-6bb9bd380a11',
  'a0eebc99-9c0b-4ef8-cb6d-6bb9bd380a11',
  '2026-02-30T10:00:00.000Z',
  '2026-13-01T10:00:00.000Z',
  '2026-01-01T24:00:00.000Z',
  '2026-01-01T10:00:00.000+01:00',
  '2026-01-01T10:00:00.000',
  '2026-01-01',
  '+010000-01-01T00:00:00.000Z',
  new Date(),
  Object.create({ a: 1 }),
  // eslint-disable-next-line no-sparse-arrays
  [, ''],
];

type Json = Record<string, unknown> | unknown[];

/** Every variant of `value` with one field, element or key changed (depth first). */
function* mutations(value: unknown): Generator<unknown> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      for (const changed of mutations(value[i])) yield value.map((v, j) => (j === i ? changed : v));
      yield value.filter((_, j) => j !== i);
    }
    yield [...value, ...value.slice(0, 1)];
    const sparse = [...value];
    sparse.length += 1;
    yield sparse;
    return;
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      for (const changed of mutations(record[key])) yield { ...record, [key]: changed };
      const { [key]: _removed, ...rest } = record;
      yield rest;
    }
    yield { ...record, extra: 'stripped by the schema' };
    return;
  }
  yield* oddValues;
}

describe('acceptsOrderCreated (the fast path of checkout.order.created)', () => {
  it('is the contract`s fast path', () => {
    expect(checkoutOrderCreated.accepts).toBe(acceptsOrderCreated);
  });

  it('accepts the events checkout writes, which the schema answers unchanged', () => {
    for (const data of valid) {
      expect(acceptsOrderCreated(data)).toBe(true);
      expect(checkoutOrderCreated.data.parse(data)).toStrictEqual(data);
    }
  });

  it('accepts nothing the schema would refuse or change (every one-field mutation of every valid event)', () => {
    let accepted = 0;
    let refused = 0;
    for (const base of valid) {
      for (const data of mutations(base as Json)) {
        if (acceptsOrderCreated(data)) {
          accepted += 1;
          const parsed = checkoutOrderCreated.data.safeParse(data);
          expect(parsed.success).toBe(true);
          expect(parsed.data).toStrictEqual(data);
        } else {
          refused += 1;
        }
      }
    }
    // both sides were exercised: the mutations hit valid values (other strings, other uuids) and invalid ones
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(1000);
  });

  it('refuses what is not an object', () => {
    for (const data of [null, undefined, 'x', 1, [], [orderCreated()]]) expect(acceptsOrderCreated(data)).toBe(false);
  });
});

describe("the buying company on checkout.order.paid and checkout.order.status_changed (the B2B live stream's)", () => {
  const paid = { orderId: randomUUID(), shortId: 'PSR-7K2M9Q', customerId: randomUUID(), isB2b: true, subOrderIds: [randomUUID()], total: '15.00', paidAt: new Date().toISOString() };
  const moved = { orderId: randomUUID(), isB2b: true, status: 'paid', previousStatus: 'pending_payment', changedAt: new Date().toISOString() };

  it.each([
    ['checkout.order.paid', checkoutOrderPaid.data, paid],
    ['checkout.order.status_changed', checkoutOrderStatusChanged.data, moved],
  ] as const)('%s: a company id, null (no company) or none (an older checkout) is taken unchanged; anything else is refused', (_type, schema, data) => {
    for (const event of [{ ...data, companyId: randomUUID() }, { ...data, companyId: null }, data]) expect(schema.parse(event)).toStrictEqual(event);
    for (const companyId of ['', 'C1234567890', 7, {}]) expect(schema.safeParse({ ...data, companyId }).success).toBe(false);
  });
});
