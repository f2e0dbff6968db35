import { randomUUID } from 'node:crypto';
import { RpcFailedError, callRpc } from '@pasar/bus';
import { checkoutProductSnapshot, checkoutProductsMissingDimensions, type RpcRequest } from '@pasar/contracts';
import { startTestCheckout, type TestCheckout } from '../../test/checkout';
import type { Prisma } from '../generated/prisma/client';
import { addStore } from './test-fixtures';

let t: TestCheckout;

beforeAll(async () => {
  t = await startTestCheckout();
  await t.checkout.bus.nc.flush(); // the responders' subscriptions have reached the server
});
afterAll(async () => {
  await t?.stop();
});

type NewProduct = Omit<Prisma.ProductUncheckedCreateInput, 'slug' | 'name' | 'basePrice'> & { name?: string; basePrice?: string };

function addProduct(fields: NewProduct) {
  return t.checkout.prisma.product.create({
    data: { name: 'Kopi Tenom', slug: randomUUID(), basePrice: '28.50', status: 'live', weightKg: '0.5', lengthCm: '10', widthCm: '10', heightCm: '10', ...fields },
    include: { variants: { orderBy: { name: 'asc' } } },
  });
}

const snapshot = (request: RpcRequest<typeof checkoutProductSnapshot>) => callRpc(t.peer.bus, checkoutProductSnapshot, request);

async function refusal(request: RpcRequest<typeof checkoutProductSnapshot>): Promise<string> {
  const err = await snapshot(request).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof RpcFailedError)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err.code;
}

describe('rpc.checkout.product_snapshot', () => {
  test('answers the base price, name, image, store and weight of a product without variants', async () => {
    const store = await addStore(t, { name: 'Kedai Kopi' });
    const product = await addProduct({ storeId: store.storeId, imagePath: 'products/kopi.jpg', weightKg: '0.52' });
    expect(await snapshot({ productId: product.id })).toEqual({
      productId: product.id,
      variantId: null,
      name: 'Kopi Tenom',
      variantName: null,
      imagePath: 'products/kopi.jpg',
      storeId: store.storeId,
      storeName: 'Kedai Kopi',
      status: 'live',
      unitPrice: '28.50',
      weightKg: '0.520',
    });
  });

  test("a variant's price override wins over the base price; a variant without one costs the base price", async () => {
    const store = await addStore(t);
    const product = await addProduct({
      storeId: store.storeId,
      basePrice: '40.00',
      variants: { create: [{ name: 'Maroon', priceOverride: '42.90', stock: 1 }, { name: 'Plain', stock: 1 }] },
    });
    const [maroon, plain] = product.variants;
    expect(await snapshot({ productId: product.id, variantId: maroon.id })).toMatchObject({ variantId: maroon.id, variantName: 'Maroon', unitPrice: '42.90' });
    expect(await snapshot({ productId: product.id, variantId: plain.id })).toMatchObject({ variantId: plain.id, variantName: 'Plain', unitPrice: '40.00' });
  });

  test('answers a draft with its status (the caller decides), and a null store name without a store replica', async () => {
    const draft = await addProduct({ storeId: randomUUID(), status: 'draft', weightKg: null });
    expect(await snapshot({ productId: draft.id })).toMatchObject({ status: 'draft', storeName: null, weightKg: null });
  });

  test('refuses not_found for an unknown product, an unknown variant, or a variant of another product', async () => {
    const store = await addStore(t);
    const product = await addProduct({ storeId: store.storeId, variants: { create: [{ name: 'A', stock: 1 }] } });
    const other = await addProduct({ storeId: store.storeId, variants: { create: [{ name: 'B', stock: 1 }] } });
    expect(await refusal({ productId: randomUUID() })).toBe('not_found');
    expect(await refusal({ productId: product.id, variantId: randomUUID() })).toBe('not_found');
    expect(await refusal({ productId: product.id, variantId: other.variants[0].id })).toBe('not_found');
  });

  test('refuses variant_required for a product with variants asked without one', async () => {
    const store = await addStore(t);
    const product = await addProduct({ storeId: store.storeId, variants: { create: [{ name: 'A', stock: 1 }] } });
    expect(await refusal({ productId: product.id })).toBe('variant_required');
    expect(await refusal({ productId: product.id, variantId: null })).toBe('variant_required');
  });
});

describe('rpc.checkout.products_missing_dimensions', () => {
  test("lists the store's non-draft products lacking the weight or any dimension, by name", async () => {
    const store = await addStore(t);
    const storeId = store.storeId;
    const noWeight = await addProduct({ storeId, name: 'B no weight', weightKg: null });
    const noHeight = await addProduct({ storeId, name: 'A no height', status: 'archived', heightCm: null });
    const noWidth = await addProduct({ storeId, name: 'C no width', widthCm: null });
    const noLength = await addProduct({ storeId, name: 'D no length', lengthCm: null });
    await addProduct({ storeId, name: 'Complete' });
    await addProduct({ storeId, name: 'Draft without anything', status: 'draft', weightKg: null, lengthCm: null, widthCm: null, heightCm: null });
    await addProduct({ storeId: randomUUID(), name: 'Other store', weightKg: null });

    const answer = await callRpc(t.peer.bus, checkoutProductsMissingDimensions, { storeId });
    expect(answer).toEqual({
      products: [
        { id: noHeight.id, name: 'A no height' },
        { id: noWeight.id, name: 'B no weight' },
        { id: noWidth.id, name: 'C no width' },
        { id: noLength.id, name: 'D no length' },
      ],
    });
  });

  test('answers an empty list for a store whose products are complete, or that has none', async () => {
    const store = await addStore(t);
    await addProduct({ storeId: store.storeId });
    expect(await callRpc(t.peer.bus, checkoutProductsMissingDimensions, { storeId: store.storeId })).toEqual({ products: [] });
    expect(await callRpc(t.peer.bus, checkoutProductsMissingDimensions, { storeId: randomUUID() })).toEqual({ products: [] });
  });
});
