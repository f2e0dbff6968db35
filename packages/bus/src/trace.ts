/**
 * Trace context across the bus (OpenTelemetry, W3C trace context). Only the OpenTelemetry API is
 * used here: without an SDK registered (tracing off, the default) every call below is a no-op
 * that records nothing. With one (service-kit's startTracing), an event carries the `traceparent`
 * of the request that wrote its outbox row, and an rpc that of its caller; the consumer's or
 * responder's span continues it.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  createContextKey,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type TextMapGetter,
} from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/transport-node';

/** The headers of W3C trace context (what an outbox row stores and a NATS message carries). */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

const tracer = () => trace.getTracer('@pasar/bus');

/**
 * A trace the head sampler did not sample (nine in ten at 10 %; every service follows the
 * gateway's decision) records nothing, yet its context must still reach the log lines, the
 * answer's `traceresponse` and every request and message sent while it is handled, so that the
 * next service follows the same decision. Its context holds that trace context under this key of
 * ours instead of as a span: the instrumentations (pg's span per query, express's per route) do
 * nothing where the context holds no span, so an unsampled request or message costs them nothing,
 * where a non-recording span would make them build a name, attributes and callbacks per query.
 * `startHandling` makes such a context, `traceContextOf` reads either kind, and `traceHeadersOf`
 * carries either kind on.
 */
const UNSAMPLED = createContextKey('pasar unsampled trace');

/** A request's or message's work, started by `startHandling`. */
export interface Handling {
  /** The context to run the work in: its span's when the span records, else its trace context alone (see UNSAMPLED). */
  context: Context;
  /** Its trace context (what `traceresponse` names and what it sends carries), sampled or not. */
  traceContext: SpanContext;
  /** Its span, only when it records (sampled): the caller ends it. */
  span?: Span;
}

/**
 * Starts the span of a request's or message's work under `parent` (its extracted remote context,
 * or the root). `attributes` are set only on a span that records: an unsampled one would build
 * them for nothing (the samplers the variables choose do not read them).
 */
export function startHandling(name: string, kind: SpanKind, parent: Context, attributes?: () => Attributes, links?: Link[]): Handling {
  const span = tracer().startSpan(name, { kind, links }, parent);
  if (!span.isRecording()) return { context: trace.deleteSpan(parent).setValue(UNSAMPLED, span.spanContext()), traceContext: span.spanContext() };
  if (attributes) span.setAttributes(attributes());
  return { context: trace.setSpan(parent, span), traceContext: span.spanContext(), span };
}

/** The trace context of `ctx` (by default the active one): its span's or its unsampled trace's; undefined when nothing is traced. */
export function traceContextOf(ctx: Context = context.active()): SpanContext | undefined {
  const spanContext = trace.getSpanContext(ctx) ?? (ctx.getValue(UNSAMPLED) as SpanContext | undefined);
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * Runs `work` outside any trace: for the bus's own work that a request or message merely set
 * going (a timer it armed for rows of many requests), which belongs to none of their traces. What
 * `work` starts (timers, promises, queries) carries no trace context either.
 */
export function outsideTraces<T>(work: () => T): T {
  return context.with(ROOT_CONTEXT, work);
}

/** W3C's `traceparent` of a trace context: `00-<trace id>-<span id>-<flags>`. */
export function traceparentOf({ traceId, spanId, traceFlags }: SpanContext): string {
  return `00-${traceId}-${spanId}-0${traceFlags.toString(16)}`;
}

/**
 * The headers of W3C trace context that carry `spanContext` (sampled or not) to the next service:
 * `traceparent`, and `tracestate` when there is one. Made here rather than by the registered
 * propagator, which reads a span from a context: an unsampled trace's context holds none.
 */
export function traceHeadersOf(spanContext: SpanContext): Record<string, string> {
  const traceState = spanContext.traceState?.serialize();
  return traceState ? { traceparent: traceparentOf(spanContext), tracestate: traceState } : { traceparent: traceparentOf(spanContext) };
}

/** The trace context of `ctx` (by default the active one) as headers (empty when tracing is off or nothing is being traced). */
export function currentTraceHeaders(ctx: Context = context.active()): Record<string, string> {
  const active = traceContextOf(ctx);
  return active ? traceHeadersOf(active) : {};
}

/** Copies the trace headers of `from` (an outbox row's stored headers, or the active context) onto a NATS message's. */
export function setTraceHeaders(headers: MsgHdrs, from: Record<string, unknown> = currentTraceHeaders()): void {
  for (const name of TRACE_HEADERS) {
    const value = from[name];
    if (typeof value === 'string' && value) headers.set(name, value);
  }
}

const natsGetter: TextMapGetter<MsgHdrs | undefined> = {
  keys: (carrier) => (carrier ? [...carrier.keys()] : []),
  get: (carrier, key) => carrier?.get(key) || undefined,
};

/**
 * Runs `work` in a consumer span named `<event type> process` (OpenTelemetry's messaging
 * convention) that continues the message's trace, with `attributes` (the message id among them)
 * when the span records.
 */
export function inMessageSpan<T>(name: string, headers: MsgHdrs | undefined, attributes: () => Attributes, work: () => Promise<T>): Promise<T> {
  return inConsumerSpan(startHandling(name, SpanKind.CONSUMER, propagation.extract(ROOT_CONTEXT, headers, natsGetter), attributes), work);
}

/**
 * Runs `work` in one span for a batch of messages (handled in one transaction): a new trace that
 * links to each message's own, as a batch has no single parent.
 */
export function inBatchSpan<T>(name: string, messages: { headers: MsgHdrs | undefined; id: string }[], work: () => Promise<T>): Promise<T> {
  const links: Link[] = [];
  for (const message of messages) {
    const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, message.headers, natsGetter));
    if (spanContext) links.push({ context: spanContext, attributes: { 'messaging.message.id': message.id } });
  }
  return inConsumerSpan(startHandling(name, SpanKind.CONSUMER, ROOT_CONTEXT, () => ({ 'messaging.batch.message_count': messages.length }), links), work);
}

/** Runs `work` in the context of `handling`; its span, if any, ends with the work. */
function inConsumerSpan<T>(handling: Handling, work: () => Promise<T>): Promise<T> {
  return handling.span ? context.with(handling.context, ended<T>, undefined, handling.span, work) : context.with(handling.context, work);
}

async function ended<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}
