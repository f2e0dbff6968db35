import { randomUUID } from 'node:crypto';
import { connect, headers as natsHeaders, nkeyAuthenticator, type NatsConnection, type MsgHdrs } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { Naming } from './naming';
import { inboxPrefixOf } from './permissions';
import { setTraceHeaders } from './trace';

export const REQUEST_ID_HEADER = 'Pasar-Request-Id';

export interface BusOptions {
  natsUrl: string;
  /** Prefix of every subject and stream; '' in production, unique per test file. */
  namespace: string;
  /** The service name: the event `source`, the rpc queue group, the durable name prefix. */
  service: string;
  log: Logger;
  /** The service's NATS credentials and TLS; absent: an anonymous connection (development and tests). */
  auth?: BusAuth;
}

/** How a service proves who it is to NATS (NATS_NKEY_SEED) and checks the server (NATS_TLS_*). */
export interface BusAuth {
  /** The service's NKey user seed (`SU...`): the server config holds only its public key. */
  nkeySeed?: string;
  /** TLS: the CA that signed the server's certificate, and a client certificate and key when the server asks for one. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

/**
 * One NATS connection per process, reconnecting forever. Start-up does not wait for NATS:
 * the outbox relay and the consumers catch up once it is there.
 */
export class Bus {
  readonly naming: Naming;
  /**
   * The consumers of this process by durable name, each able to handle one parked message again
   * in-process (replayParkedMessage): a replay then reaches only the consumer that parked it, and
   * needs no permission to publish another service's event.
   */
  readonly replayers = new Map<string, (payload: string) => Promise<void>>();
  private closed = false;

  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly options: BusOptions,
  ) {
    this.naming = new Naming(options.namespace);
  }

  private manager: Promise<JetStreamManager> | undefined;

  /**
   * The JetStream manager. Making one asks JetStream for the account's info: a failed ask (no
   * JetStream yet, e.g. a cluster that has not elected its meta leader, or the server gone) is not
   * kept, so the next use asks again rather than failing for the life of the process.
   */
  get jsm(): Promise<JetStreamManager> {
    if (!this.manager) {
      const made = jetstreamManager(this.nc);
      this.manager = made;
      made.catch(() => {
        if (this.manager === made) this.manager = undefined;
      });
    }
    return this.manager;
  }

  static async connect(options: BusOptions): Promise<Bus> {
    const nc = await connect({
      servers: options.natsUrl.split(','),
      name: options.service,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // a PING every 3 s, the connection dropped at the third unanswered one: a server that vanished
      // without closing it (its container's network torn down, its host lost) is left for another
      // within 9 s, where the client's defaults (2 minutes, 2 PINGs) kept publishes and consumers
      // waiting on it for minutes
      pingInterval: 3_000,
      maxPingOut: 2,
      waitOnFirstConnect: true,
      timeout: 2000,
      // no Error (with its stack) captured per request and publish: the relay and rpc make many
      noAsyncTraces: true,
      // replies only under the service's own prefix: its NATS user may read nothing else (natsPermissionsOf)
      inboxPrefix: inboxPrefixOf(options.service),
      ...(options.auth?.nkeySeed ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(options.auth.nkeySeed.trim())) } : {}),
      ...(options.auth?.tls ? { tls: options.auth.tls } : {}),
    });
    const bus = new Bus(nc, jetstream(nc), options);
    bus.watchStatus();
    return bus;
  }

  get service(): string {
    return this.options.service;
  }

  get log(): Logger {
    return this.options.log;
  }

  /** True while the connection is up (readiness). */
  isConnected(): boolean {
    return !this.nc.isClosed() && !this.closed && this.nc.info !== undefined && this.connected;
  }

  private connected = true;

  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') {
        this.connected = false;
        this.log.warn({ nats: status.type }, 'NATS disconnected');
      } else if (status.type === 'reconnect') {
        this.connected = true;
        this.log.info({ nats: status.type }, 'NATS reconnected');
      } else if (status.type === 'error') {
        // e.g. a permissions violation: something asked for more than the service's NATS user may do
        this.log.error({ nats: status.type, err: String(status.error) }, 'NATS refused an operation');
      }
    }
  }

  /** A message's headers: the request id, and the active trace context (when tracing is on). */
  headers(requestId?: string): MsgHdrs {
    const h = natsHeaders();
    h.set(REQUEST_ID_HEADER, requestId ?? randomUUID());
    setTraceHeaders(h);
    return h;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.nc.drain();
    } catch {
      await this.nc.close();
    }
  }
}
