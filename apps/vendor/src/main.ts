import { runTraced } from '@pasar/service-kit/src/trace';

// tracing first (when OTEL_EXPORTER_OTLP_ENDPOINT is set): what it instruments loads after it
runTraced('vendor', {}, async (tracing) => {
  const { loadConfig, runMain } = await import('@pasar/service-kit');
  const { startVendor } = await import('./app.js');
  const { vendorConfigSchema } = await import('./config.js');
  runMain('vendor', async () => {
    const vendor = await startVendor(loadConfig(vendorConfigSchema));
    return { log: vendor.log, closers: [{ name: 'vendor', close: () => vendor.close() }, tracing] };
  });
});
