/**
 * Trace context across the bus (OpenTelemetry, W3C trace context). Only the OpenTelemetry API is
 * used here: without an SDK registered (tracing off, the default) every call below is a no-op
 * that records nothing. With one (service-kit's startTracing), an event carries the `traceparent`
 * of the request that wrote its outbox row, and an rpc that of its caller; the consumer's or
 * responder's span continues it.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Link, type TextMapGetter } from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/transport-node';

/** The headers of W3C trace context (what an outbox row stores and a NATS message carries). */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

const tracer = () => trace.getTracer('@pasar/bus');

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
  const parent = propagation.extract(ROOT_CONTEXT, headers, natsGetter);
  return tracer().startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent, (span) => ended(span, work));
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
  const attributes = { 'messaging.batch.message_count': messages.length };
  return tracer().startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes, links }, ROOT_CONTEXT, (span) => ended(span, work));
}

async function ended<T>(span: ReturnType<ReturnType<typeof tracer>['startSpan']>, work: () => Promise<T>): Promise<T> {
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
