import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, type ServiceName, type Stack, type StackOptions } from '@pasar/stack';
import { startSmtpCatcher, uniqueNamespace, type SmtpCatcher } from '@pasar/testkit';
import { ApiClient } from './http';

export const API = '/api/v1';

export interface E2eStack {
  stack: Stack;
  smtp: SmtpCatcher;
  namespace: string;
  /** A fresh browser-like client (own cookie jar) on the gateway. */
  client(): ApiClient;
  /**
   * For failure messages: every service instance's last lines, after its warnings and errors since
   * the stack started (a consumer that failed from the start is there however much came after).
   */
  recentLogs(lines?: number): string;
  /** Stops the stack, drops its schemas and streams, closes the SMTP catcher. */
  stop(): Promise<void>;
}

/**
 * How many instances of each service (but the gateway) this test file's stacks start when the
 * caller does not say: 1, or what `useReplicas` set. A file that runs another file's tests with two
 * instances imports `./support/two-instances` before that file.
 */
let defaultReplicas = 1;

export function useReplicas(replicas: number): void {
  defaultReplicas = replicas;
}

export function e2eReplicas(): number {
  return defaultReplicas;
}

/** The NATS user with every permission a test's own bus connects as on a stack with NATS users. */
export const E2E_NATS_USER = 'e2e';

/**
 * Whether this test file's stacks run on a nats-server of their own with one NATS user per service
 * and the contracts' permissions (docs/architecture.md "Bus permissions"), the test's own bus as
 * the `e2e` superuser: every stack does (what a deployment runs), unless E2E_NATS_USERS=0 or the
 * file gives the stack a NATS of its own to stop (`natsUrl`: the NATS outage tests).
 */
let natsUsers = process.env.E2E_NATS_USERS !== '0';

export function useNatsUsers(): void {
  natsUsers = true;
}

/**
 * The whole stack on free ports, with a unique NATS namespace and schema prefix, and an in-process
 * SMTP server as the notifier's SMTP_URL. Set E2E_LOG=1 to see the services' output.
 */
export async function startE2eStack(options: Pick<StackOptions, 'natsUrl' | 'env' | 'replicas'> = {}): Promise<E2eStack> {
  const smtp = await startSmtpCatcher();
  const namespace = uniqueNamespace('e2e');
  const print = process.env.E2E_LOG === '1';
  // its own nats-server: the store, seeds and config in a directory of this stack's own
  const natsDir = natsUsers && !options.natsUrl ? mkdtempSync(join(tmpdir(), 'pasar-e2e-nats-')) : undefined;
  let stack: Stack;
  try {
    stack = await startStack({
      ...(natsDir ? { ownNats: { superuser: E2E_NATS_USER }, dataDir: natsDir } : {}),
      ports: 'free',
      replicas: options.replicas ?? defaultReplicas,
      namespace,
      schemaPrefix: namespace,
      databaseUrl: process.env.TEST_DATABASE_URL || undefined,
      natsUrl: natsDir ? undefined : (options.natsUrl ?? (process.env.TEST_NATS_URL || undefined)),
      identitySecret: `e2e-identity-secret-${namespace}`,
      logLevel: process.env.E2E_LOG_LEVEL ?? 'info',
      keepLines: 300,
      dropDataOnFailure: true,
      readyTimeoutMs: 150_000,
      startInfrastructure: false,
      env: {
        ...options.env,
        notifier: { SMTP_URL: smtp.url, ...(options.env?.notifier ?? {}) },
      },
      log: print ? ({ source, line }) => process.stdout.write(`[${source}] ${line}\n`) : undefined,
    });
  } catch (err) {
    await smtp.close();
    if (natsDir) rmSync(natsDir, { recursive: true, force: true });
    throw err;
  }
  return {
    stack,
    smtp,
    namespace,
    client: () => new ApiClient(stack.gatewayUrl),
    recentLogs(lines = 30) {
      return Object.values(stack.instances)
        .flat()
        .map((service) => {
          const name = `${service.name}${service.instance > 1 ? `-${service.instance}` : ''}`;
          const notable = service.notableLines().slice(-lines);
          const warnings = notable.length ? `--- ${name}: warnings and errors since the start ---\n${notable.join('\n')}\n` : '';
          return `${warnings}--- ${name}: last lines ---\n${service.recentLines().slice(-lines).join('\n')}`;
        })
        .join('\n');
    },
    async stop() {
      await stack.stop({ dropData: true });
      await smtp.close();
      if (natsDir) rmSync(natsDir, { recursive: true, force: true });
    },
  };
}

/** The file's stack: started before its tests, stopped (data dropped) after them; call the getter inside tests. */
export function useE2eStack(options: Parameters<typeof startE2eStack>[0] = {}): () => E2eStack {
  let e2e: E2eStack | undefined;
  beforeAll(async () => {
    e2e = await startE2eStack(options);
  }, 180_000);
  afterAll(async () => {
    await e2e?.stop();
  }, 60_000);
  return () => {
    if (!e2e) throw new Error('the stack did not start');
    return e2e;
  };
}

/**
 * Runs a test body; when it fails, the services' last log lines are added to the error so the
 * cause is visible without re-running with E2E_LOG=1.
 */
export function withLogs(env: () => E2eStack | undefined, body: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await body();
    } catch (err) {
      let e2e: E2eStack | undefined;
      try {
        e2e = env();
      } catch {
        // the stack never started: the original error says why
      }
      if (e2e && err instanceof Error) err.message = `${err.message}\n\nrecent service logs:\n${e2e.recentLogs()}`;
      throw err;
    }
  };
}

export type { ServiceName };
