/**
 * OpenTelemetry tracing: off unless OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set.
 * Off, the SDK is never loaded (the imports below are dynamic) and the API calls elsewhere are
 * no-ops. On, spans for HTTP server and client, express routes and pg queries (Prisma runs on pg)
 * made while a request or a message is handled go to the OTLP endpoint; the standard OTEL_*
 * variables apply (protocol, sampler, service name, ...).
 *
 * The HTTP spans are this module's (`tracedRequests`, `startHttpClientSpan`), made with the
 * OpenTelemetry API, not @opentelemetry/instrumentation-http's. That instrumentation does its whole
 * work for every request, sampled or not: it builds the attributes, and binds the request, the
 * response and every listener later added to them to the request's context, so each of their
 * events (the body's chunks, the proxy's pipes, finish, close) runs through a context switch. At
 * 10 % sampling it doubled the CPU per order of the submit load (npm run bench -- --only tracing).
 * Here an unsampled request costs a sampler decision and one context switch: attributes and the
 * listener that ends the span only for the sampled. The request's context is entered once around
 * the handler; an unsampled request's holds its trace context but no span (the bus's
 * `startHandling`), so pg's and express's instrumentations skip its queries and routes. Nothing
 * binds the request's streams: what continues from their events must carry the context itself,
 * as promises do and the body parsers (raw-body binds its callback) do.
 *
 * This module imports nothing heavy at the top: a service's main.ts calls startTracing before it
 * loads the modules the instrumentations patch (express, pg).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { DiagConsoleLogger, ROOT_CONTEXT, SpanKind, SpanStatusCode, context, diag, propagation, trace, type Span } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
// the module, not @pasar/bus's index: that loads pg, which must load after the instrumentations
import { currentTraceHeaders, startHandling, traceContextOf, traceHeadersOf, traceparentOf } from '@pasar/bus/src/trace';
import { ConfigError } from './config';

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

/** Set by startTracing: HTTP requests get spans (and whether an inbound `traceparent` is followed). */
let httpTracing: { trustInbound: boolean } | undefined;

const tracer = () => trace.getTracer('@pasar/service-kit');

/** True when the environment asks for traces. */
export function isTracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The exporters OTEL_TRACES_EXPORTER names that this process can send to (the spec's `none`: none at all). */
export type TraceExporterKind = 'otlp-protobuf' | 'otlp-json' | 'console';

/**
 * The span exporters the standard variables ask for: OTEL_TRACES_EXPORTER (a list; default
 * `otlp`; `none` alone: none) and, for `otlp`, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or
 * OTEL_EXPORTER_OTLP_PROTOCOL (default `http/protobuf`; or `http/json`). Throws, naming the
 * variable, for a value this process cannot honour (zipkin, grpc, a typo): started anyway, it
 * would drop every span without a word.
 */
export function traceExportersFrom(env: NodeJS.ProcessEnv): TraceExporterKind[] {
  const names = [...new Set(listOf(env.OTEL_TRACES_EXPORTER))];
  if (names.length === 1 && names[0] === 'none') return [];
  return (names.length === 0 ? ['otlp'] : names).map((name): TraceExporterKind => {
    if (name === 'console') return 'console';
    if (name !== 'otlp') throw new ConfigError(`OTEL_TRACES_EXPORTER=${name} is not supported: use otlp, console or none`);
    const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
    const protocol = env[variable]?.trim() || 'http/protobuf';
    if (protocol === 'http/protobuf') return 'otlp-protobuf';
    if (protocol === 'http/json') return 'otlp-json';
    throw new ConfigError(`${variable}=${protocol} is not supported: use http/protobuf or http/json`);
  });
}

/** A comma-separated list variable's entries, trimmed, the empty ones dropped (OpenTelemetry's list variables). */
function listOf(value: string | undefined): string[] {
  return (value ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
}

/** The resource detectors the Node SDK knows, by the names OTEL_NODE_RESOURCE_DETECTORS uses. */
const RESOURCE_DETECTORS = ['env', 'process', 'host', 'os', 'serviceinstance'] as const;
type ResourceDetectorName = (typeof RESOURCE_DETECTORS)[number];

/** The resource detectors OTEL_NODE_RESOURCE_DETECTORS names (as the Node SDK reads it; default env, process and host). */
export function resourceDetectorsFrom(env: NodeJS.ProcessEnv): ResourceDetectorName[] {
  const names = listOf(env.OTEL_NODE_RESOURCE_DETECTORS);
  if (names.length === 0) return ['env', 'process', 'host'];
  if (names.includes('all')) return [...RESOURCE_DETECTORS];
  if (names.includes('none')) return [];
  for (const name of names) {
    if (!(RESOURCE_DETECTORS as readonly string[]).includes(name)) throw new ConfigError(`OTEL_NODE_RESOURCE_DETECTORS: unknown detector ${name} (use ${RESOURCE_DETECTORS.join(', ')}, all or none)`);
  }
  return names as ResourceDetectorName[];
}

/** The instrumentations this process registers, by the names OTEL_NODE_*_INSTRUMENTATIONS use. */
const INSTRUMENTATIONS = ['express', 'pg'] as const;
type InstrumentationName = (typeof INSTRUMENTATIONS)[number];

/**
 * The instrumentations to register, as @opentelemetry/auto-instrumentations-node reads its
 * variables: OTEL_NODE_ENABLED_INSTRUMENTATIONS (names without the `@opentelemetry/instrumentation-`
 * prefix; default all) first, then OTEL_NODE_DISABLED_INSTRUMENTATIONS takes names away. `http`
 * is always on: the HTTP spans are this module's and carry the trace from service to service, so
 * a list that turns it off is refused, as is an unknown name, naming the variable.
 */
export function instrumentationsFrom(env: NodeJS.ProcessEnv): InstrumentationName[] {
  const known = ['http', ...INSTRUMENTATIONS] as const;
  const read = (variable: 'OTEL_NODE_ENABLED_INSTRUMENTATIONS' | 'OTEL_NODE_DISABLED_INSTRUMENTATIONS') => {
    const names = listOf(env[variable]);
    for (const name of names) {
      if (!(known as readonly string[]).includes(name)) throw new ConfigError(`${variable}: unknown instrumentation ${name} (this service has ${known.join(', ')})`);
    }
    return names;
  };
  const enabled = read('OTEL_NODE_ENABLED_INSTRUMENTATIONS');
  const disabled = read('OTEL_NODE_DISABLED_INSTRUMENTATIONS');
  if (disabled.includes('http')) throw new ConfigError('OTEL_NODE_DISABLED_INSTRUMENTATIONS: http cannot be turned off (its spans carry the trace from service to service)');
  if (enabled.length > 0 && !enabled.includes('http')) throw new ConfigError('OTEL_NODE_ENABLED_INSTRUMENTATIONS must name http (its spans carry the trace from service to service)');
  return INSTRUMENTATIONS.filter((name) => (enabled.length === 0 || enabled.includes(name)) && !disabled.includes(name));
}

/**
 * Starts tracing when configured (see the module comment); undefined when not. Call it first in
 * main.ts, then import the service.
 *
 * Traces only, from the trace SDK's own packages (the tracer provider with its context manager,
 * the batch span processor, the OTLP exporter of the chosen protocol, the resource detectors, the
 * instrumentations that OTEL_NODE_ENABLED_INSTRUMENTATIONS and OTEL_NODE_DISABLED_INSTRUMENTATIONS
 * leave), not @opentelemetry/sdk-node. That one loads every signal's SDK and every exporter
 * whatever the variables ask (2,107 modules and 18.9 MB of heap, against 314 and 3.6 MB): loaded
 * alone and never started, it cost 4 % of the services' CPU per order (npm run bench -- --only
 * tracing; docs/performance.md), most likely in garbage collection of the larger heap. The
 * variables keep their documented meaning: the sampler, span limits and OTEL_BSP_* through the
 * provider and processor, the endpoint, headers, timeout and compression through the exporter,
 * the service name and OTEL_RESOURCE_ATTRIBUTES through the env detector, OTEL_LOG_LEVEL. Metrics
 * and logs are not exported: the services' metrics are Prometheus's (/metrics), their logs go to
 * stdout.
 */
export async function startTracing(service: string, options: TracingOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<TracingHandle | undefined> {
  if (!isTracingConfigured(env)) return undefined;
  const exporterKinds = traceExportersFrom(env);
  const detectorNames = resourceDetectorsFrom(env);
  const instrumentationNames = instrumentationsFrom(env);
  const [sdk, resources, { diagLogLevelFromString, W3CTraceContextPropagator }, { registerInstrumentations }, { ExpressInstrumentation, ExpressLayerType }, { PgInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  const logLevel = env.OTEL_LOG_LEVEL?.trim();
  if (logLevel) diag.setLogger(new DiagConsoleLogger(), { logLevel: diagLogLevelFromString(logLevel) });
  for (const variable of ['OTEL_METRICS_EXPORTER', 'OTEL_LOGS_EXPORTER'] as const) {
    const value = env[variable]?.trim();
    if (value && value !== 'none') console.warn(`${service}: ${variable}=${value} is ignored: this service exports traces only (its metrics are on /metrics)`);
  }
  const spanProcessors: SpanProcessor[] = [];
  for (const kind of exporterKinds) {
    if (kind === 'console') {
      spanProcessors.push(new sdk.SimpleSpanProcessor(new sdk.ConsoleSpanExporter()));
      continue;
    }
    const { OTLPTraceExporter } = kind === 'otlp-json' ? await import('@opentelemetry/exporter-trace-otlp-http') : await import('@opentelemetry/exporter-trace-otlp-proto');
    spanProcessors.push(new sdk.BatchSpanProcessor(new OTLPTraceExporter()));
  }
  const detectors = { env: resources.envDetector, process: resources.processDetector, host: resources.hostDetector, os: resources.osDetector, serviceinstance: resources.serviceInstanceIdDetector };
  const resource = resources
    .defaultResource()
    .merge(resources.detectResources({ detectors: detectorNames.map((name) => detectors[name]) }))
    .merge(resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || service }));
  const provider = new sdk.NodeTracerProvider({ resource, spanProcessors });
  // for extraction only: the bus's traceHeadersOf makes what this process sends (an unsampled
  // trace's context holds no span for a propagator to inject)
  provider.register({ propagator: new W3CTraceContextPropagator() });
  const instrumentationOf: Record<InstrumentationName, () => Instrumentation> = {
    // a span per route (its request handler layer), none per middleware or router layer (body
    // parsing, helmet, cors, the identity check, the /api/v1 router, ...): those ran on every
    // request for little news, and each span of a sampled trace is recorded, encoded and posted
    express: () => new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
    // statements only (with their $n placeholders): never the values bound to them. Only inside a
    // request's or a message's span: the background queries (outbox relay polls, inbox and worker
    // sweeps) would otherwise each start a trace of their own, sampled and exported like a
    // request's. No span for taking a connection from the pool (one per statement of Prisma's)
    pg: () => new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true, ignoreConnectSpans: true }),
  };
  // HTTP: tracedRequests and startHttpClientSpan below
  const unregister = registerInstrumentations({ tracerProvider: provider, instrumentations: instrumentationNames.map((name) => instrumentationOf[name]()) });
  httpTracing = { trustInbound: options.trustInbound !== false };
  return {
    shutdown: async () => {
      httpTracing = undefined;
      unregister();
      await provider.shutdown();
    },
  };
}

/** The active trace id (problem+json bodies name it), or undefined. */
export function activeTraceId(): string | undefined {
  return traceContextOf()?.traceId;
}

/** trace_id and span_id for a log line written while a request or message is handled (pino mixin). */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const active = traceContextOf();
  return active ? { trace_id: active.traceId, span_id: active.spanId } : {};
}

/** Probes and scrapes: no span. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The server span of a sampled request by its response, for the route it names (`nameServerSpan`).
 * Not a property of the response: one that only a tenth of the responses had would give them a
 * hidden class of their own, and every property access of node's http code on a response would
 * then meet two shapes.
 */
const serverSpans = new WeakMap<ServerResponse, { span: Span; method: string }>();

/**
 * The node server's request listener with a SERVER span per request when tracing is on (the
 * listener itself when off). The span continues an inbound `traceparent` (a malformed one is
 * ignored) unless the process does not trust inbound context (the gateway); the handler runs in
 * its context (an unsampled one's without a span: the bus's `startHandling`); the response names
 * it in `traceresponse`. Only a sampled span gets attributes (method, path without its query,
 * protocol, peer; status, route) and a listener to end it.
 */
export function tracedRequests(handler: RequestListener): RequestListener {
  const settings = httpTracing;
  if (!settings) return handler;
  return (req, res) => {
    if (UNTRACED_PATHS.has(req.url ?? '')) return handler(req, res);
    const parent = settings.trustInbound ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT;
    const method = req.method ?? 'GET';
    const handling = startHandling(method, SpanKind.SERVER, parent);
    res.setHeader('traceresponse', traceparentOf(handling.traceContext));
    if (handling.span) recordServerSpan(handling.span, method, req, res);
    context.with(handling.context, handler, undefined, req, res);
  };
}

function recordServerSpan(span: Span, method: string, req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  span.setAttributes({
    'http.request.method': method,
    'url.path': query === -1 ? url : url.slice(0, query), // never the query: it may hold signatures or tokens
    'url.scheme': 'http',
    'network.protocol.version': req.httpVersion,
    ...(req.socket.localPort !== undefined ? { 'server.port': req.socket.localPort } : {}),
    ...(req.socket.remoteAddress !== undefined ? { 'network.peer.address': req.socket.remoteAddress } : {}),
  });
  serverSpans.set(res, { span, method });
  res.once('close', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    else if (!res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR, message: 'the client closed the connection before the answer' });
    span.end();
  });
}

/** Names a sampled request's server span after its route (`POST /api/v1/checkout/submit`), as its metric does. */
export function nameServerSpan(res: ServerResponse, route: string): void {
  const server = serverSpans.get(res);
  if (!server) return;
  server.span.setAttribute('http.route', route);
  server.span.updateName(`${server.method} ${route}`);
}

/** An HTTP request this process sends: the headers that carry its trace context, and its span's end. */
export class HttpClientCall {
  constructor(
    /** `traceparent` (and `tracestate`) to send; empty without tracing. */
    readonly headers: Record<string, string>,
    private readonly span?: Span,
  ) {}

  /** Ends the span with the answer's status (undefined: no answer), when there is one. */
  end(statusCode: number | undefined): void {
    if (!this.span) return;
    if (statusCode !== undefined) this.span.setAttribute('http.response.status_code', statusCode);
    if (statusCode === undefined || statusCode >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.end();
  }
}

/**
 * A CLIENT span for an HTTP request this process sends, a child of the active span, and the
 * `traceparent` (and `tracestate`) headers that carry it. Inside an unsampled request no span is
 * made: the headers carry the active context, so the callee follows the same decision. Without
 * tracing (or outside any span) the headers are empty and `end` does nothing. (A class, not
 * closures: nothing is made per call beyond the headers.)
 */
export function startHttpClientSpan(method: string, url: string): HttpClientCall {
  const active = context.active();
  if (!trace.getSpan(active)?.isRecording()) return new HttpClientCall(currentTraceHeaders(active));
  const query = url.indexOf('?');
  const span = tracer().startSpan(method, { kind: SpanKind.CLIENT, attributes: { 'http.request.method': method, 'url.full': query === -1 ? url : url.slice(0, query) } }, active);
  return new HttpClientCall(traceHeadersOf(span.spanContext()), span);
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
