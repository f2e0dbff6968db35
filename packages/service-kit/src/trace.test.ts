import { activeTraceId, activeTraceparent, isTracingConfigured, startTracing, traceLogFields } from './trace';

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
