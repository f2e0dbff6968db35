import { runTraced } from '@pasar/service-kit/src/trace';

// tracing first (when OTEL_EXPORTER_OTLP_ENDPOINT is set): what it instruments loads after it
runTraced('notifier', {}, async (tracing) => {
  const { loadConfig, runMain } = await import('@pasar/service-kit');
  const { startNotifier } = await import('./app.js');
  const { notifierConfigSchema } = await import('./config.js');
  runMain('notifier', async () => {
    const notifier = await startNotifier(loadConfig(notifierConfigSchema));
    return { log: notifier.log, closers: [{ name: 'notifier', close: () => notifier.close() }, tracing] };
  });
});
