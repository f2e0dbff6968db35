export {
  startStack,
  dropSchemas,
  deleteStreams,
  StackStartError,
  waitUntilReady,
  instanceName,
  MAX_REPLICAS,
  type Stack,
  type StackOptions,
  type StackService,
  type StopOptions,
  type PostgresSource,
  type NatsSource,
} from './stack';
export { SERVICES, SERVICE_NAMES, DEFAULT_PORTS, schemaFor, schemasFor, databaseUrlForSchema, baseDatabaseUrl, type ServiceName } from './services';
export { consoleSink, silentSink, formatServiceLine, type LogSink, type LogEntry } from './logs';
export { startNatsServer, NatsServerMissingError, NATS_INSTALL_HINT, type LocalNats, type StartNatsOptions } from './nats';
export { startLocalPostgres, choosePostgresLauncher, detectPostgresEnvironment, type LocalPostgres, type PostgresLauncher } from './postgres';
export { probeNats, probePostgres, findOnPath } from './probes';
export * from './seed';
export * from './seed-client';
export * from './seed-b2b';
export { ManagedProcess } from './process';
export { onStopSignals, type SignalGate, type StopSignalOptions } from './signals';
