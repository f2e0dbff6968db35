import './fixture/ensure-generated';
import * as path from 'node:path';
import { assertNoDrift, checkDrift, migrate, readDatamodel, type DriftProblem, type PrismaDatamodel } from '../src';
import datamodelJson from './fixture/generated/datamodel.json';
import { Schemas, fixtureMigrationsDir, withClient } from './helpers';

const schemas = new Schemas();
afterAll(() => schemas.dropAll());

const datamodel: PrismaDatamodel = readDatamodel(path.join(__dirname, 'fixture', 'generated'));

/** A freshly migrated schema, changed by `sql` (run with search_path = the schema), then checked. */
async function driftAfter(sql: string): Promise<{ schema: string; problems: DriftProblem[] }> {
  const db = schemas.create('drift');
  await migrate({ databaseUrl: db.databaseUrl, migrationsDir: fixtureMigrationsDir });
  if (sql) await withClient(db.databaseUrl, db.schema, (c) => c.query(sql));
  return { schema: db.schema, problems: await checkDrift({ databaseUrl: db.databaseUrl, datamodel }) };
}

function messages(problems: DriftProblem[]): string[] {
  return problems.map((p) => p.message);
}

describe('the datamodel from the pasar-prisma-datamodel generator', () => {
  it('has both fixture models with the details the drift check needs', () => {
    expect(datamodel.models.map((m) => [m.name, m.dbName])).toEqual([
      ['Customer', 'customer'],
      ['Address', 'address'],
    ]);
    const createdAt = datamodel.models[0].fields.find((f) => f.name === 'createdAt');
    expect(createdAt).toMatchObject({ dbName: 'created_at', isRequired: true, nativeType: ['Timestamptz', ['3']] });
    expect(datamodel.enums).toEqual([
      expect.objectContaining({ name: 'AddressKind', dbName: 'address_kind' }),
    ]);
  });

  it('is the same object when imported as JSON (typed as a PrismaDatamodel)', () => {
    const imported: PrismaDatamodel = datamodelJson;
    expect(imported).toEqual(datamodel);
  });

  it('says how to produce it when missing', () => {
    expect(() => readDatamodel(path.join(__dirname, 'no-such-dir'))).toThrow(/add the `pasar-prisma-datamodel` generator/);
  });
});

describe('checkDrift', () => {
  it('finds no problem right after migrating', async () => {
    const { problems } = await driftAfter('');
    expect(problems).toEqual([]);
  });

  it('passes assertNoDrift right after migrating', async () => {
    const db = schemas.create('drift');
    await migrate({ databaseUrl: db.databaseUrl, migrationsDir: fixtureMigrationsDir });
    await expect(assertNoDrift({ databaseUrl: db.databaseUrl, datamodel })).resolves.toBeUndefined();
  });

  it('reports a dropped column', async () => {
    const { schema, problems } = await driftAfter('ALTER TABLE "address" DROP COLUMN "city"');
    expect(problems).toEqual([
      {
        kind: 'missing-column',
        table: 'address',
        column: 'city',
        message: `table "${schema}"."address": column "city" missing (field Address.city String)`,
      },
    ]);
  });

  it('reports a dropped @map column by its database name', async () => {
    const { schema, problems } = await driftAfter('ALTER TABLE "customer" DROP COLUMN "lifetime_points"');
    expect(messages(problems)).toEqual([
      `table "${schema}"."customer": column "lifetime_points" missing (field Customer.lifetime BigInt)`,
    ]);
  });

  it('reports a missing table', async () => {
    const { schema, problems } = await driftAfter('DROP TABLE "address"');
    expect(problems).toEqual([
      { kind: 'missing-table', table: 'address', message: `table "${schema}"."address" missing (model Address)` },
    ]);
  });

  it('reports changed types, native types included', async () => {
    const { schema, problems } = await driftAfter(`
      ALTER TABLE "address" DROP CONSTRAINT "address_customer_id_fkey";
      ALTER TABLE "customer" ALTER COLUMN "visits" TYPE BIGINT;
      ALTER TABLE "customer" ALTER COLUMN "email" TYPE VARCHAR(100);
      ALTER TABLE "customer" ALTER COLUMN "balance" TYPE DECIMAL(10,3);
      ALTER TABLE "customer" ALTER COLUMN "rating" TYPE REAL;
      ALTER TABLE "customer" ALTER COLUMN "active" TYPE TEXT;
      ALTER TABLE "customer" ALTER COLUMN "profile" TYPE JSON;
      ALTER TABLE "customer" ALTER COLUMN "created_at" TYPE TIMESTAMP(3);
      ALTER TABLE "address" ALTER COLUMN "customer_id" TYPE TEXT;
      ALTER TABLE "address" ALTER COLUMN "kind" DROP DEFAULT;
      ALTER TABLE "address" ALTER COLUMN "kind" TYPE TEXT;
      ALTER TABLE "address" ALTER COLUMN "verified_at" TYPE TIMESTAMPTZ(6);
    `);
    const t = (table: string) => `table "${schema}"."${table}"`;
    expect(problems.every((p) => p.kind === 'type-mismatch')).toBe(true);
    expect(messages(problems)).toEqual([
      `${t('customer')}: column "email" is character varying(100), expected character varying(320) (field Customer.email String @db.VarChar(320))`,
      `${t('customer')}: column "visits" is bigint, expected integer (field Customer.visits Int)`,
      `${t('customer')}: column "balance" is numeric(10,3), expected numeric(12,2) (field Customer.balance Decimal @db.Decimal(12, 2))`,
      `${t('customer')}: column "rating" is real, expected double precision (field Customer.rating Float?)`,
      `${t('customer')}: column "active" is text, expected boolean (field Customer.active Boolean)`,
      `${t('customer')}: column "profile" is json, expected jsonb (field Customer.profile Json?)`,
      `${t('customer')}: column "created_at" is timestamp(3) without time zone, expected timestamp(3) with time zone (field Customer.createdAt DateTime @db.Timestamptz(3))`,
      `${t('address')}: column "customer_id" is text, expected uuid (field Address.customerId String @db.Uuid)`,
      `${t('address')}: column "kind" is text, expected enum "address_kind" (field Address.kind AddressKind)`,
      `${t('address')}: column "verified_at" is timestamp(6) with time zone, expected timestamp(3) with time zone (field Address.verifiedAt DateTime? @db.Timestamptz(3))`,
    ]);
  });

  it('reports nullability that does not match optionality, both ways', async () => {
    const { schema, problems } = await driftAfter(`
      ALTER TABLE "address" ALTER COLUMN "city" DROP NOT NULL;
      ALTER TABLE "customer" ALTER COLUMN "rating" SET NOT NULL;
    `);
    expect(problems).toEqual([
      {
        kind: 'nullability-mismatch',
        table: 'customer',
        column: 'rating',
        message: `table "${schema}"."customer": column "rating" is NOT NULL, expected nullable (field Customer.rating Float? is optional)`,
      },
      {
        kind: 'nullability-mismatch',
        table: 'address',
        column: 'city',
        message: `table "${schema}"."address": column "city" is nullable, expected NOT NULL (field Address.city String is required)`,
      },
    ]);
  });

  it('reports enum types and values that differ', async () => {
    const { schema, problems } = await driftAfter(`
      ALTER TABLE "address" ALTER COLUMN "kind" DROP DEFAULT;
      ALTER TYPE "address_kind" RENAME TO "address_kind_old";
      CREATE TYPE "address_kind" AS ENUM ('HOME', 'OFFICE');
      ALTER TABLE "address" ALTER COLUMN "kind" TYPE "address_kind" USING "kind"::text::"address_kind";
      DROP TYPE "address_kind_old";
    `);
    expect(messages(problems)).toEqual([
      `enum "${schema}"."address_kind": value "WORK" missing (enum AddressKind)`,
      `enum "${schema}"."address_kind": value "OFFICE" is not declared in enum AddressKind`,
    ]);
  });

  it('reports a NOT NULL column without default that no field maps to', async () => {
    const { schema, problems } = await driftAfter(`
      ALTER TABLE "address" ADD COLUMN "country" TEXT NOT NULL;
      ALTER TABLE "address" ADD COLUMN "note" TEXT;
      ALTER TABLE "address" ADD COLUMN "region" TEXT NOT NULL DEFAULT 'MY';
    `);
    expect(problems).toEqual([
      {
        kind: 'unmapped-required-column',
        table: 'address',
        column: 'country',
        message: `table "${schema}"."address": column "country" is NOT NULL without a default but model Address has no field for it (inserts through Prisma would fail)`,
      },
    ]);
  });

  it('checks the schema named by the URL, not another one', async () => {
    const empty = schemas.create('drift');
    const problems = await checkDrift({ databaseUrl: empty.databaseUrl, datamodel });
    expect(messages(problems)).toEqual([
      `enum "${empty.schema}"."address_kind" missing (enum AddressKind)`,
      `table "${empty.schema}"."customer" missing (model Customer)`,
      `table "${empty.schema}"."address" missing (model Address)`,
    ]);
  });

  it('assertNoDrift throws one error listing every problem', async () => {
    const db = schemas.create('drift');
    await migrate({ databaseUrl: db.databaseUrl, migrationsDir: fixtureMigrationsDir });
    await withClient(db.databaseUrl, db.schema, (c) =>
      c.query('ALTER TABLE "address" DROP COLUMN "city"; ALTER TABLE "customer" ALTER COLUMN "name" DROP NOT NULL'),
    );
    await expect(assertNoDrift({ databaseUrl: db.databaseUrl, datamodel })).rejects.toThrow(
      `Prisma schema and database schema "${db.schema}" differ (2 problems):\n` +
        `  - table "${db.schema}"."customer": column "name" is nullable, expected NOT NULL (field Customer.name String is required)\n` +
        `  - table "${db.schema}"."address": column "city" missing (field Address.city String)`,
    );
  });
});
