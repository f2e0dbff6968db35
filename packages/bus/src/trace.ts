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
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
  type TextMapGetter,
  type TextMapPropagator,
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
 * `contextWith` makes such a context, `traceContextOf` reads either kind, and the propagator
 * service-kit registers (`propagatingUnsampled`) injects either kind.
 */
const UNSAMPLED = createContextKey('pasar unsampled trace');

/** The context to handle `span`'s work in: the span's own when it records, else its trace context alone (see UNSAMPLED). */
export function contextWith(span: Span, parent: Context): Context {
  return span.isRecording() ? trace.setSpan(parent, span) : trace.deleteSpan(parent).setValue(UNSAMPLED, span.spanContext());
}

/** The trace context of `ctx` (by default the active one): its span's or its unsampled trace's; undefined when nothing is traced. */
export function traceContextOf(ctx: Context = context.active()): SpanContext | undefined {
  const spanContext = trace.getSpanContext(ctx) ?? (ctx.getValue(UNSAMPLED) as SpanContext | undefined);
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** `propagator` (W3C trace context), which also injects the trace context of an unsampled trace's context (see UNSAMPLED). */
export function propagatingUnsampled(propagator: TextMapPropagator): TextMapPropagator {
  return {
    inject(ctx, carrier, setter) {
      const unsampled = trace.getSpan(ctx) ? undefined : (ctx.getValue(UNSAMPLED) as SpanContext | undefined);
      propagator.inject(unsampled ? trace.setSpanContext(ctx, unsampled) : ctx, carrier, setter);
    },
    extract: (ctx, carrier, getter) => propagator.extract(ctx, carrier, getter),
    fields: () => propagator.fields(),
  };
}

/** The active trace context as headers (empty when tracing is off or nothing is being traced). */
export function currentTraceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
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
 * convention) that continues the message's trace, with the message id as an attribute.
 */
export function inMessageSpan<T>(name: string, headers: MsgHdrs | undefined, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T> {
  return inConsumerSpan(name, { attributes }, propagation.extract(ROOT_CONTEXT, headers, natsGetter), work);
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
  return inConsumerSpan(name, { attributes: { 'messaging.batch.message_count': messages.length }, links }, ROOT_CONTEXT, work);
}

/** Runs `work` in a CONSUMER span under `parent`, in the context `contextWith` gives it; the span ends with the work. */
function inConsumerSpan<T>(name: string, options: Pick<SpanOptions, 'attributes' | 'links'>, parent: Context, work: () => Promise<T>): Promise<T> {
  const span = tracer().startSpan(name, { ...options, kind: SpanKind.CONSUMER }, parent);
  return context.with(contextWith(span, parent), ended<T>, undefined, span, work);
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
