/**
 * Applies one service's migrations and exits: what a deployment runs before rolling out when the
 * services start with MIGRATE_ON_START=false (the Kubernetes migration Jobs in deploy/k8s).
 * The same runner startService uses on start (the bus tables, then the service's own), so both
 * record the same migrations.
 *
 *   node --import tsx packages/service-kit/src/migrate-main.ts [migrationsDir]
 *
 * migrationsDir defaults to apps/$PASAR_APP/prisma/migrations (the image sets PASAR_APP); the
 * schema is the `?schema=` of DATABASE_URL. Exit code 0 when the schema is up to date.
 */
import path from 'node:path';
import { migrateServiceSchema } from '@pasar/bus';
import { schemaFromUrl, type MigrateResult } from '@pasar/db';
import { z } from 'zod';
import { baseConfigSchema, loadConfig } from './config';
import { createLogger } from './logger';

const migrateConfigSchema = z.object({
  DATABASE_URL: baseConfigSchema.shape.DATABASE_URL,
  PASAR_APP: z.string().regex(/^[a-z][a-z0-9-]*$/, 'the app folder name, e.g. checkout').optional(),
  LOG_LEVEL: baseConfigSchema.shape.LOG_LEVEL,
});

/** The migrations folder: the argument, else the image's app (relative to the working directory). */
export function migrationsDirFor(args: string[], app: string | undefined, cwd = process.cwd()): string {
  if (args[0]) return path.resolve(cwd, args[0]);
  if (app) return path.resolve(cwd, 'apps', app, 'prisma', 'migrations');
  throw new Error('name the migrations folder (argument) or set PASAR_APP');
}

/** Reads DATABASE_URL (and PASAR_APP) from env and applies the pending migrations of that schema. */
export async function runMigrations(env: Record<string, string | undefined>, args: string[]): Promise<MigrateResult> {
  const config = loadConfig(migrateConfigSchema, env);
  const migrationsDir = migrationsDirFor(args, config.PASAR_APP);
  const log = createLogger(config.PASAR_APP ? `${config.PASAR_APP}-migrate` : 'migrate', config.LOG_LEVEL);
  const schema = schemaFromUrl(config.DATABASE_URL);
  const result = await migrateServiceSchema({ databaseUrl: config.DATABASE_URL, migrationsDir });
  log.info({ schema, applied: result.applied }, result.applied.length ? 'migrations applied' : 'schema up to date');
  return result;
}

if (require.main === module) {
  runMigrations(process.env, process.argv.slice(2)).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(`migrate: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
