import { RetentionPolicy, StorageType, type StreamConfig, type StreamInfo } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { STREAMS, type StreamName } from '@pasar/contracts';
import type { Bus } from './bus';

const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;
const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

export interface EnsureStreamsOptions {
  /**
   * Copies of each stream across a NATS cluster (num_replicas): 1 on one server, 3 on a
   * three-server cluster (R3, docs/deploy.md). Every update sets it, so all instances must agree.
   */
  replicas?: number;
}

/** Creates or updates the six streams of DESIGN §4; safe to call from every instance at start. */
export async function ensureStreams(
  bus: Bus,
  names: StreamName[] = Object.keys(STREAMS) as StreamName[],
  options: EnsureStreamsOptions = {},
): Promise<void> {
  const jsm = await bus.jsm;
  for (const name of names) {
    const config: Partial<StreamConfig> & { name: string } = {
      name: bus.naming.stream(name),
      subjects: bus.naming.streamSubjects(name),
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      max_age: nanos(MAX_AGE_MS),
      num_replicas: options.replicas ?? 1,
    };
    let existing: number;
    try {
      existing = copies(await jsm.streams.info(config.name));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await jsm.streams.add(config);
      } catch (addErr) {
        // another instance created it between our info and add
        if (!String(addErr).includes('already in use')) throw addErr;
      }
      continue;
    }
    await updateStream(bus, config, existing);
  }
}

/**
 * Updates an existing stream to its config. A stream with fewer replicas than configured (created
 * R1 before NATS_STREAM_REPLICAS was set, or on a cluster that cannot hold more copies) is named in
 * a warning; when NATS refuses the scale-up the rest of the config is applied at the replicas the
 * stream has, so the service still starts.
 */
async function updateStream(bus: Bus, config: Partial<StreamConfig> & { name: string }, existing: number): Promise<void> {
  const jsm = await bus.jsm;
  const configured = config.num_replicas ?? 1;
  if (existing >= configured) {
    await jsm.streams.update(config.name, config);
    return;
  }
  const fields = { stream: config.name, replicas: existing, configured };
  bus.log.warn(fields, `stream ${config.name} has ${existing} replica(s), fewer than the ${configured} configured (NATS_STREAM_REPLICAS): scaling it up`);
  let refusal: string;
  try {
    // a single server accepts the update and keeps one replica: read back what it applied
    const applied = copies(await jsm.streams.update(config.name, config));
    if (applied >= configured) {
      bus.log.info(fields, `stream ${config.name} now has ${configured} replicas`);
      return;
    }
    refusal = `NATS kept ${applied}`;
  } catch (err) {
    refusal = err instanceof Error ? err.message : String(err);
    await jsm.streams.update(config.name, { ...config, num_replicas: existing });
  }
  bus.log.warn(
    { ...fields, err: refusal },
    `stream ${config.name} stays at ${existing} replica(s): NATS did not take ${configured} (a cluster with fewer servers, or a single server?)`,
  );
}

/**
 * The copies a stream has: its configured replicas on a cluster; one on a single server, which
 * stores any num_replicas it is given but keeps one copy (its stream info names no cluster).
 */
function copies(info: StreamInfo): number {
  return info.cluster?.name ? (info.config.num_replicas ?? 1) : 1;
}

function isNotFound(err: unknown): boolean {
  return err instanceof Error && /not found/i.test(err.message);
}

/** Removes every stream of a namespace (test clean-up). */
export async function deleteNamespaceStreams(bus: Bus): Promise<void> {
  if (!bus.naming.namespace) throw new Error('refusing to delete the streams of the empty namespace');
  const jsm = await bus.jsm;
  for (const name of Object.keys(STREAMS) as StreamName[]) {
    try {
      await jsm.streams.delete(bus.naming.stream(name));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
