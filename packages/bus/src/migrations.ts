import { join } from 'node:path';
import { migrate, type MigrateOptions, type MigrateResult, type MigrationSet } from '@pasar/db';

/** The bus tables' migrations (outbox, inbox, dead letters): one set, applied into every service schema. */
export const BUS_MIGRATIONS: MigrationSet = { name: 'bus', migrationsDir: join(__dirname, '..', 'migrations') };

/**
 * Migrates a service schema: the bus tables first (recorded as `bus:<folder>`), then the
 * service's own `migrationsDir`. Every service and every test that migrates a service schema uses it.
 */
export function migrateServiceSchema(options: Omit<MigrateOptions, 'before'>): Promise<MigrateResult> {
  return migrate({ ...options, before: [BUS_MIGRATIONS] });
}
