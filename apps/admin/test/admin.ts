import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventContract, EventData, EventEnvelope } from '@pasar/contracts';
import { createTestSchema, type TestSchema } from '@pasar/db';
import { loadConfig } from '@pasar/service-kit';
import { createTestBus, signedHeaders, silentLog, testServiceEnv, type TestBus } from '@pasar/testkit';
import { startAdmin, type AdminService } from '../src/app';
import { adminConfigSchema, type AdminConfig } from '../src/config';
import { adminDeps } from '../src/deps';

export interface TestAdmin {
  admin: AdminService;
  config: AdminConfig;
  /** Other services on admin's namespace: answers rpc (identity, vendor, notifier), publishes events. */
  peer: TestBus;
  db: TestSchema;
  /** Stops this admin and starts a new one on the same schema, namespace and storage (a restart). */
  restart(env?: Record<string, string>): Promise<AdminService>;
  stop(): Promise<void>;
}

/** The real admin on port 0 with a fresh schema (migrated on start), NATS namespace and storage directory. */
export async function startTestAdmin(env: Record<string, string> = {}): Promise<TestAdmin> {
  const db = createTestSchema(undefined, 'admin');
  const peer = await createTestBus('peer');
  const storageDir = await mkdtemp(join(tmpdir(), 'admin-storage-'));
  const configOf = (extra: Record<string, string>) =>
    loadConfig(adminConfigSchema, { ...testServiceEnv(db.databaseUrl, peer.namespace), STORAGE_DIR: storageDir, ...env, ...extra });
  let config = configOf({});
  let admin = await startAdmin(config, { log: silentLog }).catch(async (err: unknown) => {
    await Promise.all([peer.close(), db.drop()]);
    throw err;
  });
  await Promise.all(admin.consumers.map((consumer) => consumer.ready));
  const t: TestAdmin = {
    admin,
    config,
    peer,
    db,
    async restart(extra = {}) {
      await admin.close();
      config = configOf(extra);
      admin = await startAdmin(config, { log: silentLog });
      await Promise.all(admin.consumers.map((consumer) => consumer.ready));
      t.admin = admin;
      t.config = config;
      return admin;
    },
    async stop() {
      await admin.close();
      await peer.close();
      await db.drop();
      await rm(storageDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** The running admin's deps (carriers, storage), as its features use them. */
export const depsOf = (t: TestAdmin) => adminDeps(t.admin);

export const asAdmin = (userId: string = randomUUID()) => signedHeaders({ userId, role: 'admin' });
export const asCustomer = (userId: string = randomUUID()) => signedHeaders({ userId, role: 'customer' });
export const asVendor = (userId: string = randomUUID()) => signedHeaders({ userId, role: 'vendor' });

/** The `data` of admin's outbox events of one type, oldest first. */
export async function outboxEvents<E extends EventContract>(t: TestAdmin, contract: E): Promise<EventData<E>[]> {
  const rows = await t.admin.prisma.outbox.findMany({ where: { type: contract.type }, orderBy: { seq: 'asc' } });
  return rows.map((row) => (row.payload as unknown as EventEnvelope<EventData<E>>).data);
}
