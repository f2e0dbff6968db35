import { runTraced } from '@pasar/service-kit/src/trace';

// tracing first (when OTEL_EXPORTER_OTLP_ENDPOINT is set): what it instruments loads after it
runTraced('b2b', {}, async (tracing) => {
  const { loadConfig, runMain } = await import('@pasar/service-kit');
  const { startB2b } = await import('./app.js');
  const { b2bConfigSchema } = await import('./config.js');
  runMain('b2b', async () => {
    const b2b = await startB2b(loadConfig(b2bConfigSchema));
    return { log: b2b.log, closers: [{ name: 'b2b', close: () => b2b.close() }, tracing] };
  });
});
