/**
 * OpenTelemetry tracing: off unless OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set.
 * Off, the SDK is never loaded (the imports below are dynamic) and the API calls elsewhere are
 * no-ops. On, spans for HTTP server and client, express routes and pg queries (Prisma runs on pg)
 * made while a request or a message is handled go to the OTLP endpoint; the standard OTEL_*
 * variables apply (protocol, sampler, service name, ...).
 *
 * This module imports nothing heavy at the top: a service's main.ts calls startTracing before it
 * loads the modules the instrumentations patch (http, express, pg).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, trace, type Context, type Span, type TextMapGetter, type TextMapPropagator, type TextMapSetter } from '@opentelemetry/api';

export interface TracingHandle {
  /** Flushes the spans still buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /**
   * Whether an inbound HTTP `traceparent` continues the caller's trace (default true). The gateway
   * (the public door) passes false unless TRACE_TRUST_INBOUND=true and starts its own; the services
   * behind it keep the default and continue the gateway's, so its spans are their parents.
   */
  trustInbound?: boolean;
}

/** True when the environment asks for traces. */
export function isTracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** URL attributes keep the path only: query strings may hold signatures or tokens. */
const URL_ATTRIBUTES = ['http.target', 'http.url', 'url.full'];

/**
 * Starts the OpenTelemetry SDK when configured (see the module comment); undefined when not.
 * Call it first in main.ts, then import the service.
 */
export async function startTracing(service: string, options: TracingOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<TracingHandle | undefined> {
  if (!isTracingConfigured(env)) return undefined;
  const [{ NodeSDK }, { HttpInstrumentation }, { ExpressInstrumentation, ExpressLayerType }, { PgInstrumentation }, { W3CTraceContextPropagator }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/core'),
  ]);
  const w3c = new W3CTraceContextPropagator();
  const sdk = new NodeSDK({
    // traces only: unless OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER ask for them, the SDK would also
    // record the instrumentations' metrics and post them and a log provider's to the endpoint (the
    // services' metrics are Prometheus's, /metrics): CPU on every request for nobody
    ...(env.OTEL_METRICS_EXPORTER?.trim() ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER?.trim() ? {} : { logRecordProcessors: [] }),
    serviceName: env.OTEL_SERVICE_NAME?.trim() || service,
    textMapPropagator: options.trustInbound === false ? new NotFromHttpRequests(w3c) : w3c,
    instrumentations: [
      new HttpInstrumentation({
        // no span for probes and scrapes
        ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics',
        requestHook: (span) => withoutQueries(span),
        responseHook: (span) => withoutQueries(span),
      }),
      // a span per route (router and request handler layers), none per middleware layer (body
      // parsing, helmet, cors, the identity check, ...): those ran on every request for little news
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // statements only (with their $n placeholders): never the values bound to them. Only inside a
      // request's or a message's span: the background queries (outbox relay polls, inbox and worker
      // sweeps) would otherwise each start a trace of their own, sampled and exported like a request's
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}

/** Rewrites the span's URL attributes without their query strings. */
function withoutQueries(span: Span): void {
  const attributes = (span as unknown as { attributes?: Record<string, unknown> }).attributes ?? {};
  for (const name of URL_ATTRIBUTES) {
    const value = attributes[name];
    if (typeof value === 'string' && value.includes('?')) span.setAttribute(name, value.slice(0, value.indexOf('?')));
  }
  if (attributes['url.query'] !== undefined) span.setAttribute('url.query', '');
}

/**
 * The gateway's propagator when inbound trace context is not trusted: it injects (the services
 * and the bus get the gateway's trace) and extracts from NATS messages (internal), but never from
 * an HTTP request's headers (anyone's): a public request starts a new trace.
 */
class NotFromHttpRequests implements TextMapPropagator {
  constructor(private readonly inner: TextMapPropagator) {}

  inject(ctx: Context, carrier: unknown, setter: TextMapSetter): void {
    this.inner.inject(ctx, carrier, setter);
  }

  extract(ctx: Context, carrier: unknown, getter: TextMapGetter): Context {
    // NATS headers (MsgHdrs) have get(); node's IncomingHttpHeaders are a plain object
    const fromNats = typeof (carrier as { get?: unknown } | undefined)?.get === 'function';
    return fromNats ? this.inner.extract(ctx, carrier, getter) : ctx;
  }

  fields(): string[] {
    return this.inner.fields();
  }
}

/** `00-<trace id>-<span id>-<flags>` of the active span, or undefined when nothing is traced. */
export function activeTraceparent(): string | undefined {
  const span = trace.getSpan(context.active())?.spanContext();
  if (!span || !trace.isSpanContextValid(span)) return undefined;
  return `00-${span.traceId}-${span.spanId}-0${span.traceFlags.toString(16)}`;
}

/** The active trace id (problem+json bodies name it), or undefined. */
export function activeTraceId(): string | undefined {
  const span = trace.getSpan(context.active())?.spanContext();
  return span && trace.isSpanContextValid(span) ? span.traceId : undefined;
}

/** trace_id and span_id for a log line written while a request or message is handled (pino mixin). */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active())?.spanContext();
  return span && trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

/** Sets the W3C `traceresponse` header (the trace this request belongs to) on every response. */
export function withTraceResponse(handler: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const traceparent = activeTraceparent();
    if (traceparent) res.setHeader('traceresponse', traceparent);
    handler(req, res);
  };
}

/**
 * What a service's main.ts runs: tracing first (when configured), then `main`, which imports the
 * service (so http, express and pg load after the instrumentations). A tracing set-up that fails
 * stops the start-up, as any bad configuration does.
 */
export function runTraced(service: string, options: TracingOptions, main: (closeTracing: { name: string; close: () => Promise<void> }) => Promise<void>): void {
  startTracing(service, options)
    .then((tracing) => main({ name: 'tracing', close: async () => tracing?.shutdown() }))
    .catch((err: unknown) => {
      console.error(`${service} failed to start tracing:`, err);
      process.exit(1);
    });
}
