import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { Reader } from 'protobufjs/minimal';

/**
 * The number of spans in one OTLP/HTTP trace export (ExportTraceServiceRequest), protobuf (the
 * SDK's default, http/protobuf) or JSON (http/json): resource_spans (1) → scope_spans (2) → spans (2).
 */
export function spansIn(body: Uint8Array, contentType: string): number {
  if (/json/i.test(contentType)) {
    const request = JSON.parse(Buffer.from(body).toString('utf8')) as { resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[] };
    let count = 0;
    for (const resource of request.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) count += scope.spans?.length ?? 0;
    return count;
  }
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

export interface OtlpSink {
  /** The OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT): the exporters post to <url>/v1/traces, /v1/metrics, /v1/logs. */
  url: string;
  /** Spans received so far. */
  spans(): number;
  /** Export requests received so far, by path (what else the SDK sends: metrics, logs). */
  requests(): Record<string, number>;
  close(): Promise<void>;
}

/**
 * An OTLP/HTTP receiver on a free port of 127.0.0.1 that keeps nothing but counts: the spans of
 * each trace export, and the requests by path. Every export is answered 200 with an empty body
 * (an empty export response, in either encoding). A body it cannot read answers 400.
 */
export async function startOtlpSink(): Promise<OtlpSink> {
  let spans = 0;
  const requests: Record<string, number> = {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      requests[path] = (requests[path] ?? 0) + 1;
      try {
        if (req.method === 'POST' && path.endsWith('/v1/traces')) {
          const raw = Buffer.concat(chunks);
          const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
          spans += spansIn(body, req.headers['content-type'] ?? '');
        }
        const json = /json/i.test(req.headers['content-type'] ?? '');
        res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : undefined);
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    requests: () => ({ ...requests }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
