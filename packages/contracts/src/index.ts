export * from './messaging';
export * from './email';
export * from './events';
export * from './rpc';
export * from './http/common';
export * from './http/auth';
export * from './http/addresses';
export * from './openapi';
