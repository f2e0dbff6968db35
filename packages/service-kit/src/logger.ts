import pino, { type Logger } from 'pino';

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ name: service, level, base: { service }, redact: ['req.headers.cookie', 'req.headers["x-pasar-sig"]', 'password'] });
}
