import pino, { type DestinationStream, type Logger } from 'pino';
import { traceLogFields } from './trace';

/**
 * What never reaches a log line: session cookies (request `Cookie` and response `Set-Cookie`),
 * credentials, the gateway's identity signature, passwords and tokens wherever they sit in a
 * logged object (top level or one level down, e.g. `vars.temporaryPassword`), and the payment
 * signatures (`skey`, `vcode`) and the label links' `signature`.
 */
const SECRET_FIELDS = ['password', 'newPassword', 'currentPassword', 'temporaryPassword', 'token', 'sessionToken', 'secret', 'skey', 'vcode', 'signature'];
export const REDACTED_LOG_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers["x-pasar-sig"]',
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
];

/** Query parameters whose values never reach a log (the URL of a logged request keeps their names). */
const SECRET_QUERY = /([?&](?:password|newPassword|currentPassword|temporaryPassword|token|sessionToken|secret|skey|vcode|signature)=)[^&#]*/gi;

/** The URL with the values of secret query parameters replaced by [Redacted]. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[Redacted]');
}

/** The service's pino logger (JSON to stdout, or to `destination`), with secrets redacted and trace_id/span_id in traced work. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  // a line written while a request or message is handled names its trace (when tracing is on)
  const options = { name: service, level, base: { service }, redact: REDACTED_LOG_PATHS, mixin: traceLogFields };
  return destination ? pino(options, destination) : pino(options);
}
