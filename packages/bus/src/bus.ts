import { randomUUID } from 'node:crypto';
import { connect, headers as natsHeaders, type NatsConnection, type MsgHdrs } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { Naming } from './naming';
import { setTraceHeaders } from './trace';

export const REQUEST_ID_HEADER = 'Pasar-Request-Id';

export interface BusOptions {
  natsUrl: string;
  /** Prefix of every subject and stream; '' in production, unique per test file. */
  namespace: string;
  /** The service name: the event `source`, the rpc queue group, the durable name prefix. */
  service: string;
  log: Logger;
}

/**
 * One NATS connection per process, reconnecting forever. Start-up does not wait for NATS:
 * the outbox relay and the consumers catch up once it is there.
 */
export class Bus {
  readonly naming: Naming;
  private closed = false;

  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: Promise<JetStreamManager>,
    readonly options: BusOptions,
  ) {
    this.naming = new Naming(options.namespace);
  }

  static async connect(options: BusOptions): Promise<Bus> {
    const nc = await connect({
      servers: options.natsUrl.split(','),
      name: options.service,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      waitOnFirstConnect: true,
      timeout: 2000,
      // no Error (with its stack) captured per request and publish: the relay and rpc make many
      noAsyncTraces: true,
    });
    const bus = new Bus(nc, jetstream(nc), jetstreamManager(nc), options);
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
