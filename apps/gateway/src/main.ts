import { runMain } from '@pasar/service-kit';
import { SERVICE_NAME, startGateway } from './app';
import { loadGatewayConfig } from './config';

// config (fails fast with every bad variable named) → gateway → graceful shutdown on SIGTERM/SIGINT
runMain(SERVICE_NAME, async () => {
  const gateway = await startGateway(loadGatewayConfig());
  return { log: gateway.log, closers: [{ name: 'gateway', close: () => gateway.close() }] };
});
