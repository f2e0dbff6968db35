import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_CONTEXT, SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { currentTraceHeaders, startHandling } from '@pasar/bus/src/trace';
import type { OpenedStore, Stack, StackService } from '@pasar/stack';
import { seededRandom, startOtlpReceiver, type OtlpReceiver } from '@pasar/testkit';
import { LeanClient } from '../client';
import { cpuBetween, infrastructureBetween, profiledRound, readInfrastructure, readStack } from '../processes';
import { median, percentile, round } from '../stats';
import type { BenchContext, Scenario, ScenarioResult, TracingProbe } from '../types';
import {
  analyzeStack,
  benchStore,
  everyShipment,
  firstOrder,
  perOrderByService,
  roundFigures,
  signUpBuyers,
  stockOf,
  tally,
  pacedRound,
  timedRound,
  WARM_UP_S,
  type Buyer,
} from './checkout-submit';

/**
 * Measured rounds per half. The two sides run at the same time, on two stacks: in the first half
 * one stack traces and the other does not, in the second the other way round. A round is a pair:
 * whatever the machine does meanwhile (its speed moved by up to a fifth from one round to the next
 * here, a Firecracker VM with neighbours) falls on both sides alike. The halves cancel what differs
 * between the stacks themselves. Twelve per half: one pair's on/off spreads with a standard
 * deviation of about 0.07 (when the JIT compiles, when the GC runs, how the batches fall), so the
 * pooled figure of 8 pairs had a standard error of about 2.5 points, of 24 about 1.5.
 */
const ROUNDS_PER_HALF = 12;
/**
 * Issue 26's targets: CPU per order with tracing off at most 2 % above today's (the same code
 * without tracing: measured as the share of the API's no-op calls, see NoopCalls), on at 10 %
 * sampling at most 10 % above off.
 */
export const TRACING_TARGETS = { offOverToday: 1.02, onOverOff: 1.1 } as const;
/**
 * The rounds' load: this share of the orders per second one stack served back to back just before,
 * half of it on each stack, so that a round's CPU per order is what an order costs at that load on
 * both sides. Back to back (the machine saturated), the costlier side would serve fewer orders per
 * second, so every batch (PostgreSQL's group commit, the outbox relay's reads, the consumers'
 * fetches) would hold fewer orders and every order would cost more everywhere, PostgreSQL's
 * untraced CPU included: the ratio would measure the lost batching as well, and moved from pair to
 * pair with the throughput. A fifth, not more: at a tenth of the back-to-back rate an order costs
 * about twice its back-to-back CPU (each one wakes the processes on its path), so two stacks at
 * 35 % together kept the two cores nearly busy and a slower minute made one fall behind.
 */
const LOAD_SHARE = 0.2;
/**
 * Seconds of load after each restart before the first measured round, so that the rounds measure
 * an order in processes that have run for a while, as the services do. A restarted service spends
 * its first minute compiling: with 8 s of warm-up, its threads besides the main one (V8's
 * optimizing compiler, the garbage collector's helpers) took 25-30 % of the services' CPU in the
 * first round and 7-15 % in the fourth, and in three runs the first rounds' on/off (1.05-1.10)
 * sat below the later rounds' (1.12-1.13). After 40 s they take 10-15 % in the first round.
 */
const WARM_UP_AFTER_RESTART_S = 40;
/** The head sampling of the "on" rounds: the gateway samples 10 % of the traces it starts, the services follow their parent. */
const SAMPLE_RATIO = 0.1;
const SAMPLER = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: String(SAMPLE_RATIO) } as const;
/** What turns tracing on (service-kit's isTracingConfigured) or could change how it runs: the "off" rounds have none of them. */
const TRACING_VARIABLES = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG', 'OTEL_SDK_DISABLED'] as const;

/**
 * A probe's variables for one side (`--traced-env` / `--untraced-env` NAME=VALUE), checked so that
 * the probe still compares a traced side with an untraced one: the traced side keeps its sink (its
 * spans prove it traced) and its SDK; the untraced side gets no OTEL_* variable (no SDK loaded).
 * The traced side's sampler must be one whose share of traces the scenario knows (spans per traced
 * order).
 */
export function probeVariables(side: keyof TracingProbe, entries: readonly string[]): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const entry of entries) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(entry);
    if (!match) throw new Error(`--${side}-env ${entry}: give NAME=VALUE`);
    const [, name, value] = match;
    if (name in variables) throw new Error(`--${side}-env ${name} is given twice`);
    if (side === 'untraced' && name.startsWith('OTEL_')) throw new Error(`--untraced-env ${name}: the untraced side runs without any OTEL_* variable (no SDK loaded)`);
    if (side === 'traced' && (name === 'OTEL_EXPORTER_OTLP_ENDPOINT' || name === 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' || name === 'OTEL_SDK_DISABLED'))
      throw new Error(`--traced-env ${name}: the traced side's SDK and its endpoint (the scenario's sink) are the scenario's`);
    variables[name] = value;
  }
  if (side === 'traced') exportedShare({ ...SAMPLER, ...variables });
  return variables;
}

/** Whether the run is a probe (any variable given to either side). */
export function isProbe(probe: TracingProbe): boolean {
  return Object.keys(probe.traced).length + Object.keys(probe.untraced).length > 0;
}

/**
 * The share of the traces the traced side records and sends to its sink, from its variables
 * (OpenTelemetry's: OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG, OTEL_TRACES_EXPORTER): 0 when it
 * sends none. Throws for a sampler whose share it cannot tell.
 */
export function exportedShare(env: Record<string, string | undefined>): number {
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  const sampler = env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on';
  const root = sampler.replace(/^parentbased_/, '');
  let share: number;
  if (root === 'always_on') share = 1;
  else if (root === 'always_off') share = 0;
  else if (root === 'traceidratio') {
    const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim() || '1';
    share = Number(arg);
    if (!Number.isFinite(share) || share < 0 || share > 1) throw new Error(`OTEL_TRACES_SAMPLER_ARG=${arg}: give the sampled share, from 0 to 1`);
  } else throw new Error(`OTEL_TRACES_SAMPLER=${sampler}: the scenario knows always_on, always_off and traceidratio, each also parentbased_`);
  return exporters.length === 0 || exporters.includes('otlp') ? share : 0;
}

/** How a probe's variables read in the log and the table. */
function describeProbe(probe: TracingProbe): string {
  const list = (variables: Record<string, string>) => Object.entries(variables).map(([name, value]) => `${name}=${value}`).join(' ');
  return [Object.keys(probe.traced).length > 0 ? `traced ${list(probe.traced)}` : '', Object.keys(probe.untraced).length > 0 ? `untraced ${list(probe.untraced)}` : '']
    .filter(Boolean)
    .join('; ');
}

export type TracingMode = 'off' | 'on';

/** One measured round: the orders it created and the CPU every service spent on them. */
export interface TracingRound {
  tracing: TracingMode;
  created: number;
  cpuMs: number;
}

export interface TracingSide {
  rounds: number;
  orders: number;
  cpuMs: number;
  cpuMsPerOrder: number;
}

/** The kinds of call into the OpenTelemetry API the services make, tracing off or on. */
export const NOOP_CALL_KINDS = ['contextActive', 'inject', 'extract', 'startSpan'] as const;
export type NoopCallKind = (typeof NOOP_CALL_KINDS)[number];

/**
 * What tracing off adds to an order, like for like: with no SDK loaded the only extra code is the
 * @opentelemetry/api calls (service-kit's activeTraceId, traceLogFields, ...; the bus's
 * currentTraceHeaders, inMessageSpan, ...), which do nothing. Their calls per order are counted in
 * a round (otel-api-count-preload.cjs), their time per call is measured in this process.
 */
export interface NoopCalls {
  /** Calls per order over every service, by kind. */
  perOrder: Record<NoopCallKind, number>;
  /** Nanoseconds per call, by kind: the whole helper that makes it (an upper bound per call). */
  nsPerCall: Record<NoopCallKind, number>;
}

export interface TracingCost {
  off: TracingSide;
  on: TracingSide;
  /** CPU per order on / off over all rounds of each side. */
  onOverOff: number;
  /** Per off/on pair (in run order): how far the ratio moves from pair to pair. */
  pairRatios: number[];
  /** The median of the pair ratios, and their lowest and highest. */
  pairMedian: number;
  pairSpread: { min: number; max: number };
  /** Where the pooled ratio lies with 95 % confidence, from the pairs' spread (`pooledInterval`). */
  pooledInterval: { low: number; high: number };
  /** The no-op calls' CPU per order (µs), its share of the off side's CPU per order, and off over "without them" (the target's figure); null without a count. */
  offNoop: { usPerOrder: number; share: number; offOverUntraced: number } | null;
  meetsTargets: { off: boolean | null; on: boolean };
}

/**
 * The cost of tracing from interleaved rounds: each side's CPU per order is its CPU over its orders
 * (all its rounds pooled), compared with the other side (pooled, and pair by pair); tracing off
 * against the same code without its no-op API calls (`noop`).
 */
export function tracingCost(rounds: readonly TracingRound[], noop?: NoopCalls): TracingCost {
  const side = (mode: TracingMode) => {
    const of = rounds.filter((r) => r.tracing === mode);
    const orders = of.reduce((sum, r) => sum + r.created, 0);
    const cpuMs = of.reduce((sum, r) => sum + r.cpuMs, 0);
    if (orders === 0) throw new Error(`no order in a round with tracing ${mode}`);
    return { rounds: of.length, orders, cpuMs, perOrder: cpuMs / orders };
  };
  const off = side('off');
  const on = side('on');
  const offs = rounds.filter((r) => r.tracing === 'off');
  const ons = rounds.filter((r) => r.tracing === 'on');
  const pairs = ons.slice(0, offs.length).map((on, i) => ({ off: offs[i], on }));
  const pairRatios = pairs.map(({ off, on }) => round(on.cpuMs / on.created / (off.cpuMs / off.created), 4));
  const onOverOff = round(on.perOrder / off.perOrder, 4);
  let offNoop: TracingCost['offNoop'] = null;
  if (noop) {
    const nsPerOrder = NOOP_CALL_KINDS.reduce((sum, kind) => sum + noop.perOrder[kind] * noop.nsPerCall[kind], 0);
    const share = nsPerOrder / (off.perOrder * 1e6);
    offNoop = { usPerOrder: round(nsPerOrder / 1000, 3), share: round(share, 5), offOverUntraced: round(1 / (1 - share), 5) };
  }
  const summary = (s: typeof off): TracingSide => ({ rounds: s.rounds, orders: s.orders, cpuMs: round(s.cpuMs, 0), cpuMsPerOrder: round(s.perOrder, 3) });
  return {
    off: summary(off),
    on: summary(on),
    onOverOff,
    pairRatios,
    pairMedian: round(median(pairRatios), 4),
    pairSpread: { min: Math.min(...pairRatios), max: Math.max(...pairRatios) },
    pooledInterval: pooledInterval(pairs),
    offNoop,
    meetsTargets: { off: offNoop === null ? null : offNoop.offOverUntraced <= TRACING_TARGETS.offOverToday, on: onOverOff <= TRACING_TARGETS.onOverOff },
  };
}

/**
 * The 95 % interval of the pooled on/off ratio: the 2.5th and 97.5th percentiles of the pooled
 * ratio over `resamples` draws of as many pairs as were measured, with replacement (a bootstrap
 * over the pairs, each pair being the two sides over the same seconds). The draws come from a
 * fixed seed, so the same rounds always give the same interval.
 */
export function pooledInterval(pairs: readonly { off: Omit<TracingRound, 'tracing'>; on: Omit<TracingRound, 'tracing'> }[], resamples = 2000): { low: number; high: number } {
  if (pairs.length === 0) throw new Error('no pair of rounds to draw from');
  const random = seededRandom(0x5eed);
  const ratios: number[] = [];
  for (let draw = 0; draw < resamples; draw++) {
    const sum = { offCpu: 0, offOrders: 0, onCpu: 0, onOrders: 0 };
    for (let i = 0; i < pairs.length; i++) {
      const { off, on } = pairs[Math.floor(random() * pairs.length)];
      sum.offCpu += off.cpuMs;
      sum.offOrders += off.created;
      sum.onCpu += on.cpuMs;
      sum.onOrders += on.created;
    }
    ratios.push(sum.onCpu / sum.onOrders / (sum.offCpu / sum.offOrders));
  }
  return { low: round(percentile(ratios, 2.5), 4), high: round(percentile(ratios, 97.5), 4) };
}

/** Sums the counts the preload wrote (one file per service process) into calls per order. */
export function noopCallsPerOrder(counts: readonly Partial<Record<NoopCallKind, number>>[], orders: number): Record<NoopCallKind, number> {
  if (orders <= 0) throw new Error('no order in the counting round');
  return Object.fromEntries(NOOP_CALL_KINDS.map((kind) => [kind, round(counts.reduce((sum, c) => sum + (c[kind] ?? 0), 0) / orders, 3)])) as Record<NoopCallKind, number>;
}

/** Nanoseconds per call of `call`, the best of a few timed batches (after a warm-up batch). */
function nsPerCall(call: () => unknown, calls = 200_000, batches = 5): number {
  let best = Number.POSITIVE_INFINITY;
  for (let batch = 0; batch <= batches; batch += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i += 1) call();
    const ns = Number(process.hrtime.bigint() - start) / calls;
    if (batch > 0) best = Math.min(best, ns);
  }
  return round(best, 1);
}

/**
 * The time of each kind of API call with no SDK loaded (this process registers none), through the
 * helper that makes it: the bus's currentTraceHeaders (context.active and the trace context lookup;
 * as activeTraceId and traceLogFields), the API's inject, the bus's extract from a message's
 * headers, and a consumer span started with its context (the bus's startHandling), the context
 * entered around nothing: what inMessageSpan does, but for its promise.
 */
export function timeNoopCalls(): Record<NoopCallKind, number> {
  const tracer = trace.getTracer('@pasar/bus');
  if (tracer.startSpan('probe').isRecording() || propagation.fields().length > 0) throw new Error('an OpenTelemetry SDK is registered in the bench process');
  const attributes = { 'messaging.message.id': 'x', 'messaging.system': 'nats' };
  return {
    contextActive: nsPerCall(() => currentTraceHeaders()),
    inject: nsPerCall(() => propagation.inject(ROOT_CONTEXT, {})),
    extract: nsPerCall(() => propagation.extract(ROOT_CONTEXT, {})),
    startSpan: nsPerCall(() => {
      const handling = startHandling('x process', SpanKind.CONSUMER, ROOT_CONTEXT, () => attributes);
      context.with(handling.context, () => handling.span?.end());
    }),
  };
}

/**
 * A round's variables for a service of the `mode` side that started with `ownNodeOptions`: tracing
 * on at 10 % sampling to the sink, or none of tracing's variables; a probe's for the side over them,
 * the other side's removed (a stack changes sides between the halves); NODE_OPTIONS its own, then
 * the side's probe's (its preloads stay), set every time for the same reason.
 */
export function roundEnvironment(mode: TracingMode, sinkUrl: string, probe: TracingProbe, ownNodeOptions: string | undefined): Record<string, string | undefined> {
  const none = Object.fromEntries([...TRACING_VARIABLES, ...Object.keys(probe.traced), ...Object.keys(probe.untraced)].map((name) => [name, undefined]));
  const env: Record<string, string | undefined> = mode === 'on' ? { ...none, OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, ...SAMPLER, ...probe.traced } : { ...none, ...probe.untraced };
  return { ...env, NODE_OPTIONS: [ownNodeOptions, env.NODE_OPTIONS].filter(Boolean).join(' ') || undefined };
}

/** Each service instance of `stack` with its NODE_OPTIONS as it starts now (before the scenario restarts it). */
function nodeOptionsOf(stack: Stack): Map<StackService, string | undefined> {
  return new Map(Object.values(stack.instances).flat().map((service) => [service, service.variable('NODE_OPTIONS')]));
}

/** Every service instance stopped (the gateway first) and started again with `envChanges` (or each its own). */
async function restartServices(stack: Stack, envChanges: Record<string, string | undefined> | ((service: StackService) => Record<string, string | undefined>)): Promise<void> {
  const all = Object.values(stack.instances).flat();
  await stack.services.gateway.stop();
  await Promise.all(all.map((service) => service.stop()));
  await Promise.all(all.map((service) => service.start(typeof envChanges === 'function' ? envChanges(service) : envChanges)));
}

/** One of the two stacks the rounds load at once, with what the scenario made on it. */
interface TracedStack {
  name: 'A' | 'B';
  stack: Stack;
  /** Where its services send their spans when they trace (each stack its own, so that a round's spans are its side's). */
  sink: OtlpReceiver;
  store: OpenedStore;
  hot: string;
  buyers: Buyer[];
  /** Orders placed on it so far (everyShipment waits for as many shipments). */
  placed: number;
  /** Orders placed on it while it traced (warm-ups too): the traces its spans belong to. */
  placedTraced: number;
  /** Each of its services' NODE_OPTIONS as it started, before the scenario's restarts. */
  nodeOptions: Map<StackService, string | undefined>;
}

/** A side's figures of one round. */
type SideRound = TracingRound & { stack: TracedStack['name']; figures: ReturnType<typeof roundFigures>; spans: number };

async function tracedStack(name: TracedStack['name'], stack: Stack, connections: number, log: (line: string) => void): Promise<TracedStack> {
  const sink = await startOtlpReceiver();
  const store = await benchStore(stack, 'tracing', [{ name: 'Traced Kopi', basePrice: '10.00', stock: 1_000_000 }]);
  const [hot] = store.productIds;
  log(`stack ${name}: signing up ${connections} buyers`);
  const buyers = await signUpBuyers(stack, 'tracing', connections);
  await firstOrder(buyers[0], store, hot);
  return { name, stack, sink, store, hot, buyers, placed: 1, placedTraced: 0, nodeOptions: nodeOptionsOf(stack) };
}

/**
 * Issue 26's tracing cost: checkout-submit's hot-product load (`connections` buyers submitting one
 * unit of one product) on two stacks at once, one tracing (OTLP/HTTP to a sink of the bench that
 * counts the spans, 10 % head sampling) and the other not (no OTEL_* variable: no SDK loaded).
 * Each stack gets half of LOAD_SHARE of the rate one stack served back to back (measured first, on
 * the first stack alone, tracing as the bench runs). Two halves of ROUNDS_PER_HALF rounds of
 * `durationS`: in the first the first stack traces, in the second the other; before each, every
 * service of both is restarted with its side's variables and both are warmed up for
 * WARM_UP_AFTER_RESTART_S at the same rate. A round's CPU is every service's of each stack, over
 * the round and until its vendor holds every order's shipment, as checkout-submit counts it
 * (PostgreSQL and NATS serve both stacks: their CPU is given for the two together). The spans
 * each sink receives prove that its stack traced when it should (and did not when it should not).
 * "Off" against the same code without tracing: one more round on the first stack, tracing off,
 * counts the services' calls into the OpenTelemetry API (no-ops without an SDK) per order, which
 * this process times (NoopCalls). At the end the first stack's services run again as before
 * (tracing off); the second is stopped.
 */
export const tracing: Scenario = {
  name: 'tracing',
  title: 'CPU per order of the submit load, tracing off vs on at 10 % sampling (two stacks at once)',
  async run({ stack, settings, log, startTwin }: BenchContext): Promise<ScenarioResult> {
    const probe = settings.tracingProbe;
    /** The share of its traces the traced side sends to its sink (a tenth, unless a probe says otherwise). */
    const share = exportedShare({ ...SAMPLER, ...probe.traced });
    if (isProbe(probe)) log(`a probe: ${describeProbe(probe)} (${share * 100} % of the traced side's traces sent to its sink)`);
    const restore = Object.fromEntries(TRACING_VARIABLES.map((name) => [name, process.env[name]]));
    /** Each service of the first stack's NODE_OPTIONS as it ran before the scenario. */
    const nodeOptions = nodeOptionsOf(stack);
    const countDir = mkdtempSync(join(tmpdir(), 'pasar-otel-count-'));
    const sides: TracedStack[] = [];
    let twin: Stack | undefined;
    // the first stack's services as they ran before (the bench's own environment decides); the last
    // "on" processes flush their spans as they stop, the counting round's write their counts
    let restored = false;
    const restoreServices = async () => {
      if (restored) return;
      restored = true;
      await restartServices(stack, (service) => ({ ...restore, NODE_OPTIONS: nodeOptions.get(service), BENCH_OTEL_COUNT_DIR: undefined }));
    };
    try {
      sides.push(await tracedStack('A', stack, settings.connections, log));
      twin = await startTwin();
      sides.push(await tracedStack('B', twin, settings.connections, log));
      const [first] = sides;
      // the rounds' rate: a share of the back-to-back rate of the first stack, warmed up by one round of it
      const calibrationClient = new LeanClient(first.stack.gatewayUrl);
      const calibration = first.buyers.map((buyer) => ({ ...buyer, client: calibrationClient }));
      let backToBack = 0;
      try {
        for (let i = 0; i < 2; i += 1) {
          const { answers, elapsedS } = await timedRound(calibration, first.store, () => first.hot, WARM_UP_S);
          const { created } = tally(answers);
          first.placed += created;
          backToBack = created / elapsedS;
        }
      } finally {
        calibrationClient.close();
      }
      const perSecond = Math.max(10, Math.round((backToBack * LOAD_SHARE) / 2 / 10) * 10);
      await everyShipment(first.stack, first.store.storeId, first.placed);
      log(`back to back ${round(backToBack, 1)} orders/s on one stack: the rounds run at ${perSecond} orders/s on each of the two`);

      const rounds: SideRound[] = [];
      const infrastructureByRound: Record<string, number>[] = [];
      for (const traced of sides) {
        const modeOf = (side: TracedStack): TracingMode => (side === traced ? 'on' : 'off');
        await Promise.all(sides.map((side) => restartServices(side.stack, (service) => roundEnvironment(modeOf(side), side.sink.url, probe, side.nodeOptions.get(service)))));
        // a client of its own per stack and half: the gateway it kept connections to was restarted
        const clients = sides.map((side) => new LeanClient(side.stack.gatewayUrl));
        const roundBuyers = sides.map((side, s) => side.buyers.map((buyer) => ({ ...buyer, client: clients[s] })));
        try {
          const warmedUp = await Promise.all(sides.map(async (side, s) => tally((await pacedRound(roundBuyers[s], side.store, () => side.hot, perSecond, WARM_UP_AFTER_RESTART_S)).answers).created));
          sides.forEach((side, s) => {
            side.placed += warmedUp[s];
            if (modeOf(side) === 'on') side.placedTraced += warmedUp[s];
          });
          await Promise.all(sides.map((side) => everyShipment(side.stack, side.store.storeId, side.placed)));
          await Promise.all(sides.map((side) => analyzeStack(side.stack)));
          for (let r = 0; r < ROUNDS_PER_HALF; r += 1) {
            const n = rounds.length / 2 + 1;
            const stockBefore = await Promise.all(sides.map((side) => stockOf(side.store.vendor, side.hot)));
            const spansBefore = sides.map((side) => side.sink.spanCount());
            const cpuBefore = sides.map((side) => readStack(side.stack));
            const infrastructureBefore = readInfrastructure();
            const measured = await profiledRound(sides[0].stack, () =>
              profiledRound(sides[1].stack, () => Promise.all(sides.map((side, s) => pacedRound(roundBuyers[s], side.store, () => side.hot, perSecond, settings.durationS)))),
            );
            sides.forEach((side, s) => {
              if (measured[s].shed > 0)
                throw new Error(`round ${n}, stack ${side.name} (tracing ${modeOf(side)}): ${measured[s].shed} submits not sent, ${roundBuyers[s].length * 4} were waiting: the stack did not serve ${perSecond} orders/s`);
              side.placed += tally(measured[s].answers).created;
            });
            await Promise.all(sides.map((side) => everyShipment(side.stack, side.store.storeId, side.placed)));
            const cpu = sides.map((side, s) => cpuBetween(cpuBefore[s], readStack(side.stack)));
            const infrastructure = infrastructureBetween(infrastructureBefore, readInfrastructure());
            infrastructureByRound.push(infrastructure);
            const pair: SideRound[] = [];
            for (const [s, side] of sides.entries()) {
              const mode = modeOf(side);
              const spans = side.sink.spanCount() - spansBefore[s];
              const figures = roundFigures(measured[s].answers, measured[s].elapsedS, stockBefore[s] - (await stockOf(side.store.vendor, side.hot)), cpu[s], {});
              if (mode === 'on' && share > 0 && spans === 0) throw new Error(`round ${n}: stack ${side.name} traced but its sink received no span`);
              if ((mode === 'off' || share === 0) && spans !== 0) throw new Error(`round ${n}: stack ${side.name} should have sent no span but its sink received ${spans}`);
              if (mode === 'on') side.placedTraced += figures.created;
              pair.push({ tracing: mode, stack: side.name, created: figures.created, cpuMs: figures.cpuMs, figures, spans });
              log(`round ${n} stack ${side.name} tracing ${mode}: ${figures.ordersPerSecond} orders/s, p99 ${figures.p99Ms} ms, cpu ms/order ${figures.cpuMsPerOrder} (${perOrderByService(figures)}), ${spans} spans received`);
            }
            // tracingCost pairs each round's off side with its on side
            rounds.push(...pair);
            const orders = pair.reduce((sum, side) => sum + side.created, 0);
            log(`round ${n}: on/off ${tracingCost(pair).onOverOff}; both stacks (${Object.entries(infrastructure).map(([name, ms]) => `${name} ${round(ms / orders, 2)}`).join(', ')} ms/order)`);
          }
        } finally {
          for (const client of clients) client.close();
        }
      }

      // tracing off, like for like: the API calls it makes per order, counted over one more round
      // of the first stack (its CPU is not measured), timed here: its preload as an untraced probe
      const counting: TracingProbe = { traced: {}, untraced: { NODE_OPTIONS: `--require ${join(__dirname, '..', 'otel-api-count-preload.cjs')}` } };
      await restartServices(first.stack, (service) => ({ ...roundEnvironment('off', first.sink.url, counting, nodeOptions.get(service)), BENCH_OTEL_COUNT_DIR: countDir }));
      const client = new LeanClient(first.stack.gatewayUrl);
      let counted: number;
      try {
        counted = tally((await pacedRound(first.buyers.map((buyer) => ({ ...buyer, client })), first.store, () => first.hot, perSecond, settings.durationS)).answers).created;
      } finally {
        client.close();
      }
      first.placed += counted;
      await everyShipment(first.stack, first.store.storeId, first.placed);
      await restoreServices();
      const counts = readdirSync(countDir).map((file) => JSON.parse(readFileSync(join(countDir, file), 'utf8')) as Partial<Record<NoopCallKind, number>>);
      if (counts.length !== nodeOptions.size) throw new Error(`${counts.length} of ${nodeOptions.size} service processes wrote their API call counts`);
      const noop: NoopCalls = { perOrder: noopCallsPerOrder(counts, counted), nsPerCall: timeNoopCalls() };

      // the second stack's last "on" processes flush their spans as they stop
      await twin.stop({ dropData: true });
      twin = undefined;
      const cost = tracingCost(rounds, noop);
      const spansReceived = sides.reduce((sum, side) => sum + side.sink.spanCount(), 0);
      const placedTraced = sides.reduce((sum, side) => sum + side.placedTraced, 0);
      /** Spans per order of the traced share (a tenth): every span the "on" processes sent (flushed as they stopped) over that share of their orders. */
      const spansPerTracedOrder = share > 0 ? round(spansReceived / (share * placedTraced), 1) : null;
      const offNoop = cost.offNoop as NonNullable<TracingCost['offNoop']>;
      const infrastructureOrders = rounds.reduce((sum, r) => sum + r.created, 0);
      const infrastructureCpuMsPerOrder = Object.fromEntries(
        Object.keys(infrastructureByRound[0] ?? {}).map((name) => [name, round(infrastructureByRound.reduce((sum, r) => sum + r[name], 0) / infrastructureOrders, 3)]),
      );
      log(
        `CPU ms/order off ${cost.off.cpuMsPerOrder}, on ${cost.on.cpuMsPerOrder}: on/off ${cost.onOverOff} pooled ` +
          `(95 % interval ${cost.pooledInterval.low}-${cost.pooledInterval.high}), median of pairs ${cost.pairMedian} ` +
          `(pairs ${cost.pairRatios.join(', ')}; target <= ${TRACING_TARGETS.onOverOff}); ${spansReceived} spans, ${spansPerTracedOrder ?? 'none'} per traced order; ` +
          `off: API no-op calls per order ${JSON.stringify(noop.perOrder)} at ns/call ${JSON.stringify(noop.nsPerCall)} = ${offNoop.usPerOrder} µs/order, ` +
          `off/untraced ${offNoop.offOverUntraced} (target <= ${TRACING_TARGETS.offOverToday})`,
      );
      const scenario = 'tracing';
      return {
        rows: [
          ...rounds.map((r, i) => ({
            scenario,
            case: `round ${Math.floor(i / 2) + 1}, stack ${r.stack}, tracing ${r.tracing}`,
            values: { 'req/s': r.figures.ordersPerSecond, 'p50 ms': r.figures.p50Ms, 'p99 ms': r.figures.p99Ms, 'cpu ms/order': r.figures.cpuMsPerOrder, spans: r.spans },
          })),
          { scenario, case: `on / off (cpu per order, pooled)${isProbe(probe) ? `, a probe: ${describeProbe(probe)}` : ''}`, values: { ratio: cost.onOverOff, target: `<= ${TRACING_TARGETS.onOverOff}` } },
          { scenario, case: 'on / off pooled, 95 % interval (the pairs resampled)', values: { ratio: `${cost.pooledInterval.low}-${cost.pooledInterval.high}` } },
          { scenario, case: `on / off, median of ${cost.pairRatios.length} pairs (min-max)`, values: { ratio: `${cost.pairMedian} (${cost.pairSpread.min}-${cost.pairSpread.max})` } },
          { scenario, case: 'off / untraced (API no-op calls)', values: { ratio: offNoop.offOverUntraced, target: `<= ${TRACING_TARGETS.offOverToday}` } },
        ],
        data: {
          buyers: settings.connections,
          load: { backToBackPerSecond: round(backToBack, 1), share: LOAD_SHARE, perSecondEachStack: perSecond, stacks: sides.length },
          sampler: SAMPLER,
          rounds: rounds.map((r) => ({ tracing: r.tracing, stack: r.stack, spansReceived: r.spans, ...r.figures })),
          ...cost,
          /** PostgreSQL's, NATS's and the bench's CPU over the rounds, per order of both stacks (they serve both at once). */
          infrastructureCpuMsPerOrder,
          noopCalls: { ...noop, countedOrders: counted },
          spansReceived,
          spansPerTracedOrder,
          sinkRequests: Object.fromEntries(sides.map((side) => [side.name, side.sink.requests()])),
          targets: TRACING_TARGETS,
        },
      };
    } finally {
      await restoreServices().catch((err: unknown) => log(`restarting the services as before failed: ${String(err)}`));
      await twin?.stop({ dropData: true }).catch((err: unknown) => log(`stopping the second stack failed: ${String(err)}`));
      for (const side of sides) await side.sink.close();
      rmSync(countDir, { recursive: true, force: true });
    }
  },
};
