import { runTraced } from '@pasar/service-kit/src/trace';

// tracing first (when OTEL_EXPORTER_OTLP_ENDPOINT is set): what it instruments loads after it
runTraced('checkout', {}, async (tracing) => {
  const { loadConfig, runMain } = await import('@pasar/service-kit');
  const { startCheckout } = await import('./app.js');
  const { checkoutConfigSchema } = await import('./config.js');
  runMain('checkout', async () => {
    const checkout = await startCheckout(loadConfig(checkoutConfigSchema));
    return { log: checkout.log, closers: [{ name: 'checkout', close: () => checkout.close() }, tracing] };
  });
});
