import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { DEFAULT_TEST_DATABASE_URL } from '@pasar/db';
import { createTestBus, spansIn, TEST_NATS_URL, waitFor } from '@pasar/testkit';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { OpenedStore, Session } from '@pasar/stack';
import { Client } from 'pg';
import { LeanClient } from './client';
import { parseBenchArgs } from './main';
import { TICKS_PER_SECOND, readInfrastructure, readProcess, statFigures } from './processes';
import { latencySummary, pacedRound, type Buyer } from './scenarios/checkout-submit';
import { submitWithStreams } from './scenarios/live-streams';
import { NOOP_CALL_KINDS, exportedShare, noopCallsPerOrder, pooledInterval, probeVariables, roundEnvironment, timeNoopCalls, tracingCost } from './scenarios/tracing';

describe('the bench figures', () => {
  test('latencySummary over more samples than the call stack holds: percentiles, max and mean', () => {
    // 0, 0.001, ..., 299.999 ms in a scrambled order (7919 is prime to 300,000)
    const samples = Array.from({ length: 300_000 }, (_, i) => ((i * 7919) % 300_000) / 1000);
    expect(latencySummary(samples)).toEqual({ p50Ms: 150, p99Ms: 297, maxMs: 300, meanMs: 150 });
    expect(latencySummary([4, 1, 3])).toEqual({ p50Ms: 3, p99Ms: 4, maxMs: 4, meanMs: 2.67 });
  });

  test('a paced round sends its rate for its seconds, buyers in turn, and counts what it could not send as shed', async () => {
    // a real HTTP server in the gateway's place: 201 after `delayMs`, the cookie and product seen
    let delayMs = 0;
    const seen: string[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push(`${req.headers.cookie} ${(JSON.parse(body) as { items: { productId: string }[] }).items[0].productId}`);
        setTimeout(() => res.writeHead(201, { 'content-type': 'application/json' }).end('{"orderId":"o-1"}'), delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new LeanClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const buyers: Buyer[] = [0, 1].map((i) => ({ session: { cookie: `s=${i}` } as Session, addressId: `a-${i}`, client }));
      const store = { shippingMethodId: 'm-1' } as OpenedStore;
      // room for every arrival in flight: a loaded machine's stalled timer sends a burst, not sheds it
      const quick = await pacedRound(buyers, store, (i) => `p-${i}`, 100, 0.5, 50);
      expect(quick.shed).toBe(0);
      expect(quick.answers.map((a) => a.status)).toEqual(Array(50).fill(201));
      expect(quick.elapsedS).toBeGreaterThanOrEqual(0.49); // paced, not back to back
      // buyers in turn, each with its product (the server sees them in whatever order the sockets deliver)
      expect(seen.filter((s) => s === 's=0 p-0')).toHaveLength(25);
      expect(seen.filter((s) => s === 's=1 p-1')).toHaveLength(25);
      // answers slower than the arrivals: past 4 unanswered, an arrival is not sent
      delayMs = 300;
      const slow = await pacedRound(buyers, store, (i) => `p-${i}`, 100, 0.5, 4);
      expect(slow.answers.length + slow.shed).toBe(50);
      expect(slow.answers.length).toBeLessThanOrEqual(12);
    } finally {
      client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('a paced round whose submit gets no answer stops sending and rejects with the failure, once the others settled', async () => {
    // a real HTTP server that answers two submits and then cuts every connection it is sent on
    let seen = 0;
    const server: Server = createServer((req, res) => {
      seen += 1;
      if (seen <= 2) req.resume().on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{"orderId":"o-1"}'));
      else req.socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new LeanClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const buyers: Buyer[] = [{ session: { cookie: 's=0' } as Session, addressId: 'a-0', client }];
      const store = { shippingMethodId: 'm-1' } as OpenedStore;
      await expect(pacedRound(buyers, store, () => 'p-0', 50, 2, 50)).rejects.toThrow(/closed|reset|socket/i);
      // 100 arrivals were due over the 2 s: the round ended at the first failure, not after them all
      expect(seen).toBeGreaterThanOrEqual(3);
      expect(seen).toBeLessThan(20);
    } finally {
      client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("a /proc stat line: the command (spaces and parentheses too) and its CPU, with its reaped children's on demand", () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
    const stat = '4242 (postgres: a (b) c) S 1 4242 4242 0 -1 4194560 10 0 0 0 150 50 700 100 20 0 1 0 5 0 0';
    const ticks = TICKS_PER_SECOND / 1000; // ticks in a millisecond
    expect(statFigures(stat)).toEqual({ command: 'postgres: a (b) c', cpuMs: (150 + 50) / ticks });
    expect(statFigures(stat, true)).toEqual({ command: 'postgres: a (b) c', cpuMs: (150 + 50 + 700 + 100) / ticks });
  });

  test("PostgreSQL's CPU counts a backend that ended between two reads (the postmaster's children times)", async () => {
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL });
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await client.query('SELECT count(*) FROM generate_series(1, 3000000)'); // CPU-bound in the backend
    const backend = readProcess(rows[0].pid);
    const before = readInfrastructure().postgres;
    expect(backend?.cpuMs).toBeGreaterThan(0);
    await client.end();
    // the backend's CPU was in the sum while it ran, and stays once the postmaster has reaped it
    await waitFor(() => !readProcess(rows[0].pid), 10_000, 20);
    expect(readInfrastructure().postgres).toBeGreaterThanOrEqual(before);
  });
});

describe('npm run bench: interrupted', () => {
  test('Ctrl-C stops its stack and drops its schemas and streams, then exits 130', async () => {
    const databaseUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
    const root = join(__dirname, '..', '..');
    const bench = spawn(join(root, 'node_modules', '.bin', 'tsx'), ['bench/src/main.ts', '--only', 'machine'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, NATS_URL: TEST_NATS_URL },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    createInterface({ input: bench.stdout }).on('line', (line) => lines.push(line));
    const exited = once(bench, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const pg = new Client({ connectionString: databaseUrl });
    await pg.connect();
    const nats = await createTestBus('bench-interrupted');
    try {
      await waitFor(() => lines.some((line) => line.includes('stack ready')), 150_000, 200);
      const namespace = /schema prefix (\w+);/.exec(lines.join('\n'))?.[1];
      if (!namespace) throw new Error(`no namespace in:\n${lines.join('\n')}`);
      const left = async () => ({
        schemas: (await pg.query<{ name: string }>('SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)', [namespace])).rows.length,
        streams: await (async () => {
          let count = 0;
          for await (const stream of (await nats.bus.jsm).streams.list()) if (stream.config.name.startsWith(namespace.toUpperCase())) count += 1;
          return count;
        })(),
      });
      // the stack is there while the run goes on
      const during = await left();
      expect(during.schemas).toBeGreaterThan(0);
      expect(during.streams).toBeGreaterThan(0);

      bench.kill('SIGINT');
      const [code] = await exited;
      expect(code).toBe(130);
      expect(lines.join('\n')).toContain('SIGINT: stopping 1 stack(s)');
      expect(lines.at(-1)).toContain('stopped; nothing of the run is left behind');
      expect(await left()).toEqual({ schemas: 0, streams: 0 });
    } finally {
      if (bench.exitCode === null) bench.kill('SIGKILL');
      await pg.end();
      await nats.close();
    }
  }, 240_000);
});

describe('npm run bench: its options', () => {
  test('defaults, then the environment, then the flags', () => {
    expect(parseBenchArgs([], {})).toEqual({ help: false, durationS: 10, connections: 50, samples: 200, replicas: 1, only: [], tracingProbe: { traced: {}, untraced: {} } });
    expect(parseBenchArgs(['--duration=5', '--only', 'event-lag, machine'], { BENCH_CONNECTIONS: '8', BENCH_DURATION: '20' })).toMatchObject({
      durationS: 5,
      connections: 8,
      only: ['event-lag', 'machine'],
    });
    expect(parseBenchArgs(['-h'], {}).help).toBe(true);
  });

  test('an unknown flag or scenario, a flag without its value, or a value that is not a positive number is refused', () => {
    expect(() => parseBenchArgs(['--fast'], {})).toThrow('unknown argument "--fast"');
    expect(() => parseBenchArgs(['--only', 'nothing'], {})).toThrow('unknown scenario "nothing"');
    expect(() => parseBenchArgs(['--duration'], {})).toThrow('--duration needs a value');
    expect(() => parseBenchArgs(['--connections', '0'], {})).toThrow('connections must be a positive number');
    expect(() => parseBenchArgs([], { BENCH_SAMPLES: 'many' })).toThrow('samples must be a positive number');
  });

  test("a probe of the tracing scenario: each side's variables, repeatable, with --only tracing", () => {
    expect(
      parseBenchArgs(['--only', 'tracing', '--traced-env', 'OTEL_TRACES_SAMPLER_ARG=0', '--traced-env=OTEL_TRACES_EXPORTER=none', '--untraced-env', 'NODE_OPTIONS=--require /x.cjs --max-semi-space-size=32'], {})
        .tracingProbe,
    ).toEqual({ traced: { OTEL_TRACES_SAMPLER_ARG: '0', OTEL_TRACES_EXPORTER: 'none' }, untraced: { NODE_OPTIONS: '--require /x.cjs --max-semi-space-size=32' } });
    expect(() => parseBenchArgs(['--traced-env', 'OTEL_TRACES_SAMPLER_ARG=0'], {})).toThrow('run them with --only tracing');
    expect(() => parseBenchArgs(['--only', 'tracing,machine', '--untraced-env', 'A=1'], {})).toThrow('run them with --only tracing');
    expect(() => parseBenchArgs(['--only', 'tracing', '--traced-env'], {})).toThrow('--traced-env needs a value');
  });

  test('a probe keeps a traced side with its sink and an untraced side without an SDK, and says which variable it refuses', () => {
    expect(() => probeVariables('traced', ['OTEL_TRACES_SAMPLER_ARG'])).toThrow('--traced-env OTEL_TRACES_SAMPLER_ARG: give NAME=VALUE');
    expect(() => probeVariables('traced', ['1X=2'])).toThrow('give NAME=VALUE');
    expect(() => probeVariables('traced', ['A=1', 'A=2'])).toThrow('--traced-env A is given twice');
    expect(() => probeVariables('traced', ['OTEL_EXPORTER_OTLP_ENDPOINT=http://elsewhere:4318'])).toThrow("the traced side's SDK and its endpoint (the scenario's sink) are the scenario's");
    expect(() => probeVariables('traced', ['OTEL_SDK_DISABLED=true'])).toThrow('--traced-env OTEL_SDK_DISABLED');
    expect(() => probeVariables('untraced', ['OTEL_TRACES_SAMPLER_ARG=0'])).toThrow('the untraced side runs without any OTEL_* variable');
    expect(() => probeVariables('traced', ['OTEL_TRACES_SAMPLER_ARG=1.5'])).toThrow('OTEL_TRACES_SAMPLER_ARG=1.5: give the sampled share, from 0 to 1');
    expect(() => probeVariables('traced', ['OTEL_TRACES_SAMPLER=jaeger_remote'])).toThrow('OTEL_TRACES_SAMPLER=jaeger_remote: the scenario knows');
    expect(probeVariables('untraced', ['EMPTY=', 'NODE_OPTIONS=a=b'])).toEqual({ EMPTY: '', NODE_OPTIONS: 'a=b' });
  });

  test("the share of the traced side's traces that reach its sink follows OpenTelemetry's sampler and exporter variables", () => {
    const ratio = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
    expect(exportedShare(ratio)).toBe(0.1);
    expect(exportedShare({ ...ratio, OTEL_TRACES_SAMPLER_ARG: '0' })).toBe(0);
    expect(exportedShare({ OTEL_TRACES_SAMPLER: 'traceidratio' })).toBe(1);
    expect(exportedShare({})).toBe(1);
    expect(exportedShare({ OTEL_TRACES_SAMPLER: 'always_off' })).toBe(0);
    expect(exportedShare({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' })).toBe(1);
    expect(exportedShare({ ...ratio, OTEL_TRACES_EXPORTER: 'none' })).toBe(0);
    expect(exportedShare({ ...ratio, OTEL_TRACES_EXPORTER: 'console' })).toBe(0);
    expect(exportedShare({ ...ratio, OTEL_TRACES_EXPORTER: 'console, otlp' })).toBe(0.1);
  });

  test("each side's variables for a round: the sink and sampler or none of tracing's, its probe's, the other side's removed, NODE_OPTIONS after the service's own", () => {
    const probe = { traced: { OTEL_TRACES_EXPORTER: 'none', NODE_OPTIONS: '--require /t.cjs' }, untraced: { UNTRACED_ONLY: '1' } };
    expect(roundEnvironment('on', 'http://127.0.0.1:4318', probe, '--require /own.cjs')).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
      OTEL_SDK_DISABLED: undefined,
      OTEL_TRACES_EXPORTER: 'none',
      UNTRACED_ONLY: undefined,
      NODE_OPTIONS: '--require /own.cjs --require /t.cjs',
    });
    expect(roundEnvironment('off', 'http://127.0.0.1:4318', probe, '--require /own.cjs')).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      OTEL_TRACES_SAMPLER: undefined,
      OTEL_TRACES_SAMPLER_ARG: undefined,
      OTEL_SDK_DISABLED: undefined,
      OTEL_TRACES_EXPORTER: undefined,
      UNTRACED_ONLY: '1',
      NODE_OPTIONS: '--require /own.cjs',
    });
    expect(roundEnvironment('off', 'http://127.0.0.1:4318', { traced: {}, untraced: {} }, undefined).NODE_OPTIONS).toBeUndefined();
  });

  test("the async context preload turns on Node 20's async context tracking (a store slot on every promise) in a process that starts no SDK", () => {
    const symbolsOfAPromise = 'process.stdout.write(String(Object.getOwnPropertySymbols(Promise.resolve()).map(String)))';
    expect(execFileSync(process.execPath, ['-e', symbolsOfAPromise], { encoding: 'utf8' })).toBe('');
    const preload = join(__dirname, 'async-context-preload.cjs');
    expect(execFileSync(process.execPath, ['--require', preload, '-e', symbolsOfAPromise], { encoding: 'utf8' })).toContain('Symbol(kResourceStore)');
  });
});

describe('the tracing scenario', () => {
  test("the sink counts the spans of an SDK export, in either encoding, over resources' scopes", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    for (const [scope, count] of [['http', 3], ['pg', 2]] as const) {
      for (let i = 0; i < count; i += 1) provider.getTracer(scope).startSpan(`${scope} ${i}`).end();
    }
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(5);
    const protobuf = ProtobufTraceSerializer.serializeRequest(spans);
    if (!protobuf) throw new Error('the protobuf serializer gave nothing');
    expect(spansIn(protobuf, 'application/x-protobuf')).toBe(5);
    expect(spansIn(JsonTraceSerializer.serializeRequest(spans) as Uint8Array, 'application/json')).toBe(5);
    expect(spansIn(ProtobufTraceSerializer.serializeRequest([]) ?? new Uint8Array(), 'application/x-protobuf')).toBe(0);
    await provider.shutdown();
  });

  test('CPU per order of each side pooled over its rounds, pair by pair, off against its no-op API calls, with the targets', () => {
    const rounds = [
      { tracing: 'off' as const, created: 1000, cpuMs: 1000 },
      { tracing: 'on' as const, created: 1000, cpuMs: 1150 },
      { tracing: 'off' as const, created: 3000, cpuMs: 3300 },
      { tracing: 'on' as const, created: 1000, cpuMs: 1150 },
    ];
    // 20 calls of 100 ns and 2 of 500 ns: 3 µs of 1.075 ms per order
    const noop = { perOrder: { contextActive: 20, inject: 1, extract: 1, startSpan: 0 }, nsPerCall: { contextActive: 100, inject: 500, extract: 500, startSpan: 900 } };
    // off: 4300 ms / 4000 orders = 1.075; on: 2300 / 2000 = 1.15
    expect(tracingCost(rounds, noop)).toEqual({
      off: { rounds: 2, orders: 4000, cpuMs: 4300, cpuMsPerOrder: 1.075 },
      on: { rounds: 2, orders: 2000, cpuMs: 2300, cpuMsPerOrder: 1.15 },
      onOverOff: 1.0698,
      pairRatios: [1.15, 1.0455],
      pairMedian: 1.0978,
      pairSpread: { min: 1.0455, max: 1.15 },
      // two pairs drawn twice: a quarter of the draws are the first pair alone (1.15), a quarter the second (1.0455)
      pooledInterval: { low: 1.0455, high: 1.15 },
      // 3 µs / 1075 µs
      offNoop: { usPerOrder: 3, share: 0.00279, offOverUntraced: 1.0028 },
      meetsTargets: { off: true, on: true },
    });
    // the targets: off within 2 % of the same code without the calls, on within 10 % of off
    const costly = { ...noop, nsPerCall: { ...noop.nsPerCall, contextActive: 1200 } };
    expect(tracingCost(rounds, costly).offNoop?.offOverUntraced).toBeCloseTo(1.0234, 3);
    expect(tracingCost(rounds, costly).meetsTargets).toEqual({ off: false, on: true });
    expect(tracingCost(rounds)).toMatchObject({ offNoop: null, meetsTargets: { off: null, on: true } });
    expect(tracingCost([...rounds, { tracing: 'on', created: 1000, cpuMs: 2000 }]).meetsTargets.on).toBe(false);
    // a round's two sides in either order (the stack that traces comes first in one half): the same pairs
    const onFirst = [rounds[1], rounds[0], rounds[3], rounds[2]];
    expect(tracingCost(onFirst, noop)).toEqual(tracingCost(rounds, noop));
  });

  test("the pooled ratio's 95 % interval comes from the pairs resampled: narrower than their range, wider as they spread", () => {
    const pairsOf = (ratios: number[]) => ratios.map((r) => ({ off: { created: 1000, cpuMs: 4000 }, on: { created: 1000, cpuMs: 4000 * r } }));
    // alike pairs: no room to move
    expect(pooledInterval(pairsOf(Array.from({ length: 24 }, () => 1.12)))).toEqual({ low: 1.12, high: 1.12 });
    // 24 pairs spread as the bench's are (1.05-1.26 around 1.13)
    const spread = Array.from({ length: 24 }, (_, i) => 1.05 + ((i * 7) % 24) * (0.21 / 23));
    const mean = spread.reduce((a, b) => a + b, 0) / spread.length;
    const interval = pooledInterval(pairsOf(spread));
    expect(interval.low).toBeLessThan(mean);
    expect(interval.high).toBeGreaterThan(mean);
    expect(interval.low).toBeGreaterThan(1.05);
    expect(interval.high).toBeLessThan(1.26);
    // about 1.96 standard errors either side: the spread's standard deviation over the root of 24
    const sd = Math.sqrt(spread.reduce((a, r) => a + (r - mean) ** 2, 0) / (spread.length - 1));
    expect(interval.high - interval.low).toBeGreaterThan(2 * 1.6 * (sd / Math.sqrt(24)));
    expect(interval.high - interval.low).toBeLessThan(2 * 2.4 * (sd / Math.sqrt(24)));
    // twice the spread, about twice the width; the same pairs, the same interval
    const wider = pooledInterval(pairsOf(spread.map((r) => 1.155 + 2 * (r - 1.155))));
    expect((wider.high - wider.low) / (interval.high - interval.low)).toBeCloseTo(2, 0);
    expect(pooledInterval(pairsOf(spread))).toEqual(interval);
    expect(() => pooledInterval([])).toThrow('no pair of rounds to draw from');
  });

  test("the API calls per order are every service process's counts over the round's orders", () => {
    const counts = [{ contextActive: 3000, inject: 1000 }, { contextActive: 1000, extract: 1000, startSpan: 1000 }, {}];
    expect(noopCallsPerOrder(counts, 1000)).toEqual({ contextActive: 4, inject: 1, extract: 1, startSpan: 1 });
    expect(() => noopCallsPerOrder(counts, 0)).toThrow('no order in the counting round');
  });

  test('every kind of no-op API call is timed (no SDK is registered in the bench process)', () => {
    const times = timeNoopCalls();
    expect(Object.keys(times).sort()).toEqual([...NOOP_CALL_KINDS].sort());
    for (const kind of NOOP_CALL_KINDS) expect(Number.isFinite(times[kind]) && times[kind] > 0).toBe(true);
  });

  test('a side without orders is an error, not a ratio', () => {
    expect(() => tracingCost([{ tracing: 'off', created: 10, cpuMs: 10 }])).toThrow('no order in a round with tracing on');
    expect(() => tracingCost([{ tracing: 'off', created: 0, cpuMs: 10 }, { tracing: 'on', created: 10, cpuMs: 10 }])).toThrow('no order in a round with tracing off');
  });
});

describe('the live-streams scenario', () => {
  test('the submit figures with streams open against the mean of before and after, as cost ratios, with the 10 % target', () => {
    const before = { ordersPerSecond: 1000, p50Ms: 40, p99Ms: 100, cpuMsPerOrder: 1 };
    const after = { ordersPerSecond: 900, p50Ms: 50, p99Ms: 120, cpuMsPerOrder: 1.2 };
    // means: 950/s, 45 ms, 110 ms, 1.1 ms
    expect(submitWithStreams(before, { ordersPerSecond: 900, p50Ms: 45, p99Ms: 121, cpuMsPerOrder: 1.21 }, after)).toEqual({
      costRatios: { ordersPerSecond: 1.0556, p50Ms: 1, p99Ms: 1.1, cpuMsPerOrder: 1.1 },
      withinTarget: true,
    });
    // better with streams open is within too; one figure past 10 % is not
    expect(submitWithStreams(before, { ordersPerSecond: 1200, p50Ms: 30, p99Ms: 90, cpuMsPerOrder: 0.9 }, after).withinTarget).toBe(true);
    expect(submitWithStreams(before, { ordersPerSecond: 950, p50Ms: 45, p99Ms: 110, cpuMsPerOrder: 1.22 }, after)).toMatchObject({ costRatios: { cpuMsPerOrder: 1.1091 }, withinTarget: false });
    expect(submitWithStreams(before, { ordersPerSecond: 860, p50Ms: 45, p99Ms: 110, cpuMsPerOrder: 1.1 }, after).withinTarget).toBe(false);
  });
});
