import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NAMES, type ServiceName } from './services';

/** The services whose generated Prisma client (`apps/<name>/src/generated/prisma/client.ts`) is missing. */
export function missingPrismaClients(rootDir: string): ServiceName[] {
  return SERVICE_NAMES.filter((name) => !existsSync(join(rootDir, 'apps', name, 'src', 'generated', 'prisma', 'client.ts')));
}

/**
 * Generates every Prisma client (`turbo run build`, as `npm install`'s postinstall does) when one
 * is missing, e.g. after `npm install --ignore-scripts`. Throws when generation fails.
 */
export function ensurePrismaClients(rootDir: string, say: (line: string) => void): void {
  const missing = missingPrismaClients(rootDir);
  if (missing.length === 0) return;
  say(`no generated Prisma client for ${missing.join(', ')}; generating them (turbo run build)`);
  const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || '/bin/false', TURBO_TELEMETRY_DISABLED: '1' };
  const result = spawnSync('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: rootDir, env, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`generating the Prisma clients failed (turbo run build exited with ${result.status ?? result.signal})`);
  const still = missingPrismaClients(rootDir);
  if (still.length) throw new Error(`generating the Prisma clients left ${still.join(', ')} without one`);
}
