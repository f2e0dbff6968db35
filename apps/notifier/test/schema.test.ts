import path from 'node:path';
import { migrateServiceSchema } from '@pasar/bus';
import { assertNoDrift, checkDrift, createPrisma, createTestSchema, readDatamodel, type TestSchema } from '@pasar/db';
import { MIGRATIONS_DIR } from '../src/app';
import { PrismaClient } from '../src/generated/prisma/client';

const GENERATED_DIR = path.join(__dirname, '..', 'src', 'generated', 'prisma');

let db: TestSchema;

beforeAll(() => {
  db = createTestSchema(undefined, 'notifier');
});

afterAll(async () => {
  await db?.drop();
});

describe('notifier schema', () => {
  it('migrates a fresh schema, and a second run applies nothing', async () => {
    const first = await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: MIGRATIONS_DIR });
    expect(first.applied.length).toBeGreaterThan(0);
    const second = await migrateServiceSchema({ databaseUrl: db.databaseUrl, migrationsDir: MIGRATIONS_DIR });
    expect(second.applied).toEqual([]);
  });

  it('has no drift from the generated Prisma client', async () => {
    const datamodel = readDatamodel(GENERATED_DIR);
    expect(await checkDrift({ databaseUrl: db.databaseUrl, datamodel })).toEqual([]);
    await assertNoDrift({ databaseUrl: db.databaseUrl, datamodel });
  });

  it('keeps one log row per messageId', async () => {
    const prisma = createPrisma(PrismaClient, db.databaseUrl);
    try {
      const rows = await prisma.$queryRaw<{ indexdef: string }[]>`
        SELECT indexdef FROM pg_indexes WHERE schemaname = ${db.schema} AND tablename = 'email_log'`;
      expect(rows.map((r) => r.indexdef)).toEqual(expect.arrayContaining([expect.stringMatching(/UNIQUE INDEX .* \(message_id\)/)]));
    } finally {
      await prisma.$disconnect();
    }
  });
});
