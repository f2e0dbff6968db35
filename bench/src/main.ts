/**
 * `npm run bench`: starts the stack on free ports with its own schemas and namespace, runs the
 * scenarios, prints a table and writes their figures into bench/results.json (DESIGN §10), keeping
 * the last figures of the scenarios it did not run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { onStopSignals, startStack, type ServiceName, type Stack } from '@pasar/stack';
import { startSmtpCatcher, uniqueNamespace } from '@pasar/testkit';
import { SCENARIOS } from './scenarios';
import { isProbe, probeVariables } from './scenarios/tracing';
import { cpuOverTheRun, readStack, rssOf } from './processes';
import { mergeResults, type BenchResults, type ScenarioStamp } from './results';
import { renderTable, round } from './stats';
import type { BenchSettings, TableRow, TracingProbe } from './types';

const USAGE = `Usage: npm run bench [-- options]
  --only <a,b>          run only these scenarios (${SCENARIOS.map((s) => s.name).join(', ')})
  --duration <seconds>  per load run (BENCH_DURATION, default 10)
  --connections <n>     concurrent connections (BENCH_CONNECTIONS, default 50)
  --samples <n>         sequential requests in latency scenarios (BENCH_SAMPLES, default 200)
  --replicas <n>        instances of each service but the gateway (BENCH_REPLICAS, default 1)
  --traced-env NAME=VALUE, --untraced-env NAME=VALUE (each may repeat; with --only tracing)
                        the tracing scenario as a probe: the variable on every service of its
                        traced or untraced side, over the scenario's own (e.g.
                        OTEL_TRACES_SAMPLER_ARG=0: every trace carried, none recorded); a probe
                        prints its figures and leaves bench/results.json as it was

Env BENCH_CPU_PROF_DIR=<dir>: every service is CPU-profiled (cpu-profile-preload.cjs): a .cpuprofile in
<dir>/<service>, written when the stack stops; summarise with \`tsx bench/src/profile-top.ts <file>\`.
With BENCH_CPU_PROF_WINDOW=1 as well, each measured load round gets a profile of its own instead
(<pid>-<n>.cpuprofile, n counting the rounds as they ran: hot product, 50 products, event lag 8 in flight).`;

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${text}"`);
  return value;
}

export function parseBenchArgs(argv: readonly string[], env: Record<string, string | undefined>): BenchSettings & { help: boolean } {
  const args = new Map<string, string>();
  const probe: Record<keyof TracingProbe, string[]> = { traced: [], untraced: [] };
  let help = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    const match = /^--(only|duration|connections|samples|replicas|traced-env|untraced-env)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unknown argument "${arg}"\n${USAGE}`);
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new Error(`--${match[1]} needs a value`);
    if (match[1] === 'traced-env' || match[1] === 'untraced-env') probe[match[1] === 'traced-env' ? 'traced' : 'untraced'].push(value);
    else args.set(match[1], value);
  }
  const only = (args.get('only') ?? env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of only) {
    if (!SCENARIOS.some((s) => s.name === name)) throw new Error(`unknown scenario "${name}"; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  }
  const tracingProbe = { traced: probeVariables('traced', probe.traced), untraced: probeVariables('untraced', probe.untraced) };
  if (isProbe(tracingProbe) && (only.length !== 1 || only[0] !== 'tracing')) throw new Error('--traced-env and --untraced-env change the tracing scenario only: run them with --only tracing');
  return {
    help,
    durationS: positive('duration', args.get('duration') ?? env.BENCH_DURATION, 10),
    connections: Math.round(positive('connections', args.get('connections') ?? env.BENCH_CONNECTIONS, 50)),
    samples: Math.round(positive('samples', args.get('samples') ?? env.BENCH_SAMPLES, 200)),
    replicas: Math.round(positive('replicas', args.get('replicas') ?? env.BENCH_REPLICAS, 1)),
    only,
    tracingProbe,
  };
}

/** Set by Ctrl-C or SIGTERM: the stop of the run's stacks, which ends the process (not main). */
let interrupted: Promise<void> | undefined;

async function main(): Promise<void> {
  const settings = parseBenchArgs(process.argv.slice(2), process.env);
  if (settings.help) {
    console.log(USAGE);
    return;
  }
  const scenarios = SCENARIOS.filter((s) => settings.only.length === 0 || settings.only.includes(s.name));
  const log = (line: string) => console.log(`[bench] ${line}`);

  // every scenario's extra env, merged per service
  const env: Partial<Record<ServiceName, Record<string, string>>> = {};
  for (const scenario of scenarios) {
    for (const [service, vars] of Object.entries(scenario.env ?? {})) {
      env[service as ServiceName] = { ...(env[service as ServiceName] ?? {}), ...vars };
    }
  }
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  if (profileDir) {
    for (const service of ['gateway', 'checkout', 'vendor', 'b2b', 'admin', 'notifier'] as const) {
      env[service] = {
        ...(env[service] ?? {}),
        BENCH_CPU_PROF_DIR: join(resolve(profileDir), service),
        ...(process.env.BENCH_CPU_PROF_WINDOW ? { BENCH_CPU_PROF_WINDOW: process.env.BENCH_CPU_PROF_WINDOW } : {}),
        // after a scenario's own preloads (the gateway's memory probe)
        NODE_OPTIONS: [env[service]?.NODE_OPTIONS, `--require ${join(__dirname, 'cpu-profile-preload.cjs')}`].filter(Boolean).join(' '),
      };
    }
  }
  // the e-mails the scenarios cause (welcome mails of the sign-ups) go to a local SMTP server, as
  // in any deployment: without one the notifier retries each with backoff through the rounds
  const mail = await startSmtpCatcher();
  env.notifier = { ...(env.notifier ?? {}), SMTP_URL: mail.url };
  // an interrupted run (Ctrl-C, a CI job's timeout) stops its stacks and drops their schemas and
  // streams, as a finished one does, then exits 130; a second Ctrl-C exits at once
  /** Every stack this run started or is starting (one still starting is stopped once it is up). */
  const stacks: Promise<Stack>[] = [];
  onStopSignals({
    say: log,
    onStop: (signal) => {
      log(`${signal}: stopping ${stacks.length} stack(s) and dropping their data (Ctrl-C again to exit at once)`);
      interrupted = Promise.allSettled(stacks.map(async (starting) => (await starting).stop({ dropData: true })))
        .then(() => mail.close())
        .finally(() => {
          log('stopped; nothing of the run is left behind');
          process.exit(130);
        });
    },
  });
  const namespace = uniqueNamespace('bench');
  log(`starting the stack (namespace and schema prefix ${namespace}; ${settings.replicas} instance(s) of each service but the gateway)`);
  const started = Date.now();
  const startBenchStack = (namespace: string): Promise<Stack> => {
    const starting = startStack({
      ports: 'free',
      replicas: settings.replicas,
      namespace,
      schemaPrefix: namespace,
      identitySecret: `bench-identity-secret-${namespace}`,
      // request logging would be a large share of the measured cost
      logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
      env,
      keepLines: 200,
      dropDataOnFailure: true,
      onServiceExit: (service, description) => log(`${service} ${description} during the run`),
    });
    stacks.push(starting);
    return starting;
  };
  const stack = await startBenchStack(namespace);
  const startTwin = () => {
    const twin = uniqueNamespace('bench');
    log(`starting a second stack (namespace and schema prefix ${twin})`);
    return startBenchStack(twin);
  };
  log(`stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // idle: give the services a moment after start-up (migrations, warm-up) before reading RSS
  await new Promise((r) => setTimeout(r, 3000));
  const idle = readStack(stack);

  const rows: TableRow[] = [];
  let afterLoad = idle;
  const results: Record<string, Record<string, unknown>> = {};
  // the scenarios this run did not measure keep their last figures (results.ts)
  const file = join(__dirname, '..', 'results.json');
  const previous: unknown = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  try {
    for (const scenario of scenarios) {
      log(`${scenario.name}: ${scenario.title}`);
      const result = await scenario.run({ stack, settings, log: (line) => log(`  ${scenario.name}: ${line}`), startTwin });
      rows.push(...result.rows);
      const stamp: ScenarioStamp = { measuredAt: new Date().toISOString(), loadAverage: loadavg().map((n) => round(n, 2)), node: process.version };
      results[scenario.name] = { title: scenario.title, ...stamp, ...result.data };
    }
  } catch (err) {
    for (const [name, service] of Object.entries(stack.services)) {
      console.error(`--- last lines of ${name} ---\n${service.recentLines().slice(-20).join('\n')}`);
    }
    throw err;
  } finally {
    afterLoad = readStack(stack);
    await stack.stop({ dropData: true });
    await mail.close();
  }
  const processes = {
    rssMiBIdle: rssOf(idle),
    rssMiBAfterLoad: rssOf(afterLoad),
    cpuMsOverTheRun: cpuOverTheRun(idle, afterLoad),
  };
  rows.push(
    ...Object.keys(processes.rssMiBIdle).map((name) => {
      const cpuMs = processes.cpuMsOverTheRun[name];
      return {
        scenario: 'processes',
        case: name,
        values: { 'RSS idle MiB': processes.rssMiBIdle[name] ?? 'n/a', 'RSS after MiB': processes.rssMiBAfterLoad[name] ?? 'n/a', 'cpu s': cpuMs === null ? 'restarted' : round(cpuMs / 1000, 1) },
      };
    }),
  );

  const cpuList = cpus();
  const output = {
    runAt: new Date().toISOString(),
    machine: {
      cpus: cpuList.length,
      cpuModel: cpuList[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    settings: { durationS: settings.durationS, connections: settings.connections, samples: settings.samples, replicas: settings.replicas },
    scenarios: results,
    processes,
  };
  console.log(`\n${renderTable(rows)}\n`);
  if (isProbe(settings.tracingProbe)) {
    log(`a probe (--traced-env, --untraced-env): ${file} left as it was`);
    return;
  }
  writeFileSync(file, `${JSON.stringify(mergeResults(previous, output as BenchResults), null, 2)}\n`);
  log(`written ${file}`);
}

if (require.main === module) {
  main().then(
    () => {
      if (!interrupted) process.exit(0);
    },
    (err: unknown) => {
      // the run failed because it was interrupted: the stop exits once its stacks are stopped
      if (interrupted) return;
      console.error('bench failed:', err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
