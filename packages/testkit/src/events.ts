/**
 * Events as a service's outbox publishes them, for tests that stand in for that service: the
 * envelope, its publication on a bus (JetStream, de-duplicated by the envelope's id), and a full
 * `vendor.shipment.status_changed` to change only what a test is about.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '@pasar/bus';
import { vendorShipmentStatusChanged, type EventContract, type EventData, type EventEnvelope } from '@pasar/contracts';

/** The envelope `source`'s outbox writes for `data` (version 1, occurred now unless given). */
export function eventEnvelope<E extends EventContract>(event: E, data: EventData<E>, source: string, occurredAt = new Date().toISOString()): EventEnvelope<EventData<E>> {
  return { id: randomUUID(), type: event.type, source, occurredAt, version: 1, data };
}

/** Publishes `envelope` on its subject as the relay does; answers its stream sequence. */
export async function publishEvent(bus: Bus, envelope: EventEnvelope): Promise<number> {
  const ack = await bus.js.publish(bus.naming.eventSubject(envelope), JSON.stringify(envelope), { msgID: envelope.id });
  return ack.seq;
}

export type ShipmentChange = EventData<typeof vendorShipmentStatusChanged>;

/** A shipment moved from paid to processing, new ids, nothing shipped yet, changed now; `changes` overrides any field. */
export function shipmentChange(changes: Partial<ShipmentChange> = {}): ShipmentChange {
  return {
    shipmentId: randomUUID(),
    orderId: randomUUID(),
    storeId: randomUUID(),
    status: 'processing',
    previousStatus: 'paid',
    courier: null,
    trackingId: null,
    trackingUrl: null,
    shippedAt: null,
    deliveredAt: null,
    cancelledAt: null,
    reason: null,
    changedAt: new Date().toISOString(),
    ...changes,
  };
}
