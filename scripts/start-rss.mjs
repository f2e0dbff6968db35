#!/usr/bin/env node
// Idle memory of each service under `npm start` (TypeScript through tsx): starts the stack on free
// ports in a throw-away namespace and schema prefix, waits until it is up and then SETTLE_S
// seconds (default 20), reads each service process's resident set size from /proc, stops the
// stack with one Ctrl-C. Linux only. `node scripts/start-rss.mjs`
/* global setTimeout */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICES = ['gateway', 'checkout', 'b2b', 'vendor', 'admin', 'notifier'];
const settleMs = Number(process.env.SETTLE_S ?? 20) * 1000;
const run = `rss_${randomBytes(4).toString('hex')}`;
const child = spawn('npm', ['start', '--', '--free-ports', '--namespace', run, '--schema-prefix', run, '--drop-data-on-stop', '--no-color'], {
  cwd: root,
  detached: true,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, NO_COLOR: '1' },
});
const exited = new Promise((resolve) => child.once('exit', resolve));
let output = '';
const ready = new Promise((resolve, reject) => {
  child.stdout.on('data', (chunk) => {
    output += chunk;
    if (/Press Ctrl-C to stop\./.test(output)) resolve();
  });
  child.stderr.on('data', (chunk) => (output += chunk));
  void exited.then(() => reject(new Error(`npm start ended before it was up:\n${output.slice(-3000)}`)));
});

/** VmRSS in MiB of the process running apps/<name>/src/main.ts. */
function rssOf(name) {
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (!cmdline.includes(join('apps', name, 'src', 'main.ts'))) continue;
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
      return Math.round((kb / 1024) * 10) / 10;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

let code = 0;
try {
  await ready;
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const rows = Object.fromEntries(SERVICES.map((name) => [name, rssOf(name)]));
  for (const [name, mib] of Object.entries(rows)) console.log(`start-rss: ${name.padEnd(9)} ${String(mib).padStart(6)} MiB idle under npm start`);
  console.log(`start-rss: total ${Math.round(Object.values(rows).reduce((a, b) => a + (b ?? 0), 0))} MiB`);
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  code = 1;
} finally {
  try {
    process.kill(-child.pid, 'SIGINT');
  } catch {
    // gone
  }
  await exited;
}
process.exit(code);
