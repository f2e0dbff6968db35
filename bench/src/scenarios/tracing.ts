import type { Stack } from '@pasar/stack';
import { LeanClient } from '../client';
import { startOtlpSink, type OtlpSink } from '../otlp-sink';
import { cpuBetween, infrastructureBetween, profiledRound, readInfrastructure, readStack } from '../processes';
import { round } from '../stats';
import type { BenchContext, Scenario, ScenarioResult } from '../types';
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
  timedRound,
  WARM_UP_S,
  type Buyer,
} from './checkout-submit';

/** Off/on pairs of rounds, run off, on, off, on, ...: drift of the machine falls on both sides alike. */
const PAIRS = 3;
/** Issue 26's targets: CPU per order with tracing off at most 2 % above today's, on at 10 % sampling at most 10 % above off. */
export const TRACING_TARGETS = { offOverToday: 1.02, onOverOff: 1.1 } as const;
/** The head sampling of the "on" rounds: the gateway samples 10 % of the traces it starts, the services follow their parent. */
const SAMPLE_RATIO = 0.1;
const SAMPLER = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: String(SAMPLE_RATIO) } as const;
/** What turns tracing on (service-kit's isTracingConfigured) or could change how it runs: the "off" rounds have none of them. */
const TRACING_VARIABLES = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG', 'OTEL_SDK_DISABLED'] as const;

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

export interface TracingCost {
  off: TracingSide;
  on: TracingSide;
  /** CPU per order on / off over all rounds of each side. */
  onOverOff: number;
  /** Per off/on pair (in run order): how far the ratio moves from pair to pair. */
  pairRatios: number[];
  /** Off against the checkout-submit scenario's hot-product figure (null without one). */
  offOverToday: number | null;
  onOverToday: number | null;
  meetsTargets: { off: boolean | null; on: boolean };
}

/**
 * The cost of tracing from interleaved rounds: each side's CPU per order is its CPU over its orders
 * (all its rounds pooled), compared with the other side and with today's figure (checkout-submit's
 * CPU per order for the same load, tracing off).
 */
export function tracingCost(rounds: readonly TracingRound[], todayCpuMsPerOrder?: number): TracingCost {
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
  const pairRatios = ons.slice(0, offs.length).map((r, i) => round(r.cpuMs / r.created / (offs[i].cpuMs / offs[i].created), 4));
  const today = todayCpuMsPerOrder !== undefined && todayCpuMsPerOrder > 0 ? todayCpuMsPerOrder : undefined;
  const offOverToday = today === undefined ? null : round(off.perOrder / today, 4);
  const onOverOff = round(on.perOrder / off.perOrder, 4);
  const summary = (s: typeof off): TracingSide => ({ rounds: s.rounds, orders: s.orders, cpuMs: round(s.cpuMs, 0), cpuMsPerOrder: round(s.perOrder, 3) });
  return {
    off: summary(off),
    on: summary(on),
    onOverOff,
    pairRatios,
    offOverToday,
    onOverToday: today === undefined ? null : round(on.perOrder / today, 4),
    meetsTargets: { off: offOverToday === null ? null : offOverToday <= TRACING_TARGETS.offOverToday, on: onOverOff <= TRACING_TARGETS.onOverOff },
  };
}

/** The variables of a round: tracing on at 10 % sampling to the sink, or none of them. */
function environmentFor(mode: TracingMode, sink: OtlpSink): Record<string, string | undefined> {
  const none = Object.fromEntries(TRACING_VARIABLES.map((name) => [name, undefined]));
  return mode === 'on' ? { ...none, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...SAMPLER } : none;
}

/** Every service instance stopped (the gateway first) and started again with `envChanges`. */
async function restartServices(stack: Stack, envChanges: Record<string, string | undefined>): Promise<void> {
  const all = Object.values(stack.instances).flat();
  await stack.services.gateway.stop();
  await Promise.all(all.map((service) => service.stop()));
  await Promise.all(all.map((service) => service.start(envChanges)));
}

/** checkout-submit's hot-product CPU per order (the same load, tracing off), when it was measured. */
function todayOf(figuresOf: BenchContext['figuresOf']): { cpuMsPerOrder: number; measuredAt: string; thisRun: boolean } | undefined {
  const measured = figuresOf('checkout-submit');
  const cpuMsPerOrder = (measured?.figures.throughput as { cpuMsPerOrder?: unknown } | undefined)?.cpuMsPerOrder;
  return measured && typeof cpuMsPerOrder === 'number' ? { cpuMsPerOrder, measuredAt: measured.measuredAt, thisRun: measured.thisRun } : undefined;
}

/**
 * Issue 26's tracing cost: checkout-submit's hot-product load (`connections` buyers submitting one
 * unit of one product back to back for `durationS`), in rounds alternating tracing off (no OTEL_*
 * variable: no SDK loaded) and on (OTLP/HTTP to a sink of the bench that counts the spans, 10 %
 * head sampling). Before each round every service is restarted with that round's variables and
 * warmed up as checkout-submit is; a round's CPU is every service's, over the round and until
 * vendor holds every order's shipment, as checkout-submit counts it. The spans the sink receives
 * prove the "on" rounds traced (and the "off" rounds did not). At the end the services run again
 * as before (tracing off).
 */
export const tracing: Scenario = {
  name: 'tracing',
  title: 'CPU per order of the submit load, tracing off vs on at 10 % sampling (interleaved rounds)',
  async run({ stack, settings, log, figuresOf }: BenchContext): Promise<ScenarioResult> {
    const sink = await startOtlpSink();
    const restore = Object.fromEntries(TRACING_VARIABLES.map((name) => [name, process.env[name]]));
    // the services as they ran before (the bench's own environment decides); the last "on" processes flush their spans as they stop
    let restored = false;
    const restoreServices = async () => {
      if (restored) return;
      restored = true;
      await restartServices(stack, restore);
    };
    try {
      const store = await benchStore(stack, 'tracing', [{ name: 'Traced Kopi', basePrice: '10.00', stock: 1_000_000 }]);
      const [hot] = store.productIds;
      log(`signing up ${settings.connections} buyers`);
      const buyers = await signUpBuyers(stack, 'tracing', settings.connections);
      await firstOrder(buyers[0], store, hot);
      let placed = 1;
      /** Orders placed while tracing was on (warm-ups too): the traces the sink's spans belong to. */
      let placedTraced = 0;
      const rounds: (TracingRound & { figures: ReturnType<typeof roundFigures>; spans: number })[] = [];
      for (let i = 0; i < PAIRS * 2; i += 1) {
        const mode: TracingMode = i % 2 === 0 ? 'off' : 'on';
        await restartServices(stack, environmentFor(mode, sink));
        // a client of its own per round: the gateway it kept connections to was restarted
        const client = new LeanClient(stack.gatewayUrl);
        const roundBuyers: Buyer[] = buyers.map((buyer) => ({ ...buyer, client }));
        try {
          const warmedUp = tally((await timedRound(roundBuyers, store, () => hot, WARM_UP_S)).answers).created;
          placed += warmedUp;
          await everyShipment(stack, store.storeId, placed);
          await analyzeStack(stack);

          const stockBefore = await stockOf(store.vendor, hot);
          const spansBefore = sink.spans();
          const cpuBefore = readStack(stack);
          const infrastructureBefore = readInfrastructure();
          const measured = await profiledRound(stack, () => timedRound(roundBuyers, store, () => hot, settings.durationS));
          placed += tally(measured.answers).created;
          await everyShipment(stack, store.storeId, placed);
          const cpu = cpuBetween(cpuBefore, readStack(stack));
          const infrastructure = infrastructureBetween(infrastructureBefore, readInfrastructure());
          const spans = sink.spans() - spansBefore;
          const figures = roundFigures(measured.answers, measured.elapsedS, stockBefore - (await stockOf(store.vendor, hot)), cpu, infrastructure);
          if (mode === 'on' && spans === 0) throw new Error(`round ${i + 1}: tracing was on but the sink received no span`);
          if (mode === 'off' && spans !== 0) throw new Error(`round ${i + 1}: tracing was off but the sink received ${spans} spans`);
          rounds.push({ tracing: mode, created: figures.created, cpuMs: figures.cpuMs, figures, spans });
          if (mode === 'on') placedTraced += warmedUp + figures.created;
          log(
            `round ${i + 1} tracing ${mode}: ${figures.ordersPerSecond} orders/s, p99 ${figures.p99Ms} ms, cpu ms/order ${figures.cpuMsPerOrder} (${perOrderByService(figures)}), ${spans} spans received`,
          );
        } finally {
          client.close();
        }
      }

      const today = todayOf(figuresOf);
      const cost = tracingCost(rounds, today?.cpuMsPerOrder);
      await restoreServices();
      const spansReceived = sink.spans();
      /** Spans per order of the 10 % traced: every span the "on" processes sent (flushed as they stopped) over a tenth of their orders. */
      const spansPerTracedOrder = round(spansReceived / (SAMPLE_RATIO * placedTraced), 1);
      log(
        `CPU ms/order off ${cost.off.cpuMsPerOrder}, on ${cost.on.cpuMsPerOrder}: on/off ${cost.onOverOff} (pairs ${cost.pairRatios.join(', ')}; target <= ${TRACING_TARGETS.onOverOff}); ` +
          `${spansReceived} spans, ${spansPerTracedOrder} per traced order; ` +
          (today ? `off/today ${cost.offOverToday} (today ${today.cpuMsPerOrder}, ${today.thisRun ? 'this run' : `measured ${today.measuredAt}`}; target <= ${TRACING_TARGETS.offOverToday})` : 'no checkout-submit figure to compare with'),
      );
      const scenario = 'tracing';
      return {
        rows: [
          ...rounds.map((r, i) => ({
            scenario,
            case: `round ${i + 1}, tracing ${r.tracing}`,
            values: { 'req/s': r.figures.ordersPerSecond, 'p50 ms': r.figures.p50Ms, 'p99 ms': r.figures.p99Ms, 'cpu ms/order': r.figures.cpuMsPerOrder, spans: r.spans },
          })),
          { scenario, case: 'on / off (cpu per order)', values: { ratio: cost.onOverOff, target: `<= ${TRACING_TARGETS.onOverOff}` } },
          { scenario, case: 'off / checkout-submit hot', values: { ratio: cost.offOverToday ?? 'n/a', target: `<= ${TRACING_TARGETS.offOverToday}` } },
        ],
        data: {
          buyers: buyers.length,
          sampler: SAMPLER,
          rounds: rounds.map((r) => ({ tracing: r.tracing, spansReceived: r.spans, ...r.figures })),
          ...cost,
          today: today ?? null,
          spansReceived,
          spansPerTracedOrder,
          sinkRequests: sink.requests(),
          targets: TRACING_TARGETS,
        },
      };
    } finally {
      await restoreServices().catch((err: unknown) => log(`restarting the services as before failed: ${String(err)}`));
      await sink.close();
    }
  },
};
