export {
  DEFAULT_SCHEMA,
  assertSchemaName,
  connectionStringWithoutSchema,
  isValidSchemaName,
  quoteIdent,
  schemaFromUrl,
  withSchema,
} from './url';
export { createPrisma, createPrismaAdapter, createSqlPool, sqlPoolOf } from './prisma';
export type { PrismaClientClass, PrismaClientOptionsWithAdapter, SqlPool, SqlPoolOptions } from './prisma';
export { MIGRATIONS_TABLE, PREVIOUS_CHECKSUMS_FILE, functionsDirFor, migrate, migrationChecksum, migrationLockKey, readFunctions, readMigrations } from './migrate';
export type { FunctionFile, MigrateLogger, MigrateOptions, MigrateResult, MigrationFile, MigrationSet } from './migrate';
export { DATAMODEL_FILE, readDatamodel } from './datamodel';
export type { DatamodelEnum, DatamodelField, DatamodelModel, PrismaDatamodel } from './datamodel';
export { assertNoDrift, checkDrift, checkFunctions } from './drift';
export type { CheckDriftOptions, CheckFunctionsOptions, DriftProblem, DriftProblemKind } from './drift';
export { DEFAULT_TEST_DATABASE_URL, createTestSchema } from './testing';
export type { TestSchema } from './testing';
export { isConnectionFailure, isDatabaseBusy, isUniqueViolation, sqlStateOf } from './errors';
export { lockKey, runStatement } from './locks';
export { Batcher } from './batcher';
export type { BatcherOptions } from './batcher';
export type { RawTx, SqlTx } from './locks';
