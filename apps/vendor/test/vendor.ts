import { randomUUID } from 'node:crypto';
import type { Bus } from '@pasar/bus';
import type { EventContract, EventData, EventEnvelope, StreamName } from '@pasar/contracts';
import { createTestSchema } from '@pasar/db';
import { loadConfig } from '@pasar/service-kit';
import { createTestBus, signedHeaders, silentLog, testServiceEnv, waitFor, type TestBus } from '@pasar/testkit';
import { startVendor, type VendorService } from '../src/app';
import { vendorConfigSchema } from '../src/config';
import { createStore, type CreateStoreInput } from '../src/stores/stores';

export interface TestVendor {
  vendor: VendorService;
  /** Another service on vendor's namespace: publishes events, answers rpc (checkout), calls vendor's rpc. */
  peer: TestBus;
  stop(): Promise<void>;
}

/** The real vendor on port 0 with a fresh schema (migrated on start) and a fresh NATS namespace. */
export async function startTestVendor(env: Record<string, string> = {}): Promise<TestVendor> {
  const db = createTestSchema(undefined, 'vendor');
  const peer = await createTestBus('peer');
  const config = loadConfig(vendorConfigSchema, { ...testServiceEnv(db.databaseUrl, peer.namespace), ...env });
  const vendor = await startVendor(config, { log: silentLog }).catch(async (err: unknown) => {
    await Promise.all([peer.close(), db.drop()]);
    throw err;
  });
  await Promise.all(vendor.consumers.map((consumer) => consumer.ready));
  return {
    vendor,
    peer,
    async stop() {
      await vendor.close();
      await peer.close();
      await db.drop();
    },
  };
}

export const asVendor = (userId: string) => signedHeaders({ userId, role: 'vendor' });
export const asCustomer = () => signedHeaders({ userId: randomUUID(), role: 'customer' });

export function storeInput(overrides: Partial<CreateStoreInput> = {}): CreateStoreInput {
  return {
    applicationId: randomUUID(),
    ownerUserId: randomUUID(),
    name: 'Kedai Batik',
    description: 'Hand-drawn batik',
    logoPath: 'stores/logo.png',
    bannerPath: null,
    tin: 'C 0012345678',
    msicCode: '47711',
    sstRegNo: null,
    bankName: 'Maybank',
    bankAccountNumber: '112233445566',
    bankAccountName: 'Kedai Batik Sdn Bhd',
    consent: { accepted: true, acceptedAt: '2026-01-02T03:04:05.000Z', tosVersion: '2026-01' },
    ...overrides,
  };
}

export interface TestStore {
  storeId: string;
  ownerUserId: string;
  headers: () => Record<string, string>;
}

/** A store with its vendor (createStore, as the application approval does). */
export async function givenStore(t: TestVendor, overrides: Partial<CreateStoreInput> = {}): Promise<TestStore> {
  const input = storeInput(overrides);
  const { storeId } = await createStore(t.vendor, input);
  return { storeId, ownerUserId: input.ownerUserId, headers: () => asVendor(input.ownerUserId) };
}

/** The `data` of vendor's outbox events of one type, oldest first. */
export async function outboxEvents<E extends EventContract>(t: TestVendor, contract: E): Promise<EventData<E>[]> {
  const rows = await t.vendor.prisma.outbox.findMany({ where: { type: contract.type }, orderBy: { seq: 'asc' } });
  return rows.map((row) => (row.payload as unknown as EventEnvelope<EventData<E>>).data);
}

export function envelope<E extends EventContract>(contract: E, data: EventData<E>, source = 'checkout'): EventEnvelope<EventData<E>> {
  return { id: randomUUID(), type: contract.type, source, occurredAt: new Date().toISOString(), data };
}

/**
 * Publishes as another service's outbox relay does (message id = event id; another `msgID` gets a
 * copy past JetStream's duplicate window) and waits until vendor's durable `consumer` has handled it.
 */
export async function publishAndWait(
  bus: Bus,
  event: EventEnvelope,
  consumer: string,
  stream: StreamName,
  msgID = event.id,
): Promise<void> {
  const ack = await bus.js.publish(bus.naming.eventSubject(event), JSON.stringify(event), { msgID });
  const jsm = await bus.jsm;
  await waitFor(async () => {
    const info = await jsm.consumers.info(bus.naming.stream(stream), bus.naming.durable('vendor', consumer));
    return info.ack_floor.stream_seq >= ack.seq;
  });
}
