import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startOtlpReceiver } from '@pasar/testkit';
import { activeTraceId, activeTraceparent, isTracingConfigured, startTracing, traceLogFields } from './trace';

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
    expect(activeTraceparent()).toBeUndefined();
    expect(activeTraceId()).toBeUndefined();
    expect(traceLogFields()).toEqual({});
  });
});

describe('tracing on: what goes to the endpoint', () => {
  /**
   * A process that starts tracing (as a service's main.ts does) to an OTLP/HTTP receiver of the
   * test's with `extra` variables, records a span and a counter and stops: the receiver's requests
   * by path. (In a process of its own: the SDK's exporters load their HTTP code dynamically, which
   * jest's module sandbox refuses.)
   */
  async function exportsWith(extra: Record<string, string>): Promise<Record<string, number>> {
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
      await run(process.execPath, ['--import', 'tsx', '-e', script], { env, cwd: __dirname });
    } finally {
      await receiver.close();
    }
    return receiver.requests();
  }

  it('sends traces only, unless the metrics exporter is asked for', async () => {
    expect(await exportsWith({})).toEqual({ '/v1/traces': 1 });
    expect(await exportsWith({ OTEL_METRICS_EXPORTER: 'otlp' })).toEqual({ '/v1/traces': 1, '/v1/metrics': 1 });
  }, 60_000);
});
