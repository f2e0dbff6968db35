/**
 * What the gateway itself costs per proxied request, against the floor: the same GET sent to a
 * bare upstream (a node:http server answering a small JSON), through a bare http-proxy-middleware
 * proxy in front of it, and through the gateway in front of it (started as the stack starts it:
 * node --import tsx apps/gateway/src/main.ts, on a fresh test schema and NATS namespace, a signed-in
 * customer's cookie on every request). Each target runs two loads, alternating over the rounds:
 *   saturated: 50 keep-alive connections, closed loop (throughput, CPU per request when busy);
 *   paced:     1 connection, a 5 ms pause after each answer (CPU per request and latency of a
 *              process woken for each request, as on a quiet path such as the event-lag GET).
 * Reported per target: requests/s, latency p50/p99, CPU µs per request of the proxy and of the
 * upstream (/proc), and of the load client itself.
 *
 *   npx tsx bench/src/gateway-overhead.ts [--seconds 5] [--rounds 2]
 *
 * With BENCH_CPU_PROF_DIR=<dir> the gateway writes a V8 CPU profile there when it stops (summarise
 * with `tsx bench/src/profile-top.ts <file>`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '@pasar/testkit';
import { Pool } from 'undici';
import { readProcess } from './processes';
import { latencySummary } from './scenarios/checkout-submit';
import { startServiceAlone } from './service-alone';
import { round } from './stats';

const PATH = '/api/v1/account/addresses';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '2' } } });
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const LOADS = { saturated: { connections: 50, pauseMs: 0 }, paced: { connections: 1, pauseMs: 5 } } as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Forks a .cjs helper of this folder and waits for the port it sends. */
function forkHelper(file: string, argv: string[] = []): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(join(__dirname, file), argv, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve({ child, port: message.port }));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

interface Target {
  name: string;
  port: number;
  cookie?: string;
  /** The proxy's pid first (none for the upstream alone), then the upstream's. */
  pids: number[];
}

/** One load on one target: warm-up, then `SECONDS` measured. */
async function measure(target: Target, load: { connections: number; pauseMs: number }) {
  const pool = new Pool(`http://127.0.0.1:${target.port}`, { connections: load.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const headers: Record<string, string> = target.cookie ? { cookie: target.cookie } : {};
  const latencies: number[] = [];
  let failed = 0;
  const run = async (until: number, record: boolean) => {
    const worker = async () => {
      while (performance.now() < until) {
        const sent = performance.now();
        const answer = await pool.request({ method: 'GET', path: PATH, headers });
        await answer.body.text();
        if (record) latencies.push(performance.now() - sent);
        if (answer.statusCode !== 200) failed += 1;
        if (load.pauseMs) await sleep(load.pauseMs);
      }
    };
    await Promise.all(Array.from({ length: load.connections }, worker));
  };
  try {
    await run(performance.now() + 1500, false); // JIT, sockets, the gateway's session cache
    const before = target.pids.map((pid) => readProcess(pid)!.cpuMs);
    const client = process.cpuUsage();
    const started = performance.now();
    await run(started + SECONDS * 1000, true);
    const seconds = (performance.now() - started) / 1000;
    const after = target.pids.map((pid) => readProcess(pid)!.cpuMs);
    const own = process.cpuUsage(client);
    if (failed > 0) throw new Error(`${target.name}: ${failed} answers were not 200`);
    const perRequest = (ms: number) => round((ms * 1000) / latencies.length, 0);
    const cpu = target.pids.map((_, i) => perRequest(after[i] - before[i]));
    return {
      requestsPerSecond: round(latencies.length / seconds, 0),
      latency: latencySummary(latencies),
      cpuUsPerRequest: target.pids.length > 1 ? { proxy: cpu[0], upstream: cpu[1] } : { upstream: cpu[0] },
      clientCpuUsPerRequest: perRequest((own.user + own.system) / 1000),
    };
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  const upstream = await forkHelper('json-upstream.cjs');
  const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
  const bare = await forkHelper('bare-proxy.cjs', [upstreamUrl]);
  const [port, opsPort] = [await freePort(), await freePort()];
  const env = {
    PORT: String(port),
    METRICS_PORT: String(opsPort), // its internal listener (/readyz, /metrics) on a free port too
    CHECKOUT_URL: upstreamUrl,
    B2B_URL: upstreamUrl,
    VENDOR_URL: upstreamUrl,
    ADMIN_URL: upstreamUrl,
  };
  const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF_DIR] : [];
  const gatewayUrl = `http://127.0.0.1:${port}`;
  const gateway = await startServiceAlone('gateway', 'gwcost', env, gatewayUrl, profile);
  try {
    const signUp = await fetch(`${gatewayUrl}/api/v1/auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `gwcost-${Date.now()}@example.test`, password: 'correct horse battery staple', fullName: 'Bench Pembeli' }),
    });
    const cookie = signUp.headers.get('set-cookie')?.split(';')[0];
    if (signUp.status !== 201 || !cookie) throw new Error(`sign-up answered ${signUp.status}: ${await signUp.text()}`);

    const targets: Target[] = [
      { name: 'upstream alone', port: upstream.port, pids: [upstream.child.pid as number] },
      { name: 'bare http-proxy-middleware', port: bare.port, pids: [bare.child.pid as number, upstream.child.pid as number] },
      { name: 'gateway', port, cookie, pids: [gateway.pid, upstream.child.pid as number] },
    ];
    const results: Record<string, Record<string, unknown[]>> = {};
    for (let n = 0; n < ROUNDS; n += 1) {
      for (const [loadName, load] of Object.entries(LOADS)) {
        for (const target of targets) {
          const figures = await measure(target, load);
          ((results[loadName] ??= {})[target.name] ??= []).push(figures);
          console.error(`round ${n + 1} ${loadName} ${target.name}: ${JSON.stringify(figures)}`);
        }
      }
    }
    console.log(JSON.stringify({ path: PATH, seconds: SECONDS, loads: LOADS, results }, null, 2));
  } finally {
    await gateway.stop();
    upstream.child.disconnect();
    bare.child.disconnect();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
