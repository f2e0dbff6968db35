import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { Reader } from 'protobufjs/minimal';

/**
 * The parts of a W3C `traceparent` (or `traceresponse`, which has its shape): the trace id, the
 * span id and whether it was sampled. Throws, naming the value, for anything else.
 */
export function traceparentParts(value: string | null | undefined): { traceId: string; spanId: string; sampled: boolean } {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/.exec(value ?? '');
  if (!match) throw new Error(`not a traceparent: ${value}`);
  return { traceId: match[1], spanId: match[2], sampled: match[3] === '01' };
}

/** One span as an OTLP receiver got it (JSON encoding), with the service.name of its resource. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT): the exporters post to <url>/v1/traces, /v1/metrics, /v1/logs. */
  url: string;
  /** Every span received so far in the JSON encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json), decoded. */
  spans: ReceivedSpan[];
  /** How many spans trace exports carried so far, in either encoding (protobuf, the SDK's default, is counted, not decoded). */
  spanCount(): number;
  /** Export requests received so far, by path (what else the SDK sends: metrics, logs). */
  requests(): Record<string, number>;
  close(): Promise<void>;
}

interface Attribute {
  key: string;
  value: Record<string, unknown>;
}
interface RawSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  status?: { code?: number };
  attributes?: Attribute[];
}
interface JsonExport {
  resourceSpans?: { resource?: { attributes?: Attribute[] }; scopeSpans?: { spans?: RawSpan[] }[] }[];
}

function attributesOf(list: Attribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, Object.values(a.value)[0]]));
}

/** The spans of a JSON trace export, each with its resource's service.name. */
function spansOfJson(request: JsonExport): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resource) => {
    const service = String(attributesOf(resource.resource?.attributes)['service.name']);
    return (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind ?? 0,
        statusCode: span.status?.code ?? 0,
        attributes: attributesOf(span.attributes),
      })),
    );
  });
}

/**
 * The number of spans in one OTLP/HTTP trace export (ExportTraceServiceRequest), protobuf or JSON:
 * resource_spans (1) → scope_spans (2) → spans (2).
 */
export function spansIn(body: Uint8Array, contentType: string): number {
  if (/json/i.test(contentType)) return spansOfJson(JSON.parse(Buffer.from(body).toString('utf8')) as JsonExport).length;
  let count = 0;
  eachMessage(body, 1, (resource) => eachMessage(resource, 2, (scope) => eachMessage(scope, 2, () => (count += 1))));
  return count;
}

/** Calls `onField` with each length-delimited field `field` of a protobuf message (the others are skipped). */
function eachMessage(message: Uint8Array, field: number, onField: (bytes: Uint8Array) => void): void {
  const reader = Reader.create(message);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === field && (tag & 7) === 2) onField(reader.bytes());
    else reader.skipType(tag & 7);
  }
}

/**
 * An OTLP/HTTP receiver on a free port of 127.0.0.1: counts the requests by path and the spans of
 * every trace export, and keeps the spans of JSON exports. Every export is answered 200 with an
 * empty export response in its encoding; a trace export it cannot read, 400.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let spanCount = 0;
  const requests: Record<string, number> = {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      requests[path] = (requests[path] ?? 0) + 1;
      const contentType = req.headers['content-type'] ?? '';
      const json = /json/i.test(contentType);
      try {
        if (req.method === 'POST' && path.endsWith('/v1/traces')) {
          const raw = Buffer.concat(chunks);
          const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
          if (json) {
            const received = spansOfJson(JSON.parse(body.toString('utf8')) as JsonExport);
            spans.push(...received);
            spanCount += received.length;
          } else {
            spanCount += spansIn(body, contentType);
          }
        }
        res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : undefined);
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    spanCount: () => spanCount,
    requests: () => ({ ...requests }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
