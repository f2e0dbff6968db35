import { randomUUID } from 'node:crypto';
import { identityUserUpserted, type EventEnvelope } from '@pasar/contracts';
import { waitFor } from '@pasar/testkit';
import { useTestCheckout } from '../../test/checkout';
import type { UserUpserted } from './events';

const t = useTestCheckout();

function userUpserted(data: Partial<UserUpserted> & { userId: string }): EventEnvelope<UserUpserted> {
  return {
    id: randomUUID(),
    type: identityUserUpserted.type,
    source: 'gateway',
    occurredAt: new Date().toISOString(),
    data: {
      email: 'nur@example.test',
      fullName: 'Nur Aisyah',
      phone: '+60111222333',
      role: 'customer',
      updatedAt: '2026-01-01T00:00:00.000Z',
      ...data,
    },
  };
}

/**
 * Publishes as the gateway's outbox relay does (message id = event id). Another message id gets a
 * copy of the same event past JetStream's duplicate window, as a late redelivery would.
 */
async function publish(envelope: EventEnvelope<UserUpserted>, msgID = envelope.id) {
  const { bus } = t.peer;
  return bus.js.publish(bus.naming.eventSubject(envelope), JSON.stringify(envelope), { msgID });
}

/** Waits until checkout's user-replica consumer has acknowledged every message up to `seq`. */
async function handledUpTo(seq: number): Promise<void> {
  const { bus } = t.peer;
  const jsm = await bus.jsm;
  await waitFor(async () => {
    const info = await jsm.consumers.info(bus.naming.stream('IDENTITY'), bus.naming.durable('checkout', 'user-replica'));
    return info.ack_floor.stream_seq >= seq;
  });
}

async function publishAndWait(envelope: EventEnvelope<UserUpserted>, msgID?: string): Promise<void> {
  const ack = await publish(envelope, msgID);
  await handledUpTo(ack.seq);
}

const replicaOf = (userId: string) => t.checkout.prisma.userReplica.findUnique({ where: { userId } });

test('identity.user.upserted creates the user replica row', async () => {
  const userId = randomUUID();
  await publishAndWait(userUpserted({ userId, email: 'vendor@example.test', fullName: 'Kedai Ali', phone: null, role: 'vendor' }));
  expect(await replicaOf(userId)).toEqual({
    userId,
    email: 'vendor@example.test',
    fullName: 'Kedai Ali',
    phone: null,
    role: 'vendor',
    updatedAt: new Date('2026-01-01T00:00:00.000Z'),
  });
});

test('the same event delivered twice has its effect once', async () => {
  const userId = randomUUID();
  const event = userUpserted({ userId });
  await publishAndWait(event);
  expect((await replicaOf(userId))?.fullName).toBe('Nur Aisyah');

  // If the handler ran again it would overwrite this (its updated_at is older than the event's).
  await t.checkout.prisma.userReplica.update({ where: { userId }, data: { fullName: 'Changed here', updatedAt: new Date(0) } });

  const republished = await publish(event);
  expect(republished.duplicate).toBe(true); // JetStream drops a re-publish inside its window
  await publishAndWait(event, randomUUID()); // and the inbox catches one that gets through

  expect(await replicaOf(userId)).toMatchObject({ fullName: 'Changed here', updatedAt: new Date(0) });
  expect(await t.checkout.prisma.userReplica.count({ where: { userId } })).toBe(1);
  expect(await t.checkout.prisma.inbox.findMany({ where: { eventId: event.id } })).toEqual([
    expect.objectContaining({ consumer: 'checkout_user-replica', eventId: event.id }),
  ]);
});

test('an older event does not overwrite a newer one; a newer one does', async () => {
  const userId = randomUUID();
  await publishAndWait(userUpserted({ userId, fullName: 'Second Name', updatedAt: '2026-03-01T00:00:00.000Z' }));
  await publishAndWait(userUpserted({ userId, fullName: 'First Name', email: 'old@example.test', updatedAt: '2026-02-01T00:00:00.000Z' }));
  expect(await replicaOf(userId)).toMatchObject({ fullName: 'Second Name', email: 'nur@example.test', updatedAt: new Date('2026-03-01T00:00:00.000Z') });

  await publishAndWait(userUpserted({ userId, fullName: 'Third Name', role: 'admin', updatedAt: '2026-04-01T00:00:00.000Z' }));
  expect(await replicaOf(userId)).toMatchObject({ fullName: 'Third Name', role: 'admin', updatedAt: new Date('2026-04-01T00:00:00.000Z') });
});

test('an event with the same updatedAt as the replica changes nothing', async () => {
  const userId = randomUUID();
  await publishAndWait(userUpserted({ userId, fullName: 'Kept', updatedAt: '2026-05-01T00:00:00.000Z' }));
  await publishAndWait(userUpserted({ userId, fullName: 'Ignored', updatedAt: '2026-05-01T00:00:00.000Z' }));
  expect((await replicaOf(userId))?.fullName).toBe('Kept');
});
