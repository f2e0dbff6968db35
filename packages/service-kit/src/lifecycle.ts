import type { Logger } from 'pino';
import { ConfigError } from './config';
import { DependencyError } from './dependencies';

type Closer = { name: string; close: () => Promise<unknown> | unknown };

/** How long a stopping service may take to close everything before it exits anyway (deployments wait longer). */
export const SHUTDOWN_DEADLINE_MS = 20_000;

/**
 * Runs a service's boot function and closes what it returns, in order, on SIGTERM/SIGINT:
 * HTTP first (stop accepting, drain), then consumers and relays, then NATS and the database.
 */
export function runMain(name: string, boot: () => Promise<{ log: Logger; closers: Closer[] }>): void {
  boot()
    .then(({ log, closers }) => {
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info({ signal }, `${name} stopping`);
        const force = setTimeout(() => {
          log.error('graceful shutdown took too long; exiting');
          process.exit(1);
        }, SHUTDOWN_DEADLINE_MS);
        force.unref();
        for (const closer of closers) {
          try {
            await closer.close();
          } catch (err) {
            log.warn({ err, closer: closer.name }, 'error while closing');
          }
        }
        log.info(`${name} stopped`);
        process.exit(0);
      };
      process.once('SIGTERM', () => void stop('SIGTERM'));
      process.once('SIGINT', () => void stop('SIGINT'));
    })
    .catch((err: unknown) => {
      if (err instanceof ConfigError || err instanceof DependencyError) console.error(`${name}: ${err.message}`);
      else console.error(`${name} failed to start:`, err);
      process.exit(1);
    });
}
