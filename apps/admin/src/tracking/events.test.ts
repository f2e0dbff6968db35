import { randomUUID } from 'node:crypto';
import { vendorShipmentStatusChanged } from '@pasar/contracts';
import { eventEnvelope, publishEvent, shipmentChange, waitFor } from '@pasar/testkit';
import { startTestAdmin, type TestAdmin } from '../../test/admin';

let t: TestAdmin;
beforeAll(async () => {
  t = await startTestAdmin();
});
afterAll(async () => {
  await t?.stop();
});

async function statusChanged(trackingId: string | null): Promise<string> {
  const data = shipmentChange({
    status: trackingId ? 'shipped' : 'paid',
    previousStatus: trackingId ? 'processing' : 'pending_payment',
    courier: trackingId ? 'carrier_a' : null,
    trackingId,
    shippedAt: trackingId ? new Date().toISOString() : null,
  });
  const event = eventEnvelope(vendorShipmentStatusChanged, data, 'vendor', data.changedAt);
  await publishEvent(t.peer.bus, event);
  return event.id;
}

test('a status change without a tracking id is acked without a transaction; one with a tracking id is indexed once', async () => {
  const untracked = await statusChanged(null);
  const blank = await statusChanged('  ');
  const trackingId = `TRK${randomUUID().slice(0, 8)}`;
  const tracked = await statusChanged(trackingId);
  await waitFor(() => t.admin.prisma.trackingIndex.findUnique({ where: { trackingId } }));
  // the tracking index's own inbox rows (admin's other consumers of the event keep theirs)
  const indexRows = (eventId: string | { in: string[] }) => t.admin.prisma.inbox.count({ where: { eventId, consumer: { endsWith: 'tracking-index' } } });
  expect(await indexRows({ in: [untracked, blank] })).toBe(0);
  expect(await indexRows(tracked)).toBe(1);
});
