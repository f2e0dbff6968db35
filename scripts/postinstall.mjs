#!/usr/bin/env node
// Root `postinstall`: generates the Prisma clients (`turbo run build`) so that a fresh clone runs
// `npm start` right after `npm install`. The schema engine is never needed to generate a client.
// Skipped where the sources are not there yet (a Docker layer that installs from the manifests
// only) or when PASAR_SKIP_GENERATE=true.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (/^(1|true|yes)$/i.test(process.env.PASAR_SKIP_GENERATE ?? '')) {
  console.log('postinstall: PASAR_SKIP_GENERATE is set; Prisma clients not generated');
  process.exit(0);
}
if (!existsSync(join(root, 'apps', 'gateway', 'prisma', 'schema.prisma'))) {
  console.log('postinstall: no sources beside the manifests; Prisma clients not generated');
  process.exit(0);
}
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || '/bin/false',
  TURBO_TELEMETRY_DISABLED: '1',
};
console.log('postinstall: generating the Prisma clients (turbo run build)');
const result = spawnSync('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, env, stdio: 'inherit' });
process.exit(result.status ?? 1);
