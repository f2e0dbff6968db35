import { randomUUID } from 'node:crypto';
import { vendorShippingMethodDeleted, vendorShippingMethodUpserted, vendorStoreUpserted, type EventEnvelope } from '@pasar/contracts';
import { waitFor } from '@pasar/testkit';
import request from 'supertest';
import { useTestCheckout } from '../../test/checkout';
import { as, productBody } from '../catalog/test-fixtures';
import type { ShippingMethodDeleted, ShippingMethodUpserted, StoreUpserted } from './events';
import { storeOfOwner } from './stores';

const t = useTestCheckout();

const CONSUMER_OF: Record<string, string> = {
  [vendorStoreUpserted.type]: 'store-replica',
  [vendorShippingMethodUpserted.type]: 'shipping-method-replica',
  [vendorShippingMethodDeleted.type]: 'shipping-method-removal',
};

function envelope<T>(type: string, data: T): EventEnvelope<T> {
  return { id: randomUUID(), type, source: 'vendor', occurredAt: new Date().toISOString(), data };
}

const storeUpserted = (data: Partial<StoreUpserted> & { storeId: string }) =>
  envelope<StoreUpserted>(vendorStoreUpserted.type, {
    ownerUserId: randomUUID(),
    name: 'Kedai Ali',
    slug: 'kedai-ali',
    logoPath: null,
    status: 'active',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...data,
  });

const methodUpserted = (data: Partial<ShippingMethodUpserted> & { id: string }) =>
  envelope<ShippingMethodUpserted>(vendorShippingMethodUpserted.type, {
    storeId: randomUUID(),
    name: 'Standard',
    provider: 'carrier_a',
    type: 'flat',
    rateConfig: { rate: '8.00' },
    estimatedDaysMin: 2,
    estimatedDaysMax: 4,
    isActive: true,
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...data,
  });

const methodDeleted = (data: ShippingMethodDeleted) => envelope<ShippingMethodDeleted>(vendorShippingMethodDeleted.type, data);

/**
 * Publishes as vendor's outbox relay does (message id = event id) and waits until checkout's
 * consumer has acknowledged it. Another message id gets a copy past JetStream's duplicate window.
 */
async function publishAndWait<T>(event: EventEnvelope<T>, msgID = event.id): Promise<void> {
  const { bus } = t.peer;
  const ack = await bus.js.publish(bus.naming.eventSubject(event), JSON.stringify(event), { msgID });
  const jsm = await bus.jsm;
  await waitFor(async () => {
    const info = await jsm.consumers.info(bus.naming.stream('VENDOR'), bus.naming.durable('checkout', CONSUMER_OF[event.type]));
    return info.ack_floor.stream_seq >= ack.seq;
  });
}

const storeReplica = (storeId: string) => t.checkout.prisma.storeReplica.findUnique({ where: { storeId } });
const methodReplica = (id: string) => t.checkout.prisma.shippingMethodReplica.findUnique({ where: { id } });

describe('vendor.store.upserted', () => {
  test('creates the store replica row, owner included', async () => {
    const storeId = randomUUID();
    const ownerUserId = randomUUID();
    await publishAndWait(storeUpserted({ storeId, ownerUserId, name: 'Kedai Batik', slug: 'kedai-batik', logoPath: 'stores/logo.png' }));
    expect(await storeReplica(storeId)).toEqual({
      storeId,
      ownerUserId,
      name: 'Kedai Batik',
      slug: 'kedai-batik',
      logoPath: 'stores/logo.png',
      status: 'active',
      updatedAt: new Date('2026-01-01T00:00:00.000Z'),
    });
  });

  test('an older update is ignored, a newer one applied, one as new changes nothing', async () => {
    const storeId = randomUUID();
    await publishAndWait(storeUpserted({ storeId, name: 'Second', updatedAt: '2026-03-01T00:00:00.000Z' }));
    await publishAndWait(storeUpserted({ storeId, name: 'First', status: 'suspended', updatedAt: '2026-02-01T00:00:00.000Z' }));
    expect(await storeReplica(storeId)).toMatchObject({ name: 'Second', status: 'active' });
    await publishAndWait(storeUpserted({ storeId, name: 'Same time', updatedAt: '2026-03-01T00:00:00.000Z' }));
    expect(await storeReplica(storeId)).toMatchObject({ name: 'Second' });
    await publishAndWait(storeUpserted({ storeId, name: 'Third', status: 'suspended', updatedAt: '2026-04-01T00:00:00.000Z' }));
    expect(await storeReplica(storeId)).toMatchObject({ name: 'Third', status: 'suspended', updatedAt: new Date('2026-04-01T00:00:00.000Z') });
  });

  test('the same event delivered twice has its effect once', async () => {
    const storeId = randomUUID();
    const event = storeUpserted({ storeId });
    await publishAndWait(event);
    // a second run of the handler would overwrite this (its updated_at is older than the event's)
    await t.checkout.prisma.storeReplica.update({ where: { storeId }, data: { name: 'Changed here', updatedAt: new Date(0) } });
    await publishAndWait(event, randomUUID());
    expect(await storeReplica(storeId)).toMatchObject({ name: 'Changed here' });
    expect(await t.checkout.prisma.inbox.count({ where: { eventId: event.id } })).toBe(1);
  });

  test("storeOfOwner finds the owner's store; a vendor whose store arrived may manage products at once", async () => {
    const storeId = randomUUID();
    const ownerUserId = randomUUID();
    expect(await storeOfOwner(t.checkout.prisma, ownerUserId)).toBeNull();
    await request(t.checkout.url).get('/api/v1/vendor/products').set(as('vendor', ownerUserId)).expect(403);

    await publishAndWait(storeUpserted({ storeId, ownerUserId }));
    expect(await storeOfOwner(t.checkout.prisma, ownerUserId)).toMatchObject({ storeId, ownerUserId });
    const res = await request(t.checkout.url).post('/api/v1/vendor/products').set(as('vendor', ownerUserId)).send(productBody()).expect(201);
    expect(res.body.storeId).toBe(storeId);
  });
});

describe('vendor.shipping_method.upserted and .deleted', () => {
  test('creates the shipping method replica row as vendor gave it', async () => {
    const id = randomUUID();
    const storeId = randomUUID();
    await publishAndWait(methodUpserted({ id, storeId, type: 'weight', rateConfig: { base_rate: 5, per_kg: '1.20' }, estimatedDaysMax: null }));
    expect(await methodReplica(id)).toEqual({
      id,
      storeId,
      name: 'Standard',
      provider: 'carrier_a',
      type: 'weight',
      rateConfig: { base_rate: 5, per_kg: '1.20' },
      estimatedDaysMin: 2,
      estimatedDaysMax: null,
      isActive: true,
      updatedAt: new Date('2026-01-01T00:00:00.000Z'),
    });
  });

  test('an older update is ignored, a newer one applied', async () => {
    const id = randomUUID();
    await publishAndWait(methodUpserted({ id, name: 'Second', updatedAt: '2026-03-01T00:00:00.000Z' }));
    await publishAndWait(methodUpserted({ id, name: 'First', isActive: false, updatedAt: '2026-02-01T00:00:00.000Z' }));
    expect(await methodReplica(id)).toMatchObject({ name: 'Second', isActive: true });
    await publishAndWait(methodUpserted({ id, name: 'Third', isActive: false, rateConfig: { rate: 12 }, updatedAt: '2026-04-01T00:00:00.000Z' }));
    expect(await methodReplica(id)).toMatchObject({ name: 'Third', isActive: false, rateConfig: { rate: 12 } });
  });

  test('the same upsert delivered twice has its effect once', async () => {
    const id = randomUUID();
    const event = methodUpserted({ id });
    await publishAndWait(event);
    await t.checkout.prisma.shippingMethodReplica.update({ where: { id }, data: { name: 'Changed here', updatedAt: new Date(0) } });
    await publishAndWait(event, randomUUID());
    expect(await methodReplica(id)).toMatchObject({ name: 'Changed here' });
  });

  test('deleted removes the replica row; a delete older than the replica’s version leaves it', async () => {
    const id = randomUUID();
    const storeId = randomUUID();
    await publishAndWait(methodUpserted({ id, storeId, updatedAt: '2026-05-01T00:00:00.000Z' }));
    await publishAndWait(methodDeleted({ id, storeId, deletedAt: '2026-04-01T00:00:00.000Z' }));
    expect(await methodReplica(id)).not.toBeNull();
    await publishAndWait(methodDeleted({ id, storeId, deletedAt: '2026-05-02T00:00:00.000Z' }));
    expect(await methodReplica(id)).toBeNull();
  });

  test('a delete of a method the replica never had, or delivered twice, is harmless', async () => {
    const id = randomUUID();
    const storeId = randomUUID();
    const event = methodDeleted({ id, storeId, deletedAt: '2026-05-02T00:00:00.000Z' });
    await publishAndWait(event);
    await publishAndWait(event, randomUUID());
    expect(await methodReplica(id)).toBeNull();
    expect(await t.checkout.prisma.parkedMessage.count()).toBe(0);
  });
});
