export * from './bus';
export * from './smtp';
export * from './identity';
export * from './wait';
export * from './ports';
export * from './nats-server';
export * from './service-suite';
export * from './fake-carrier';
