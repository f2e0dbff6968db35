/**
 * Preloaded into a service (`NODE_OPTIONS=--require <this file>`) by the tracing scenario's
 * counting round, tracing off: registers OpenTelemetry API globals that do what the API's no-op
 * defaults do (what runs when no SDK is loaded: the root context, no propagation, non-recording
 * spans) but count the calls the service makes into them. The counts are written to
 * `<BENCH_OTEL_COUNT_DIR>/<pid>.json` when the process exits.
 */
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { INVALID_SPAN_CONTEXT, ROOT_CONTEXT, context, propagation, trace } = require('@opentelemetry/api');

const dir = process.env.BENCH_OTEL_COUNT_DIR;
if (dir) {
  const counts = { contextActive: 0, inject: 0, extract: 0, startSpan: 0 };
  context.setGlobalContextManager({
    active: () => {
      counts.contextActive += 1;
      return ROOT_CONTEXT;
    },
    with: (_ctx, fn, thisArg, ...args) => fn.call(thisArg, ...args),
    bind: (_ctx, target) => target,
    enable() {
      return this;
    },
    disable() {
      return this;
    },
  });
  propagation.setGlobalPropagator({
    inject: () => {
      counts.inject += 1;
    },
    extract: (ctx) => {
      counts.extract += 1;
      return ctx;
    },
    fields: () => [],
  });
  // the no-op tracer's behaviour: a non-recording span carrying the parent's context (an invalid one here)
  const startSpan = (_name, _options, ctx = context.active()) => {
    counts.startSpan += 1;
    return trace.wrapSpanContext(trace.getSpanContext(ctx) ?? INVALID_SPAN_CONTEXT);
  };
  const tracer = {
    startSpan,
    startActiveSpan(name, ...rest) {
      const fn = rest.pop();
      const [options, ctx = context.active()] = rest;
      const span = startSpan(name, options, ctx);
      return context.with(trace.setSpan(ctx, span), fn, undefined, span);
    },
  };
  trace.setGlobalTracerProvider({ getTracer: () => tracer });
  process.on('exit', () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(counts));
  });
}
