// The Docker helpers of the container scripts (scripts/compose-smoke.mjs, scripts/cluster-chaos.mjs):
// running commands, the engine and its compose, the third-party images (pulled, or the local
// stand-ins of deploy/compose/offline/build.sh), the service images built from the one
// Dockerfile, the NATS users, a compose project (its commands, containers, health, logs) and
// free ports.
/* global setTimeout, clearTimeout, fetch, AbortSignal, Headers, URLSearchParams */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The six apps built from the one Dockerfile, with their ports. */
export const SERVICES = { gateway: 8080, checkout: 4001, b2b: 4002, vendor: 4003, admin: 4004, notifier: 4005 };
const UPSTREAM = { NODE_IMAGE: 'node:20-bookworm-slim', POSTGRES_IMAGE: 'postgres:16', NATS_IMAGE: 'nats:2.10-alpine', MAIL_IMAGE: 'axllent/mailpit' };
const STAND_IN = { NODE_IMAGE: ['node', 'pasar-local/node:20'], POSTGRES_IMAGE: ['postgres', 'pasar-local/postgres:15'], NATS_IMAGE: ['nats', 'pasar-local/nats:2.9'], MAIL_IMAGE: ['mail', 'pasar-local/mailcatcher'] };
/** Debian's client where present: it speaks the Debian engine's API; another client negotiates down. */
export const docker = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const seconds = (ms) => (ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(1)} s`);
/** The last `lines` lines of a command's output. */
const tail = (out, lines) => out.trim().split('\n').slice(-lines).join('\n');

/** Runs a command; resolves { code, out } (stdout + stderr), never rejects. */
export function run(cmd, args, { env, cwd = root, timeoutMs = 20 * 60_000, input, echo = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      if (echo) process.stdout.write(chunk);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    // a command that exits before reading its input (kill, docker stop) must not crash the run
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
    const timer = setTimeout(() => {
      out += `\n(killed after ${seconds(timeoutMs)})`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: -1, out: `${out}${err.message}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, out });
    });
  });
}

/** Runs a command; rejects with its last lines when it exits non-zero. */
export async function must(cmd, args, options) {
  const result = await run(cmd, args, options);
  if (result.code !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${result.code}):\n${tail(result.out, 40)}`);
  return result.out;
}

// ------------------------------------------------------------------ the engine and compose
/** The engine's version, or undefined when no engine answers. */
export async function engineVersion() {
  const result = await run(docker, ['version', '--format', '{{.Server.Version}}'], { timeoutMs: 20_000 });
  return result.code === 0 ? result.out.trim() : undefined;
}

/** Installs Debian's docker.io (and docker-compose) when missing: the smoke's fresh machine. */
export async function installDocker(say) {
  const need = [];
  if (spawnSync('sh', ['-c', 'command -v dockerd']).status !== 0) need.push('docker.io');
  if (spawnSync('sh', ['-c', 'command -v docker-compose']).status !== 0 && spawnSync(docker, ['compose', 'version']).status !== 0) need.push('docker-compose');
  if (!need.length) return;
  say(`installing ${need.join(' ')} (apt)`);
  await must('apt-get', ['update', '-qq']);
  await must('apt-get', ['install', '-y', '-qq', ...need], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
}

/** Starts a dockerd logging to `logFile` and waits until it answers; resolves { pid, stop() }. */
export async function startDockerd(logFile) {
  const daemon = spawn('dockerd', [], { detached: true, stdio: ['ignore', openSync(logFile, 'a'), openSync(logFile, 'a')] });
  daemon.unref();
  const started = {
    pid: daemon.pid,
    /** SIGTERM, then up to 30 s for it to exit. */
    async stop() {
      try {
        process.kill(daemon.pid, 'SIGTERM');
      } catch {
        return;
      }
      for (let i = 0; i < 30; i++) {
        try {
          process.kill(daemon.pid, 0);
        } catch {
          return;
        }
        await sleep(1000);
      }
    },
  };
  for (let i = 0; i < 60 && !(await engineVersion()); i++) await sleep(1000);
  if (!(await engineVersion())) {
    await started.stop();
    throw new Error(`dockerd did not answer within 60 s:\n${readFileSync(logFile, 'utf8').slice(-3000)}`);
  }
  return started;
}

/** `docker compose` (v2) where it answers, else `docker-compose` (v1.29): [cmd, ...prefixArgs]. */
export async function composeCommand() {
  if ((await run(docker, ['compose', 'version'])).code === 0) return [docker, 'compose'];
  if ((await run('docker-compose', ['version'])).code === 0) return ['docker-compose'];
  throw new Error('neither `docker compose` nor `docker-compose` is installed (apt-get install docker-compose)');
}

// ------------------------------------------------------------------ images
/**
 * The third-party images (NODE_IMAGE, POSTGRES_IMAGE, NATS_IMAGE, MAIL_IMAGE): the environment's,
 * else upstream's. One that is not there is pulled (not when `offline`, not a pasar-local one);
 * with `standInsFirst` a stand-in already built is taken before trying to pull. What is still
 * missing is built as a stand-in (deploy/compose/offline/build.sh). Resolves the names to use.
 */
export async function thirdPartyImages({ offline = false, standInsFirst = false, say, echo = false }) {
  const images = { ...UPSTREAM };
  for (const name of Object.keys(UPSTREAM)) if (process.env[name]) images[name] = process.env[name];
  const missing = [];
  for (const [name, image] of Object.entries(images)) {
    if ((await run(docker, ['image', 'inspect', image])).code === 0) continue;
    if (standInsFirst && (await run(docker, ['image', 'inspect', STAND_IN[name][1]])).code === 0) {
      images[name] = STAND_IN[name][1];
      continue;
    }
    if (!offline && !image.startsWith('pasar-local/')) {
      const pull = await run(docker, ['pull', image], { timeoutMs: 120_000 });
      if (pull.code === 0) {
        say(`pulled ${image}`);
        continue;
      }
      say(`cannot pull ${image}: ${pull.out.trim().split('\n').at(-1)}`);
    }
    missing.push(name);
  }
  if (missing.length) {
    const targets = missing.map((name) => STAND_IN[name][0]);
    say(`building the local stand-ins: ${targets.join(', ')} (deploy/compose/offline/build.sh)`);
    await must('bash', [join(root, 'deploy/compose/offline/build.sh'), ...targets], { env: { DOCKER: docker }, echo });
    for (const name of missing) images[name] = STAND_IN[name][1];
  }
  return images;
}

/**
 * Runs `fn` with the build machine's CA certificates in deploy/compose/certs/ (the stand-ins'
 * and the services' builds fetch packages through them), removed after.
 */
export async function withBuildMachineCAs(name, fn) {
  const store = '/etc/ssl/certs/ca-certificates.crt';
  const caFile = join(root, 'deploy/compose/certs', `${name}-build-machine.pem`);
  const copied = existsSync(store) && !existsSync(caFile);
  if (copied) copyFileSync(store, caFile);
  try {
    return await fn();
  } finally {
    if (copied) rmSync(caFile, { force: true });
  }
}

/** Builds pasar-<app>:<tag> of the six apps from the one Dockerfile (`onlyMissing`: those not there yet). */
export async function buildServiceImages({ tag, nodeImage, onlyMissing = false, say }) {
  for (const [app, port] of Object.entries(SERVICES)) {
    if (onlyMissing && (await run(docker, ['image', 'inspect', `pasar-${app}:${tag}`])).code === 0) continue;
    const t0 = Date.now();
    await must(docker, ['build', '-q', '--build-arg', `APP=${app}`, '--build-arg', `PORT=${port}`, '--build-arg', `NODE_IMAGE=${nodeImage}`, '-t', `pasar-${app}:${tag}`, '.'], { env: { DOCKER_BUILDKIT: '0' }, timeoutMs: 30 * 60_000 });
    say(`built pasar-${app}:${tag} in ${seconds(Date.now() - t0)}`);
  }
}

// ------------------------------------------------------------------ secrets and NATS users
/** A random secret of URL-safe characters (it may go into a URL: DATABASE_URL, NATS routes). */
export const secret = (bytes = 24) => randomBytes(bytes).toString('base64url');

/** Random values for every secret the compose files require (a throw-away .env). */
export function stackSecrets() {
  return {
    IDENTITY_SECRET: secret(32),
    ADMIN_EMAIL: 'admin@pasar.local',
    ADMIN_PASSWORD: secret(),
    PAYMENT_MERCHANT_ID: `merchant_${secret(6)}`,
    PAYMENT_VERIFY_KEY: secret(),
    PAYMENT_SECRET_KEY: secret(),
    POSTGRES_PASSWORD: secret(),
    LABEL_SIGNING_KEY: secret(32),
  };
}

// ------------------------------------------------------------------ talking to the stack
/**
 * A request to the running stack: { status, json, text, headers }; status 0 when nothing answered
 * within `timeoutMs`, with the error's text and `error`: why (the socket error's code, e.g.
 * ECONNRESET, or TimeoutError).
 */
export async function api(url, init = {}, timeoutMs = 30_000) {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, json, text, headers: response.headers };
  } catch (err) {
    return { status: 0, text: String(err), error: err?.cause?.code ?? err?.cause?.name ?? err?.name ?? 'error', headers: new Headers() };
  }
}

/** The session cookie of `email` signed in through the gateway's API root (`.../api/v1`); throws unless 200. */
export async function signIn(apiRoot, email, password) {
  const res = await api(`${apiRoot}/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (res.status !== 200) throw new Error(`sign-in of ${email}: ${res.status} ${res.text.slice(0, 200)}`);
  return res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
}

/**
 * The form the payment gateway posts to /payments/notify when `order` ({ shortId, total }) is paid
 * in transaction `tranID`, signed with the stack's merchant id and secret key (`secrets`, as
 * stackSecrets gives them): what its server calls after the hosted page.
 */
export function paidNotificationForm(secrets, order, tranID) {
  const md5 = (text) => createHash('md5').update(text, 'utf8').digest('hex');
  const fields = { tranID, orderid: order.shortId, status: '00', domain: secrets.PAYMENT_MERCHANT_ID, amount: order.total, currency: 'MYR', paydate: new Date().toISOString(), appcode: 'A1' };
  const skey = md5(fields.paydate + fields.domain + md5(fields.tranID + fields.orderid + fields.status + fields.domain + fields.amount + fields.currency) + fields.appcode + secrets.PAYMENT_SECRET_KEY);
  return new URLSearchParams({ ...fields, skey }).toString();
}

/** Writes `values` as an env file only its owner reads. */
export function writeEnvFile(file, values) {
  writeFileSync(file, `${Object.entries(values).map(([k, v]) => `${k}=${v}`).join('\n')}\n`, { mode: 0o600 });
}

/** Where docker-compose.yml reads the NATS config it mounts and each service's seed (`<app>.env`). */
export const natsUsersDir = join(root, '.data', 'nats-users');
/** The NKey seed of a NATS user written by natsUsers(). */
export const natsSeed = (user) => readFileSync(join(natsUsersDir, `${user}.nk`), 'utf8').trim();

/** The NATS users (one NKey per service, plus the launcher's "stack" user the demo seeding signs in as). */
export async function natsUsers() {
  return (await must('npm', ['run', '--silent', 'nats:config', '--', '--out', natsUsersDir, '--with-stack'])).trim();
}

// ------------------------------------------------------------------ a compose project
/** A port to publish on: `preferred` when it is free, else any free one. */
export function freePort(preferred) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => {
      const any = createServer();
      any.listen(0, '127.0.0.1', () => {
        const { port } = any.address();
        any.close(() => resolve(port));
      });
    });
    server.listen(preferred, '0.0.0.0', () => server.close(() => resolve(preferred)));
  });
}

/**
 * The state of containers by id (a container keeps its id through restarts, `docker stop` and
 * `start`): { id, service (compose's label), status, health, restarts, pid }. One `docker inspect`,
 * much lighter than compose's `ps` (a Python program with docker-compose 1.29) for a script that
 * polls while the machine is under load.
 */
export async function inspectContainers(ids) {
  if (!ids.length) return [];
  const out = await must(docker, ['inspect', '--format', '{{.Id}} {{index .Config.Labels "com.docker.compose.service"}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}} {{.RestartCount}} {{.State.Pid}}', ...ids]);
  return out.trim().split('\n').map((line) => {
    const [id, service, status, health, restarts, pid] = line.split(' ');
    return { id, service, status, health, restarts: Number(restarts), pid: Number(pid) };
  });
}

/**
 * A compose project: `compose` from composeCommand(), its name, env file, compose files and the
 * variables the files interpolate (`env`, settable later with setEnv). `say` prints the log lines.
 */
export function composeProject({ compose, project, envFile, files, env = {}, say }) {
  let composeEnv = env;
  const fileArgs = files.flatMap((file) => ['-f', file]);
  const composeRun = (args, options = {}) => run(compose[0], [...compose.slice(1), '-p', project, '--env-file', envFile, ...fileArgs, ...args], { ...options, env: { ...composeEnv, ...options.env } });
  const composeMust = async (args, options) => {
    const result = await composeRun(args, options);
    if (result.code !== 0) throw new Error(`compose ${args.join(' ')} failed (${result.code}):\n${tail(result.out, 40)}`);
    return result.out;
  };

  /** The project's containers: { id, service, status, health, restarts, pid }. */
  async function containers() {
    return inspectContainers((await composeMust(['ps', '-q'])).split('\n').filter(Boolean));
  }

  async function printLogs(services, lines = 80) {
    for (const service of services) {
      const logs = await composeRun(['logs', '--no-color', '--tail', String(lines), service]);
      console.log('');
      say(`the last lines of ${service}:\n${logs.out.trim().split('\n').map((l) => `  | ${l}`).join('\n')}`);
    }
  }

  /**
   * Waits until the containers (`only` those services) run healthy (or have no healthcheck; the
   * `runningIsEnough` services only have to run), at least `count` of them. On timeout prints the
   * logs of the others (unless `logs` is false) and rejects naming them.
   */
  async function waitHealthy({ what, timeoutMs, only, count = 1, runningIsEnough = [], intervalMs = 2000, logs = true }) {
    const ok = (c) => c.status === 'running' && (c.health === 'healthy' || c.health === 'none' || runningIsEnough.includes(c.service));
    const deadline = Date.now() + timeoutMs;
    let last = [];
    while (Date.now() < deadline) {
      last = (await containers()).filter((c) => !only || only.includes(c.service));
      if (last.length >= count && last.every(ok)) return last;
      await sleep(intervalMs);
    }
    const bad = last.filter((c) => !ok(c));
    if (logs) await printLogs(bad.map((c) => c.service));
    throw new Error(`${what}: not healthy within ${seconds(timeoutMs)}: ${bad.map((c) => `${c.service} ${c.status}/${c.health} (restarts ${c.restarts})`).join(', ')}${last.length < count ? ` (${last.length} of ${count} containers)` : ''}`);
  }

  /** `down -v`, then what of the project is left: { containers, networks, volumes } (ids, '' when none). */
  async function downAndLeftovers(timeoutMs = 180_000) {
    await composeMust(['down', '-v', '--remove-orphans', '--timeout', '20'], { timeoutMs });
    const label = `label=com.docker.compose.project=${project}`;
    return {
      containers: (await must(docker, ['ps', '-aq', '--filter', label])).trim(),
      networks: (await must(docker, ['network', 'ls', '-q', '--filter', label])).trim(),
      volumes: (await must(docker, ['volume', 'ls', '-q', '--filter', label])).trim(),
    };
  }

  return {
    run: composeRun,
    must: composeMust,
    containers,
    printLogs,
    waitHealthy,
    downAndLeftovers,
    setEnv(next) {
      composeEnv = next;
    },
  };
}
