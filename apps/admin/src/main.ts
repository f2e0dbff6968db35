import { runTraced } from '@pasar/service-kit/src/trace';

// tracing first (when OTEL_EXPORTER_OTLP_ENDPOINT is set): what it instruments loads after it
runTraced('admin', {}, async (tracing) => {
  const { loadConfig, runMain } = await import('@pasar/service-kit');
  const { startAdmin } = await import('./app.js');
  const { adminConfigSchema } = await import('./config.js');
  runMain('admin', async () => {
    const admin = await startAdmin(loadConfig(adminConfigSchema));
    return { log: admin.log, closers: [{ name: 'admin', close: () => admin.close() }, tracing] };
  });
});
