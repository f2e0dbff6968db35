/**
 * A service with tracing on, for trace.test.ts, in a process of its own (the SDK's exporters load
 * their HTTP code dynamically, which jest's module sandbox refuses). It starts tracing as a
 * service's main.ts does (TRUST_INBOUND=false: as the gateway), then createService's app with one
 * express route that reads a JSON body, logs, and makes a client span; sends it the requests the
 * test gives (REQUESTS: JSON list of { path, traceparent?, tracestate?, slowBody? }: a slow body
 * comes in two chunks 50 ms apart, so the body parser finishes from a later read of the
 * connection), handles a message as a consumer does for each `traceparent` of MESSAGES (a JSON
 * list), stops (the spans are flushed) and prints the answers, the log lines and what each
 * message's work saw as JSON.
 */
import { headers as natsHeaders } from '@nats-io/transport-node';
import { context, trace } from '@opentelemetry/api';
import { currentTraceHeaders, inMessageSpan } from '@pasar/bus/src/trace';
import { startTracing } from '@pasar/service-kit/src/trace';

interface Sent {
  path: string;
  traceparent?: string;
  tracestate?: string;
  slowBody?: boolean;
}

/** A message handled as a consumer does (inMessageSpan), its `traceparent` the one given: what its work saw and sent. */
async function consume(traceparent: string) {
  const headers = natsHeaders();
  headers.set('traceparent', traceparent);
  return inMessageSpan('thing.made process', headers, () => ({ 'messaging.message.id': 'm-1' }), async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return { spanInContext: trace.getSpan(context.active()) !== undefined, sent: currentTraceHeaders() };
  });
}

/** The JSON body `{"note":"hello"}`, its second half 50 ms after the first. */
function slowly(): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    async start(controller) {
      controller.enqueue(encoder.encode('{"note":'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.enqueue(encoder.encode('"hello"}'));
      controller.close();
    },
  });
}

async function main(): Promise<void> {
  const tracing = await startTracing('traced', { trustInbound: process.env.TRUST_INBOUND !== 'false' });
  // after tracing, as main.ts does: express loads once the instrumentations are in place
  const { createLogger, createService, startHttpClientSpan } = await import('@pasar/service-kit');
  const lines: unknown[] = [];
  const log = createLogger('traced', 'info', { write: (line: string) => void lines.push(JSON.parse(line)) });
  const service = createService({
    name: 'traced',
    log,
    identitySecret: 'traced-service-secret-1234567890',
    authenticate: (req, _res, next) => {
      req.identity = null;
      next();
    },
    routes: (router) => {
      router.post('/things/:id', (req, res) => {
        // after the body parser: the request's trace again
        req.log.info({ thing: req.params.id }, 'handling a thing');
        const call = startHttpClientSpan('GET', 'http://upstream.test/things?token=secret');
        call.end(200);
        // what pg's and express's instrumentations look for: without a span they record nothing
        res.json({ id: req.params.id, body: req.body as unknown, sent: call.headers, spanInContext: trace.getSpan(context.active()) !== undefined });
      });
    },
  });
  const server = await service.listen(0);
  const answers = [];
  for (const sent of JSON.parse(process.env.REQUESTS ?? '[]') as Sent[]) {
    const response = await fetch(`${server.url}${sent.path}`, {
      method: sent.path === '/healthz' ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', ...(sent.traceparent ? { traceparent: sent.traceparent } : {}), ...(sent.tracestate ? { tracestate: sent.tracestate } : {}) },
      ...(sent.path === '/healthz' ? {} : sent.slowBody ? { body: slowly(), duplex: 'half' } : { body: JSON.stringify({ note: 'hello' }) }),
    } as RequestInit);
    answers.push({ status: response.status, traceresponse: response.headers.get('traceresponse'), body: (await response.json()) as unknown });
  }
  await server.close();
  const messages = [];
  for (const traceparent of JSON.parse(process.env.MESSAGES ?? '[]') as string[]) messages.push(await consume(traceparent));
  await tracing?.shutdown();
  process.stdout.write(JSON.stringify({ answers, lines, messages }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
