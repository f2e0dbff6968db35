import { runTraced } from '@pasar/service-kit/src/trace';

// tracing first (when OTEL_EXPORTER_OTLP_ENDPOINT is set): what it instruments loads after it. The
// gateway is the public door: an inbound traceparent is followed only with TRACE_TRUST_INBOUND=true.
runTraced('gateway', { trustInbound: process.env.TRACE_TRUST_INBOUND === 'true' }, async (tracing) => {
  const { runMain } = await import('@pasar/service-kit');
  const { SERVICE_NAME, startGateway } = await import('./app.js');
  const { loadGatewayConfig } = await import('./config.js');
  // config (fails fast with every bad variable named) → gateway → graceful shutdown on SIGTERM/SIGINT
  runMain(SERVICE_NAME, async () => {
    const gateway = await startGateway(loadGatewayConfig());
    return { log: gateway.log, closers: [{ name: 'gateway', close: () => gateway.close() }, tracing] };
  });
});
