#!/usr/bin/env node
// `npm test`: generate the Prisma clients, lint, typecheck, then every jest suite (unit,
// integration, e2e) against the real PostgreSQL and NATS. Ends with `N passed, N failed`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/false', FORCE_COLOR: '0', TURBO_TELEMETRY_DISABLED: '1' };
const extraJestArgs = process.argv.slice(2);

function step(name, cmd, args) {
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env });
  const ok = r.status === 0;
  console.log(`=== ${name}: ${ok ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return ok;
}

const failedSteps = [];
if (!step('generate', 'npx', ['turbo', 'run', 'build', '--output-logs=errors-only'])) failedSteps.push('generate');
if (!step('lint', 'npx', ['eslint', '.', '--max-warnings=0'])) failedSteps.push('lint');
if (!step('typecheck', 'npx', ['turbo', 'run', 'typecheck', '--output-logs=errors-only'])) failedSteps.push('typecheck');

const results = 'test-results.json';
rmSync(results, { force: true });
step('jest', 'npx', ['jest', '--json', `--outputFile=${results}`, ...extraJestArgs]);

let passed = 0;
let failed = 0;
if (existsSync(results)) {
  const report = JSON.parse(readFileSync(results, 'utf8'));
  passed = report.numPassedTests;
  failed = report.numFailedTests + report.numRuntimeErrorTestSuites;
  const pending = report.numPendingTests + report.numTodoTests;
  if (pending > 0) {
    console.log(`${pending} skipped or todo tests are not allowed`);
    failed += pending;
  }
} else {
  failed += 1;
  console.log('jest produced no results');
}
failed += failedSteps.length;
if (failedSteps.length) console.log(`failed steps: ${failedSteps.join(', ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
