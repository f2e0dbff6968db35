import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP receiver got it, with the service.name of its resource. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT); the services must export http/json. */
  url: string;
  /** Every span received so far. */
  spans: ReceivedSpan[];
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
  attributes?: Attribute[];
}
function attributesOf(list: Attribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, Object.values(a.value)[0]]));
}

/** An OTLP/HTTP receiver of the JSON encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) on 127.0.0.1: keeps every span it is sent. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: { resource?: { attributes?: Attribute[] }; scopeSpans?: { spans?: RawSpan[] }[] }[];
        };
        for (const resource of body.resourceSpans ?? []) {
          const service = String(attributesOf(resource.resource?.attributes)['service.name']);
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({ service, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId || undefined, name: span.name, attributes: attributesOf(span.attributes) });
            }
          }
        }
      } catch {
        // not JSON: not ours to keep
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
