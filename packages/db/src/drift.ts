import { Client } from 'pg';
import { readFunctions } from './migrate';
import type { DatamodelEnum, DatamodelField, DatamodelModel, PrismaDatamodel } from './datamodel';
import { assertSchemaName, connectionStringWithoutSchema, schemaFromUrl } from './url';

export type DriftProblemKind =
  | 'missing-table'
  | 'missing-column'
  | 'type-mismatch'
  | 'nullability-mismatch'
  | 'unmapped-required-column'
  | 'missing-enum'
  | 'enum-values'
  | 'function-without-source'
  | 'function-source-differs';

/** One difference between what the Prisma schema declares and what the migrated database has. */
export interface DriftProblem {
  kind: DriftProblemKind;
  /** Table (or enum type) name in the database. */
  table: string;
  column?: string;
  /** Readable sentence, e.g. `table "checkout"."address": column "city" missing (field Address.city)`. */
  message: string;
}

export interface CheckDriftOptions {
  /** PostgreSQL URL; `?schema=` names the schema to inspect (default `public`). */
  databaseUrl: string;
  /** The Prisma datamodel: `readDatamodel(generatedDir)`, the generated `datamodel.json`, or `Prisma.dmmf.datamodel`. */
  datamodel: PrismaDatamodel;
}

interface ColumnRow {
  table_name: string;
  column_name: string;
  data_type: string;
  udt_schema: string;
  udt_name: string;
  nullable: boolean;
  has_default: boolean;
  character_maximum_length: number | null;
  numeric_precision: number | null;
  numeric_scale: number | null;
  datetime_precision: number | null;
  display_type: string;
}

/** A PostgreSQL type as Prisma's `@db.*` native types name it. */
interface NativeTypeSpec {
  /** `pg_type.typname` (information_schema `udt_name`). */
  udt: string;
  /** Readable SQL name. */
  sql: string;
  /** Which column attribute the `@db.Type(args)` arguments constrain. */
  args: 'none' | 'length' | 'precision-scale' | 'time-precision';
}

const NATIVE_TYPES: Record<string, NativeTypeSpec> = {
  Text: { udt: 'text', sql: 'text', args: 'none' },
  VarChar: { udt: 'varchar', sql: 'character varying', args: 'length' },
  Char: { udt: 'bpchar', sql: 'character', args: 'length' },
  Uuid: { udt: 'uuid', sql: 'uuid', args: 'none' },
  Xml: { udt: 'xml', sql: 'xml', args: 'none' },
  Inet: { udt: 'inet', sql: 'inet', args: 'none' },
  Citext: { udt: 'citext', sql: 'citext', args: 'none' },
  Bit: { udt: 'bit', sql: 'bit', args: 'length' },
  VarBit: { udt: 'varbit', sql: 'bit varying', args: 'length' },
  Integer: { udt: 'int4', sql: 'integer', args: 'none' },
  SmallInt: { udt: 'int2', sql: 'smallint', args: 'none' },
  Oid: { udt: 'oid', sql: 'oid', args: 'none' },
  BigInt: { udt: 'int8', sql: 'bigint', args: 'none' },
  DoublePrecision: { udt: 'float8', sql: 'double precision', args: 'none' },
  Real: { udt: 'float4', sql: 'real', args: 'none' },
  Decimal: { udt: 'numeric', sql: 'numeric', args: 'precision-scale' },
  Money: { udt: 'money', sql: 'money', args: 'none' },
  Timestamp: { udt: 'timestamp', sql: 'timestamp without time zone', args: 'time-precision' },
  Timestamptz: { udt: 'timestamptz', sql: 'timestamp with time zone', args: 'time-precision' },
  Date: { udt: 'date', sql: 'date', args: 'none' },
  Time: { udt: 'time', sql: 'time without time zone', args: 'time-precision' },
  Timetz: { udt: 'timetz', sql: 'time with time zone', args: 'time-precision' },
  Boolean: { udt: 'bool', sql: 'boolean', args: 'none' },
  Json: { udt: 'json', sql: 'json', args: 'none' },
  JsonB: { udt: 'jsonb', sql: 'jsonb', args: 'none' },
  ByteA: { udt: 'bytea', sql: 'bytea', args: 'none' },
};

/** The native type Prisma uses for a scalar without `@db.*` (what `prisma migrate` would create). */
const DEFAULT_NATIVE_TYPE: Record<string, string> = {
  String: 'Text',
  Int: 'Integer',
  BigInt: 'BigInt',
  Float: 'DoublePrecision',
  Decimal: 'Decimal',
  Boolean: 'Boolean',
  DateTime: 'Timestamp',
  Json: 'JsonB',
  Bytes: 'ByteA',
};

interface ExpectedType {
  udt: string;
  sql: string;
  /** True when the column's length / precision / scale differs from the declared `@db.Type(args)`. */
  argsMismatch: (column: ColumnRow) => boolean;
  isEnum: boolean;
}

function nativeTypeOf(field: DatamodelField): { name: string; args: string[] } | null {
  const native = field.nativeType;
  if (!native || typeof native[0] !== 'string') return null;
  const args = Array.isArray(native[1]) ? native[1].map((a: unknown) => String(a)) : [];
  return { name: native[0], args };
}

function expectedTypeOf(field: DatamodelField, enumDbNames: Map<string, string>): ExpectedType | null {
  if (field.kind === 'enum') {
    const udt = enumDbNames.get(field.type) ?? field.type;
    return { udt, sql: `enum "${udt}"`, argsMismatch: () => false, isEnum: true };
  }
  if (field.kind !== 'scalar') return null;
  const native = nativeTypeOf(field) ?? { name: DEFAULT_NATIVE_TYPE[field.type] ?? '', args: [] };
  const spec = NATIVE_TYPES[native.name];
  if (!spec) return null; // a native type we do not know: do not guess
  const n = native.args.map(Number);
  let sql = spec.sql;
  let argsMismatch: (c: ColumnRow) => boolean = () => false;
  if (n.length > 0 && n.every(Number.isFinite)) {
    if (spec.args === 'length') {
      sql = `${spec.sql}(${n[0]})`;
      argsMismatch = (c) => Number(c.character_maximum_length) !== n[0];
    } else if (spec.args === 'precision-scale') {
      sql = `${spec.sql}(${n.join(',')})`;
      argsMismatch = (c) =>
        Number(c.numeric_precision) !== n[0] || (n.length > 1 && Number(c.numeric_scale) !== n[1]);
    } else if (spec.args === 'time-precision') {
      sql = spec.sql.replace(/^(timestamp|time)/, `$1(${n[0]})`); // as format_type() spells it
      argsMismatch = (c) => Number(c.datetime_precision) !== n[0];
    }
  }
  return { udt: spec.udt, sql, argsMismatch, isEnum: false };
}

function fieldLabel(model: DatamodelModel, field: DatamodelField): string {
  const native = nativeTypeOf(field);
  const nativeText = native ? ` @db.${native.name}${native.args.length > 0 ? `(${native.args.join(', ')})` : ''}` : '';
  const type = `${field.type}${field.isList ? '[]' : field.isRequired ? '' : '?'}`;
  return `field ${model.name}.${field.name} ${type}${nativeText}`;
}

function checkColumn(
  qualified: string,
  model: DatamodelModel,
  field: DatamodelField,
  column: ColumnRow,
  schema: string,
  enumDbNames: Map<string, string>,
): DriftProblem[] {
  const problems: DriftProblem[] = [];
  const at = `table ${qualified}: column "${column.column_name}"`;
  const base = { table: model.dbName ?? model.name, column: column.column_name };
  const expected = expectedTypeOf(field, enumDbNames);
  if (expected) {
    let typeOk: boolean;
    if (field.isList) {
      typeOk = column.data_type === 'ARRAY' && column.udt_name === `_${expected.udt}`;
    } else if (expected.isEnum) {
      typeOk = column.data_type === 'USER-DEFINED' && column.udt_name === expected.udt && column.udt_schema === schema;
    } else {
      typeOk = column.udt_name === expected.udt && !expected.argsMismatch(column);
    }
    if (!typeOk) {
      problems.push({
        ...base,
        kind: 'type-mismatch',
        message: `${at} is ${column.display_type}, expected ${expected.sql}${field.isList ? '[]' : ''} (${fieldLabel(model, field)})`,
      });
    }
  }
  // Scalar lists have no NOT NULL requirement in Prisma's own migrations; skip them.
  if (!field.isList && field.isRequired === column.nullable) {
    problems.push({
      ...base,
      kind: 'nullability-mismatch',
      message: field.isRequired
        ? `${at} is nullable, expected NOT NULL (${fieldLabel(model, field)} is required)`
        : `${at} is NOT NULL, expected nullable (${fieldLabel(model, field)} is optional)`,
    });
  }
  return problems;
}

function checkEnum(schema: string, declared: DatamodelEnum, inDb: Map<string, string[]>): DriftProblem[] {
  const typeName = declared.dbName ?? declared.name;
  const qualified = `"${schema}"."${typeName}"`;
  const labels = inDb.get(typeName);
  if (!labels) {
    return [{ kind: 'missing-enum', table: typeName, message: `enum ${qualified} missing (enum ${declared.name})` }];
  }
  const wanted = declared.values.map((v) => v.dbName ?? v.name);
  const problems: DriftProblem[] = [];
  for (const value of wanted) {
    if (!labels.includes(value)) {
      problems.push({
        kind: 'enum-values',
        table: typeName,
        message: `enum ${qualified}: value "${value}" missing (enum ${declared.name})`,
      });
    }
  }
  for (const label of labels) {
    if (!wanted.includes(label)) {
      problems.push({
        kind: 'enum-values',
        table: typeName,
        message: `enum ${qualified}: value "${label}" is not declared in enum ${declared.name}`,
      });
    }
  }
  return problems;
}

/**
 * Compares the Prisma datamodel with the tables of the URL's schema and lists every difference:
 * missing tables and columns, column types that do not match the field's type (`@db.*` native
 * types included: length, precision/scale, time precision when declared), nullability that does
 * not match optionality, NOT NULL columns without default that no field maps to (Prisma inserts
 * would fail), and enum types or values that differ. Relation fields and `Unsupported` fields are
 * skipped; extra tables and nullable/defaulted extra columns are allowed.
 */
export async function checkDrift(options: CheckDriftOptions): Promise<DriftProblem[]> {
  const { databaseUrl, datamodel } = options;
  const schema = assertSchemaName(schemaFromUrl(databaseUrl));
  const client = new Client({ connectionString: connectionStringWithoutSchema(databaseUrl) });
  client.on('error', () => undefined);
  await client.connect();
  let columns: ColumnRow[];
  let tableNames: Set<string>;
  let enumLabels: Map<string, string[]>;
  try {
    const tables = await client.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
      [schema],
    );
    tableNames = new Set(tables.rows.map((r) => r.table_name));
    columns = (
      await client.query<ColumnRow>(
        `SELECT c.table_name, c.column_name, c.data_type, c.udt_schema, c.udt_name,
                c.is_nullable = 'YES' AS nullable,
                (c.column_default IS NOT NULL OR c.is_identity = 'YES' OR c.is_generated = 'ALWAYS') AS has_default,
                c.character_maximum_length::int AS character_maximum_length,
                c.numeric_precision::int AS numeric_precision,
                c.numeric_scale::int AS numeric_scale,
                c.datetime_precision::int AS datetime_precision,
                format_type(a.atttypid, a.atttypmod) AS display_type
           FROM information_schema.columns c
           JOIN pg_catalog.pg_namespace n ON n.nspname = c.table_schema
           JOIN pg_catalog.pg_class r ON r.relnamespace = n.oid AND r.relname = c.table_name
           JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attname = c.column_name
          WHERE c.table_schema = $1
          ORDER BY c.table_name, c.ordinal_position`,
        [schema],
      )
    ).rows;
    const enums = await client.query<{ typname: string; labels: string[] }>(
      `SELECT t.typname, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
         FROM pg_catalog.pg_type t
         JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
         JOIN pg_catalog.pg_enum e ON e.enumtypid = t.oid
        WHERE n.nspname = $1
        GROUP BY t.typname`,
      [schema],
    );
    enumLabels = new Map(enums.rows.map((r) => [r.typname, r.labels]));
  } finally {
    await client.end();
  }

  const enumDbNames = new Map((datamodel.enums ?? []).map((e) => [e.name, e.dbName ?? e.name]));
  const problems: DriftProblem[] = [];
  for (const declared of datamodel.enums ?? []) problems.push(...checkEnum(schema, declared, enumLabels));

  for (const model of datamodel.models) {
    const tableName = model.dbName ?? model.name;
    const qualified = `"${schema}"."${tableName}"`;
    if (!tableNames.has(tableName)) {
      problems.push({ kind: 'missing-table', table: tableName, message: `table ${qualified} missing (model ${model.name})` });
      continue;
    }
    const tableColumns = new Map(columns.filter((c) => c.table_name === tableName).map((c) => [c.column_name, c]));
    const mapped = new Set<string>();
    for (const field of model.fields) {
      if (field.kind !== 'scalar' && field.kind !== 'enum') continue;
      const columnName = field.dbName ?? field.name;
      mapped.add(columnName);
      const column = tableColumns.get(columnName);
      if (!column) {
        problems.push({
          kind: 'missing-column',
          table: tableName,
          column: columnName,
          message: `table ${qualified}: column "${columnName}" missing (${fieldLabel(model, field)})`,
        });
        continue;
      }
      problems.push(...checkColumn(qualified, model, field, column, schema, enumDbNames));
    }
    // Columns the model does not know about: fine unless an insert through Prisma would fail.
    for (const field of model.fields) if (field.kind === 'unsupported') mapped.add(field.dbName ?? field.name);
    for (const column of tableColumns.values()) {
      if (!mapped.has(column.column_name) && !column.nullable && !column.has_default) {
        problems.push({
          kind: 'unmapped-required-column',
          table: tableName,
          column: column.column_name,
          message: `table ${qualified}: column "${column.column_name}" is NOT NULL without a default but model ${model.name} has no field for it (inserts through Prisma would fail)`,
        });
      }
    }
  }
  return problems;
}

/** `checkDrift`, throwing one error that lists every problem (for service tests and boot checks). */
export async function assertNoDrift(options: CheckDriftOptions): Promise<void> {
  const problems = await checkDrift(options);
  if (problems.length > 0) {
    const schema = schemaFromUrl(options.databaseUrl);
    throw new Error(
      `Prisma schema and database schema "${schema}" differ (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
        problems.map((p) => `  - ${p.message}`).join('\n'),
    );
  }
}

export interface CheckFunctionsOptions {
  /** PostgreSQL URL; `?schema=` names the schema to inspect. */
  databaseUrl: string;
  /** The folders of SQL function source files applied into that schema (the bus's and the service's). */
  functionsDirs: readonly string[];
}

/** The body of a function source file: what PostgreSQL keeps as `prosrc` (between the `$$`). */
function bodyOf(sql: string): string | undefined {
  return /\$\$([\s\S]*)\$\$/.exec(sql)?.[1];
}

/**
 * Compares the functions of the URL's schema with their source files (migrate applies
 * `sql/functions/<name>.sql` after the migrations): every function in the schema has a file of
 * its name, and its live body is the file's. A function found only in a migration, or changed by
 * hand, is a problem.
 */
export async function checkFunctions(options: CheckFunctionsOptions): Promise<DriftProblem[]> {
  const schema = assertSchemaName(schemaFromUrl(options.databaseUrl));
  const files = new Map<string, string>();
  for (const dir of options.functionsDirs) for (const file of await readFunctions(dir)) files.set(file.name.replace(/\.sql$/, ''), file.sql);
  const client = new Client({ connectionString: connectionStringWithoutSchema(options.databaseUrl) });
  client.on('error', () => undefined);
  await client.connect();
  let live: { name: string; body: string }[];
  try {
    live = (
      await client.query<{ name: string; body: string }>(
        `SELECT p.proname AS name, p.prosrc AS body
           FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = $1 AND p.prokind = 'f'
            AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
          ORDER BY p.proname`,
        [schema],
      )
    ).rows;
  } finally {
    await client.end();
  }
  const problems: DriftProblem[] = [];
  for (const fn of live) {
    const file = files.get(fn.name);
    if (file === undefined) {
      problems.push({ kind: 'function-without-source', table: fn.name, message: `function "${schema}"."${fn.name}" has no source file sql/functions/${fn.name}.sql` });
    } else if (bodyOf(file) !== fn.body) {
      problems.push({ kind: 'function-source-differs', table: fn.name, message: `function "${schema}"."${fn.name}" is not what sql/functions/${fn.name}.sql defines` });
    }
  }
  for (const name of files.keys()) {
    if (!live.some((fn) => fn.name === name)) {
      problems.push({ kind: 'function-source-differs', table: name, message: `sql/functions/${name}.sql defines no function "${name}" in schema "${schema}"` });
    }
  }
  return problems;
}
