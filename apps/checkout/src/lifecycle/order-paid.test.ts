import { randomUUID } from 'node:crypto';
import { identityUserUpserted, notifyEmailRequested, type EventData } from '@pasar/contracts';
import { silentLog, waitFor } from '@pasar/testkit';
import { useTestCheckout } from '../../test/checkout';
import { applyUserUpserted, type UserUpserted } from '../users/events';
import { markOrderPaid } from './order-paid';
import { seedCustomerReplica, seedPendingOrder, type SeededOrder } from './test-fixtures';

const t = useTestCheckout();
const prisma = () => t.checkout.prisma;
type EmailRequest = EventData<typeof notifyEmailRequested>;

async function confirmationsOf(order: SeededOrder): Promise<EmailRequest[]> {
  const rows = await prisma().outbox.findMany({ where: { type: notifyEmailRequested.type }, orderBy: { seq: 'asc' } });
  return rows.map((row) => (row.payload as unknown as { data: EmailRequest }).data).filter((e) => 'shortId' in e.vars && e.vars.shortId === order.shortId);
}

const pay = (order: SeededOrder) =>
  prisma().$transaction((tx) => markOrderPaid(tx, order.orderId, { transactionId: `T-${randomUUID()}`, paidAt: new Date() }, silentLog));

function replicaOf(order: SeededOrder, email = 'late@example.test'): UserUpserted {
  return { userId: order.customerId, email, fullName: 'Late Comer', phone: null, role: 'customer', updatedAt: new Date().toISOString() };
}

describe('order confirmation e-mail', () => {
  test('with a replica of the customer, it is requested with the payment', async () => {
    const order = await seedPendingOrder(prisma());
    await seedCustomerReplica(prisma(), order.customerId, 'siti@example.test');
    await pay(order);
    expect(await confirmationsOf(order)).toEqual([expect.objectContaining({ to: 'siti@example.test', template: 'order_confirmation' })]);
  });

  test('paid before the replica arrived: deferred, then requested once when identity.user.upserted brings it', async () => {
    const order = await seedPendingOrder(prisma());
    await pay(order);
    expect(await confirmationsOf(order)).toEqual([]);
    expect(await prisma().deferredOrderEmail.count({ where: { orderId: order.orderId } })).toBe(1);

    // the real consumer, fed the event as the gateway publishes it
    const event = { id: randomUUID(), type: identityUserUpserted.type, source: 'gateway', occurredAt: new Date().toISOString(), data: replicaOf(order) };
    await t.peer.bus.js.publish(t.peer.bus.naming.eventSubject(event), JSON.stringify(event), { msgID: event.id });
    await waitFor(async () => (await confirmationsOf(order)).length === 1, 15000);
    expect(await confirmationsOf(order)).toEqual([
      expect.objectContaining({ to: 'late@example.test', template: 'order_confirmation', vars: { fullName: 'Late Comer', shortId: order.shortId, total: order.total } }),
    ]);
    expect(await prisma().deferredOrderEmail.count({ where: { orderId: order.orderId } })).toBe(0);

    // a later version of the user sends nothing more
    await prisma().$transaction((tx) => applyUserUpserted(tx, replicaOf(order, 'newer@example.test')));
    expect(await confirmationsOf(order)).toHaveLength(1);
  });

  test('payment and replica arriving at the same time: exactly one e-mail, every time', async () => {
    for (let round = 0; round < 10; round += 1) {
      const order = await seedPendingOrder(prisma());
      await Promise.all([pay(order), prisma().$transaction((tx) => applyUserUpserted(tx, replicaOf(order)))]);
      expect(await confirmationsOf(order)).toHaveLength(1);
      expect(await prisma().deferredOrderEmail.count({ where: { orderId: order.orderId } })).toBe(0);
    }
  });
});
