import { randomUUID } from 'node:crypto';
import { familyCart, familyCartItem, MAX_FAMILY_CART_QUANTITY } from '@pasar/contracts';
import { activateDirectly, asCustomer, uniqueEmail, useFamilyWorld } from './test-fixtures';

const world = useFamilyWorld();

const http = () => world.client.http();
const ITEMS = '/api/v1/family/cart/items';

/** A product in the catalog; variants as [name, priceOverride|null]. */
async function product(options: { basePrice?: string; status?: 'draft' | 'live' | 'archived'; variants?: [string, string | null][]; storeId?: string } = {}) {
  const slug = `p-${randomUUID()}`;
  return world.t.checkout.prisma.product.create({
    data: {
      storeId: options.storeId ?? randomUUID(),
      name: `Product ${slug.slice(2, 8)}`,
      slug,
      status: options.status ?? 'live',
      basePrice: options.basePrice ?? '25.00',
      stock: 100,
      variants: { create: (options.variants ?? []).map(([name, priceOverride]) => ({ name, priceOverride, stock: 10 })) },
    },
    include: { variants: { orderBy: { name: 'asc' } } },
  });
}

/** A family with an active member and a pending one. */
async function family() {
  const { ownerId, family } = await world.client.newFamily();
  const active = await world.client.invited(ownerId, { email: uniqueEmail('active'), fullName: 'Active' });
  const pending = await world.client.invited(ownerId, { email: uniqueEmail('pending'), fullName: 'Pending' });
  await activateDirectly(world.t, active.userId);
  return { ownerId, familyId: family.id, activeUserId: active.userId as string, pendingUserId: pending.userId as string };
}

const add = (userId: string, body: Record<string, unknown>) => http().post(ITEMS).set(asCustomer(userId)).send(body);
const cartOf = async (userId: string) => familyCart.parse((await http().get('/api/v1/family/cart').set(asCustomer(userId)).expect(200)).body);

describe('POST /family/cart/items', () => {
  test('answers 201 with a Location and the priced line; the variant price override wins over the base price', async () => {
    const { ownerId } = await family();
    const p = await product({ basePrice: '25.00', variants: [['Large', '31.90'], ['Small', null]] });
    const [large, small] = p.variants;

    const res = await add(ownerId, { productId: p.id, variantId: large.id, quantity: 3 }).expect(201);
    const line = familyCartItem.parse(res.body);
    expect(res.headers.location).toBe(`${ITEMS}/${line.id}`);
    expect(line).toEqual({
      id: line.id,
      productId: p.id,
      variantId: large.id,
      productName: p.name,
      variantName: 'Large',
      unitPrice: '31.90',
      quantity: 3,
      lineTotal: '95.70',
      storeId: p.storeId,
      addedBy: ownerId,
    });
    const smallLine = (await add(ownerId, { productId: p.id, variantId: small.id, quantity: 2 }).expect(201)).body;
    expect(smallLine).toMatchObject({ variantName: 'Small', unitPrice: '25.00', lineTotal: '50.00' });
  });

  test('the same product and variant again adds to the quantity of its line', async () => {
    const { ownerId, activeUserId, familyId } = await family();
    const p = await product({ basePrice: '10.10' });
    const first = (await add(ownerId, { productId: p.id, quantity: 2 }).expect(201)).body;
    const second = (await add(activeUserId, { productId: p.id, variantId: null, quantity: 5 }).expect(201)).body;
    expect(second).toMatchObject({ id: first.id, quantity: 7, lineTotal: '70.70', addedBy: ownerId });
    expect(await world.t.checkout.prisma.familyCartItem.count({ where: { familyId } })).toBe(1);
  });

  test('concurrent adds of one product make one line with the summed quantity', async () => {
    const { ownerId, familyId } = await family();
    const p = await product();
    const answers = await Promise.all(Array.from({ length: 8 }, () => add(ownerId, { productId: p.id, quantity: 2 })));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(201));
    const lines = await world.t.checkout.prisma.familyCartItem.findMany({ where: { familyId } });
    expect(lines.map((l) => l.quantity)).toEqual([16]);
  });

  test(`answers 409 quantity_limit when a line would pass ${MAX_FAMILY_CART_QUANTITY}, and keeps the quantity`, async () => {
    const { ownerId, familyId } = await family();
    const p = await product();
    await add(ownerId, { productId: p.id, quantity: MAX_FAMILY_CART_QUANTITY - 1 }).expect(201);
    await add(ownerId, { productId: p.id, quantity: 1 }).expect(201);
    expect((await add(ownerId, { productId: p.id, quantity: 1 }).expect(409)).body.code).toBe('quantity_limit');
    expect((await world.t.checkout.prisma.familyCartItem.findFirstOrThrow({ where: { familyId } })).quantity).toBe(MAX_FAMILY_CART_QUANTITY);
  });

  test.each([
    ['an unknown product', async () => ({ productId: randomUUID() }), 'product_unavailable'],
    ['a draft product', async () => ({ productId: (await product({ status: 'draft' })).id }), 'product_unavailable'],
    ['an archived product', async () => ({ productId: (await product({ status: 'archived' })).id }), 'product_unavailable'],
    ['a product with variants, without a variant', async () => ({ productId: (await product({ variants: [['A', null]] })).id }), 'variant_required'],
    ['a variant of another product', async () => ({ productId: (await product({ variants: [['A', null]] })).id, variantId: (await product({ variants: [['B', null]] })).variants[0].id }), 'unknown_variant'],
    ['a variant for a product without variants', async () => ({ productId: (await product()).id, variantId: randomUUID() }), 'unknown_variant'],
  ])('answers 400 for %s and writes nothing', async (_what, target, code) => {
    const { ownerId, familyId } = await family();
    const res = await add(ownerId, { ...(await target()), quantity: 1 }).expect(400);
    expect(res.body.code).toBe(code);
    expect(await world.t.checkout.prisma.familyCartItem.count({ where: { familyId } })).toBe(0);
  });

  test.each([[{ quantity: 0 }], [{ quantity: 1000 }], [{ quantity: 1.5 }], [{ quantity: '2' }], [{}], [{ quantity: 1, productId: 'nope' }], [{ quantity: 1, note: 'x' }]])(
    'answers 400 validation_failed for %j',
    async (body) => {
      const { ownerId } = await family();
      const p = await product();
      const res = await add(ownerId, { productId: p.id, ...body }).expect(400);
      expect(res.body.code).toBe('validation_failed');
    },
  );

  test('answers 403 membership_pending for a pending member and 404 for a customer without a family; writes nothing', async () => {
    const { pendingUserId, familyId } = await family();
    const p = await product();
    expect((await add(pendingUserId, { productId: p.id, quantity: 1 }).expect(403)).body.code).toBe('membership_pending');
    await add(randomUUID(), { productId: p.id, quantity: 1 }).expect(404);
    expect(await world.t.checkout.prisma.familyCartItem.count({ where: { familyId } })).toBe(0);
  });
});

describe('GET /family/cart', () => {
  test('every active member sees the shared cart, oldest line first, with the subtotal', async () => {
    const { ownerId, activeUserId } = await family();
    const shoes = await product({ basePrice: '120.00', variants: [['EU 42', '99.50']] });
    const socks = await product({ basePrice: '7.33' });
    await add(activeUserId, { productId: shoes.id, variantId: shoes.variants[0].id, quantity: 1 }).expect(201);
    await add(ownerId, { productId: socks.id, quantity: 3 }).expect(201);

    for (const userId of [ownerId, activeUserId]) {
      const cart = await cartOf(userId);
      expect(cart.items.map((i) => [i.productId, i.unitPrice, i.quantity, i.lineTotal, i.addedBy])).toEqual([
        [shoes.id, '99.50', 1, '99.50', activeUserId],
        [socks.id, '7.33', 3, '21.99', ownerId],
      ]);
      expect(cart.subtotal).toBe('121.49');
    }
  });

  test('prices from the catalog as it is now, and leaves out lines whose product is gone', async () => {
    const { ownerId } = await family();
    const kept = await product({ basePrice: '10.00' });
    const gone = await product({ basePrice: '5.00' });
    await add(ownerId, { productId: kept.id, quantity: 2 }).expect(201);
    await add(ownerId, { productId: gone.id, quantity: 1 }).expect(201);
    await world.t.checkout.prisma.product.update({ where: { id: kept.id }, data: { basePrice: '12.50' } });
    await world.t.checkout.prisma.product.delete({ where: { id: gone.id } });
    const cart = await cartOf(ownerId);
    expect(cart.items.map((i) => [i.productId, i.lineTotal])).toEqual([[kept.id, '25.00']]);
    expect(cart.subtotal).toBe('25.00');
  });

  test('an empty cart answers no items and a zero subtotal', async () => {
    const { ownerId } = await family();
    expect(await cartOf(ownerId)).toEqual({ items: [], subtotal: '0.00' });
  });

  test("never shows another family's lines", async () => {
    const mine = await family();
    const theirs = await family();
    await add(theirs.ownerId, { productId: (await product()).id, quantity: 1 }).expect(201);
    expect((await cartOf(mine.ownerId)).items).toEqual([]);
  });

  test('answers 403 membership_pending for a pending member, 404 for a customer without a family or a removed member', async () => {
    const { ownerId, pendingUserId, activeUserId } = await family();
    expect((await http().get('/api/v1/family/cart').set(asCustomer(pendingUserId)).expect(403)).body.code).toBe('membership_pending');
    await http().get('/api/v1/family/cart').set(asCustomer(randomUUID())).expect(404);
    const member = await world.t.checkout.prisma.familyMember.findFirstOrThrow({ where: { userId: activeUserId } });
    await http().delete(`/api/v1/family/members/${member.id}`).set(asCustomer(ownerId)).expect(204);
    await http().get('/api/v1/family/cart').set(asCustomer(activeUserId)).expect(404);
  });
});

describe('DELETE /family/cart/items/{id}', () => {
  test('answers 204; any active member may remove a line someone else added', async () => {
    const { ownerId, activeUserId } = await family();
    const line = (await add(ownerId, { productId: (await product()).id, quantity: 1 }).expect(201)).body;
    await http().delete(`${ITEMS}/${line.id}`).set(asCustomer(activeUserId)).expect(204);
    expect((await cartOf(ownerId)).items).toEqual([]);
    await http().delete(`${ITEMS}/${line.id}`).set(asCustomer(ownerId)).expect(404);
  });

  test("answers 404 for another family's line and leaves it", async () => {
    const mine = await family();
    const theirs = await family();
    const line = (await add(theirs.ownerId, { productId: (await product()).id, quantity: 1 }).expect(201)).body;
    await http().delete(`${ITEMS}/${line.id}`).set(asCustomer(mine.ownerId)).expect(404);
    expect(await world.t.checkout.prisma.familyCartItem.count({ where: { id: line.id } })).toBe(1);
  });

  test('answers 403 membership_pending for a pending member and leaves the line', async () => {
    const { ownerId, pendingUserId } = await family();
    const line = (await add(ownerId, { productId: (await product()).id, quantity: 1 }).expect(201)).body;
    expect((await http().delete(`${ITEMS}/${line.id}`).set(asCustomer(pendingUserId)).expect(403)).body.code).toBe('membership_pending');
    expect(await world.t.checkout.prisma.familyCartItem.count({ where: { id: line.id } })).toBe(1);
  });
});
