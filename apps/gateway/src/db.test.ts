import path from 'node:path';
import { migrateServiceSchema } from '@pasar/bus';
import { assertNoDrift, checkDrift, createTestSchema, readDatamodel } from '@pasar/db';
import { MIGRATIONS_DIR } from './db';

describe('identity schema', () => {
  const db = createTestSchema(undefined, 'gateway');
  afterAll(() => db.drop());

  it('migrations create what the Prisma schema declares (no drift)', async () => {
    const { applied } = await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: MIGRATIONS_DIR });
    expect(applied.length).toBeGreaterThan(0);
    const datamodel = readDatamodel(path.join(__dirname, 'generated', 'prisma'));
    expect(datamodel.models.map((m) => m.dbName ?? m.name).sort()).toEqual(['inbox', 'outbox', 'parked_message', 'sessions', 'users']);
    await expect(checkDrift({ databaseUrl: db.databaseUrl, datamodel })).resolves.toEqual([]);
    await assertNoDrift({ databaseUrl: db.databaseUrl, datamodel });
  });

  it('migrating again applies nothing', async () => {
    const { applied } = await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: MIGRATIONS_DIR });
    expect(applied).toEqual([]);
  });
});
