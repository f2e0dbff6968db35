import { execFile } from 'node:child_process';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startOtlpReceiver, traceparentParts, type ReceivedSpan } from '@pasar/testkit';
import { ConfigError } from './config';
import { currentTraceHeaders } from '@pasar/bus/src/trace';
import { activeTraceId, instrumentationsFrom, isTracingConfigured, resourceDetectorsFrom, startTracing, traceExportersFrom, traceLogFields, tracedRequests } from './trace';

const run = promisify(execFile);

describe('tracing switch', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }, false],
  ])('%p → %p', (env, on) => {
    expect(isTracingConfigured(env as NodeJS.ProcessEnv)).toBe(on);
  });

  it('starts nothing without an endpoint; then nothing is traced and log lines get no trace fields', async () => {
    expect(await startTracing('test', {}, {})).toBeUndefined();
    expect(currentTraceHeaders()).toEqual({});
    expect(activeTraceId()).toBeUndefined();
    expect(traceLogFields()).toEqual({});
  });
});

describe('tracing on: what goes to the endpoint', () => {
  /**
   * A process that starts tracing (as a service's main.ts does) to an OTLP/HTTP receiver of the
   * test's with `extra` variables, records a span and a counter and stops: the receiver's requests
   * by path, the spans (decoded when in JSON) and what the process wrote to stderr. (In a process
   * of its own: the SDK's exporters load their HTTP code dynamically, which jest's module sandbox
   * refuses.)
   */
  async function exportsWith(extra: Record<string, string>): Promise<{ requests: Record<string, number>; spanCount: number; spans: ReceivedSpan[]; stderr: string }> {
    const receiver = await startOtlpReceiver();
    const script = [
      `const { metrics, trace } = require('@opentelemetry/api');`,
      `const { startTracing } = require(${JSON.stringify(join(__dirname, 'trace.ts'))});`,
      `startTracing('test').then(async (tracing) => {`,
      `  trace.getTracer('test').startSpan('work').end();`,
      `  metrics.getMeter('test').createCounter('work_done').add(1);`,
      `  await tracing.shutdown();`, // flushes what is buffered
      `});`,
    ].join('\n');
    try {
      const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'always_on', ...extra };
      const { stderr } = await run(process.execPath, ['--import', 'tsx', '-e', script], { env, cwd: __dirname });
      return { requests: receiver.requests(), spanCount: receiver.spanCount(), spans: [...receiver.spans], stderr };
    } finally {
      await receiver.close();
    }
  }

  it('sends traces only, in protobuf or JSON, with the service name; metrics asked for are ignored, with a warning', async () => {
    const protobuf = await exportsWith({});
    expect(protobuf.requests).toEqual({ '/v1/traces': 1 });
    expect(protobuf.spanCount).toBe(1);
    expect(protobuf.stderr).toBe('');
    const json = await exportsWith({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'renamed' });
    expect(json.spans.map((s) => [s.name, s.service])).toEqual([['work', 'renamed']]);
    const withMetrics = await exportsWith({ OTEL_METRICS_EXPORTER: 'otlp' });
    expect(withMetrics.requests).toEqual({ '/v1/traces': 1 });
    expect(withMetrics.stderr).toContain('OTEL_METRICS_EXPORTER=otlp is ignored');
  }, 60_000);

  it('sends nothing with OTEL_TRACES_EXPORTER=none, and refuses to start with an exporter or protocol it cannot honour', async () => {
    expect((await exportsWith({ OTEL_TRACES_EXPORTER: 'none' })).requests).toEqual({});
    await expect(exportsWith({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).rejects.toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported/);
  }, 60_000);
});

describe('the exporters and resource detectors the variables ask for', () => {
  it.each([
    [{}, ['otlp-protobuf']],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, ['otlp-protobuf']],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, ['otlp-json']],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }, ['otlp-protobuf']],
    [{ OTEL_TRACES_EXPORTER: 'otlp, console, otlp' }, ['otlp-protobuf', 'console']],
    [{ OTEL_TRACES_EXPORTER: 'none' }, []],
  ])('%p → %p', (env, kinds) => {
    expect(traceExportersFrom(env as NodeJS.ProcessEnv)).toEqual(kinds);
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER=zipkin is not supported'],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported'],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/xml' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/xml is not supported'],
  ])('%p is refused', (env, message) => {
    expect(() => traceExportersFrom(env as NodeJS.ProcessEnv)).toThrow(message);
    expect(() => traceExportersFrom(env as NodeJS.ProcessEnv)).toThrow(ConfigError);
  });

  it.each([
    [{}, ['env', 'process', 'host']],
    [{ OTEL_NODE_RESOURCE_DETECTORS: 'all' }, ['env', 'process', 'host', 'os', 'serviceinstance']],
    [{ OTEL_NODE_RESOURCE_DETECTORS: 'none' }, []],
    [{ OTEL_NODE_RESOURCE_DETECTORS: 'env, os' }, ['env', 'os']],
  ])('resource detectors %p → %p', (env, names) => {
    expect(resourceDetectorsFrom(env as NodeJS.ProcessEnv)).toEqual(names);
  });

  it('refuses an unknown resource detector, naming the variable', () => {
    expect(() => resourceDetectorsFrom({ OTEL_NODE_RESOURCE_DETECTORS: 'env,gcp' })).toThrow('OTEL_NODE_RESOURCE_DETECTORS: unknown detector gcp');
    expect(() => resourceDetectorsFrom({ OTEL_NODE_RESOURCE_DETECTORS: 'env,gcp' })).toThrow(ConfigError);
  });
});

describe('the instrumentations the variables leave', () => {
  it.each([
    [{}, ['express', 'pg']],
    [{ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http, pg' }, ['pg']],
    [{ OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg' }, ['express']],
    [{ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,express,pg', OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'express' }, ['pg']],
    [{ OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'express,pg' }, []],
  ])('%p → %p', (env, names) => {
    expect(instrumentationsFrom(env as NodeJS.ProcessEnv)).toEqual(names);
  });

  it.each([
    [{ OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg,fs' }, 'OTEL_NODE_DISABLED_INSTRUMENTATIONS: unknown instrumentation fs'],
    [{ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,mysql' }, 'OTEL_NODE_ENABLED_INSTRUMENTATIONS: unknown instrumentation mysql'],
    [{ OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'http' }, 'OTEL_NODE_DISABLED_INSTRUMENTATIONS: http cannot be turned off'],
    [{ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'pg' }, 'OTEL_NODE_ENABLED_INSTRUMENTATIONS must name http'],
  ])('%p is refused, naming the variable', (env, message) => {
    expect(() => instrumentationsFrom(env as NodeJS.ProcessEnv)).toThrow(message);
    expect(() => instrumentationsFrom(env as NodeJS.ProcessEnv)).toThrow(ConfigError);
  });
});

describe('HTTP server and client spans', () => {
  const FOREIGN_TRACE = '0af7651916cd43dd8448eb211c80319c';
  const UNSAMPLED_TRACE = '0af7651916cd43dd8448eb211c80319d';
  const THING = '/api/v1/things/42?token=secret';

  interface Answer {
    status: number;
    traceresponse: string | null;
    body: { id?: string; body?: unknown; sent?: Record<string, string>; spanInContext?: boolean };
  }
  interface Run {
    answers: Answer[];
    lines: { msg: string; trace_id?: string; span_id?: string; req?: { url: string } }[];
    /** What each message's work saw (test/traced-service.ts's `consume`). */
    messages: { spanInContext: boolean; sent: Record<string, string> }[];
    spans: ReceivedSpan[];
  }

  /** test/traced-service.ts with `extra` variables, sent `requests` (and `messages`, as traceparents): its answers, log lines and the spans it exported. */
  async function serve(requests: { path: string; traceparent?: string; tracestate?: string; slowBody?: boolean }[], extra: Record<string, string>, messages: string[] = []): Promise<Run> {
    const receiver = await startOtlpReceiver();
    try {
      const env = {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        REQUESTS: JSON.stringify(requests),
        MESSAGES: JSON.stringify(messages),
        ...extra,
      };
      const { stdout } = await run(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'test', 'traced-service.ts')], { env, cwd: __dirname });
      return { ...(JSON.parse(stdout) as Omit<Run, 'spans'>), spans: receiver.spans };
    } finally {
      await receiver.close();
    }
  }

  it('a sampled request: a server span named after its route, its handler in its trace after the body was read, a client span, log lines naming it', async () => {
    const { answers, lines, spans } = await serve(
      [
        { path: THING, slowBody: true },
        { path: THING, traceparent: `00-${FOREIGN_TRACE}-b7ad6b7169203331-01` },
        { path: THING, traceparent: 'garbage' },
        { path: '/healthz' },
        { path: THING, traceparent: `00-${UNSAMPLED_TRACE}-b7ad6b7169203331-00` },
      ],
      { OTEL_TRACES_SAMPLER: 'always_on' },
    );
    const [plain, continued, malformed, probe, overruled] = answers;
    expect(plain).toMatchObject({ status: 200, body: { id: '42', body: { note: 'hello' }, spanInContext: true } });

    // the server span is the one traceresponse names, with the route, the status and no query string
    const answered = traceparentParts(plain.traceresponse);
    expect(answered.sampled).toBe(true);
    const server = spans.find((s) => s.spanId === answered.spanId) as ReceivedSpan;
    expect(server).toMatchObject({ traceId: answered.traceId, name: 'POST /api/v1/things/:id', kind: 2, parentSpanId: undefined });
    expect(server.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/api/v1/things/:id', 'url.path': '/api/v1/things/42', 'http.response.status_code': 200 });
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('token=secret');

    // express's request handler span is in the trace, under the server span: the handler ran in it after express.json
    const inTrace = spans.filter((s) => s.traceId === answered.traceId);
    const handler = inTrace.find((s) => s.attributes['express.type'] === 'request_handler') as ReceivedSpan;
    const ancestors = (span: ReceivedSpan): string[] => {
      const parent = inTrace.find((s) => s.spanId === span.parentSpanId);
      return parent ? [parent.spanId, ...ancestors(parent)] : [];
    };
    expect(ancestors(handler)).toContain(server.spanId);
    // the client span is the handler's child, and the headers it gives carry it
    const client = inTrace.find((s) => s.kind === 3) as ReceivedSpan;
    expect(client).toMatchObject({ name: 'GET', parentSpanId: handler.spanId, attributes: { 'url.full': 'http://upstream.test/things', 'http.response.status_code': 200 } });
    expect(traceparentParts(plain.body.sent?.traceparent)).toEqual({ traceId: answered.traceId, spanId: client.spanId, sampled: true });

    // log lines: the handler's, and the request line written when the response closed
    expect(lines.find((l) => l.msg === 'handling a thing' && l.trace_id === answered.traceId)).toBeDefined();
    expect(lines.find((l) => l.msg === 'request completed' && l.trace_id === answered.traceId && l.span_id === answered.spanId)).toBeDefined();

    // an inbound traceparent is followed (a service behind the gateway); a malformed one is ignored
    const followed = traceparentParts(continued.traceresponse);
    expect(followed.traceId).toBe(FOREIGN_TRACE);
    expect(spans.find((s) => s.spanId === followed.spanId)?.parentSpanId).toBe('b7ad6b7169203331');
    expect(malformed.status).toBe(200);
    expect(traceparentParts(malformed.traceresponse).traceId).not.toBe(FOREIGN_TRACE);

    // always_on decides for itself: a parent that was not sampled is continued, and sampled
    const decided = traceparentParts(overruled.traceresponse);
    expect(decided).toMatchObject({ traceId: UNSAMPLED_TRACE, sampled: true });
    expect(spans.find((s) => s.spanId === decided.spanId)?.parentSpanId).toBe('b7ad6b7169203331');

    // probes: no span, no traceresponse
    expect(probe.status).toBe(200);
    expect(probe.traceresponse).toBeNull();
    expect(spans.filter((s) => s.attributes['url.path'] === '/healthz')).toEqual([]);
  }, 60_000);

  it('OTEL_NODE_DISABLED_INSTRUMENTATIONS=express: no route span, the HTTP spans and the trace as before', async () => {
    const { answers, spans } = await serve([{ path: THING }], { OTEL_TRACES_SAMPLER: 'always_on', OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'express' });
    const answered = traceparentParts(answers[0].traceresponse);
    expect(answers[0].body.spanInContext).toBe(true);
    const inTrace = spans.filter((s) => s.traceId === answered.traceId);
    expect(inTrace.filter((s) => s.attributes['express.type'] !== undefined)).toEqual([]);
    const server = inTrace.find((s) => s.spanId === answered.spanId);
    expect(server).toMatchObject({ name: 'POST /api/v1/things/:id', kind: 2 });
    // the client span now hangs straight from the server span
    expect(inTrace.find((s) => s.kind === 3)).toMatchObject({ parentSpanId: answered.spanId });
  }, 60_000);

  it("an unsampled request or message records nothing, yet names its trace and passes the decision on; the gateway's setting ignores inbound context", async () => {
    const unsampledParent = `00-${UNSAMPLED_TRACE}-b7ad6b7169203331-00`;
    const sampledParent = `00-${FOREIGN_TRACE}-b7ad6b7169203331-01`;
    const behind = await serve([{ path: THING, traceparent: unsampledParent, tracestate: 'vendor=opaque' }], {}, [unsampledParent, sampledParent]);
    const [answer] = behind.answers;
    expect(answer.status).toBe(200);
    // a span id of its own under the parent's trace
    const handled = traceparentParts(answer.traceresponse);
    expect(handled).toMatchObject({ traceId: UNSAMPLED_TRACE, sampled: false });
    expect(handled.spanId).not.toBe('b7ad6b7169203331');
    // no span in the handler's context, so pg's and express's instrumentations pass its queries and routes by
    expect(answer.body.spanInContext).toBe(false);
    // no span made for the call: its headers carry the request's unsampled context
    expect(traceparentParts(answer.body.sent?.traceparent)).toEqual({ traceId: UNSAMPLED_TRACE, spanId: handled.spanId, sampled: false });
    expect(answer.body.sent?.tracestate).toBe('vendor=opaque');
    // the log lines still name the trace
    expect(behind.lines.find((l) => l.msg === 'handling a thing')?.trace_id).toBe(UNSAMPLED_TRACE);

    // a consumer's message: unsampled, its work has no span either, yet what it sends (an outbox
    // row's headers) carries the trace and the decision; sampled, its span is exported and is what it sends
    const [unsampledMessage, sampledMessage] = behind.messages;
    expect(unsampledMessage.spanInContext).toBe(false);
    expect(traceparentParts(unsampledMessage.sent.traceparent)).toMatchObject({ traceId: UNSAMPLED_TRACE, sampled: false });
    expect(traceparentParts(unsampledMessage.sent.traceparent).spanId).not.toBe('b7ad6b7169203331');
    expect(sampledMessage.spanInContext).toBe(true);
    const consumer = traceparentParts(sampledMessage.sent.traceparent);
    expect(consumer).toMatchObject({ traceId: FOREIGN_TRACE, sampled: true });
    expect(behind.spans).toEqual([expect.objectContaining({ name: 'thing.made process', spanId: consumer.spanId, parentSpanId: 'b7ad6b7169203331', kind: 5 })]);

    // as the gateway (TRACE_TRUST_INBOUND unset): a new trace, sampled by its own decision
    const door = await serve([{ path: THING, traceparent: unsampledParent }], { TRUST_INBOUND: 'false' });
    const started = traceparentParts(door.answers[0].traceresponse);
    expect(started.traceId).not.toBe(UNSAMPLED_TRACE);
    expect(started.sampled).toBe(true);
    expect(door.spans.find((s) => s.spanId === started.spanId)?.parentSpanId).toBeUndefined();
  }, 60_000);
});

describe('tracing off', () => {
  it('leaves the request listener as it is', () => {
    const listener: RequestListener = (_req, res) => res.end();
    expect(tracedRequests(listener)).toBe(listener);
  });
});
