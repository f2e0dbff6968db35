import { connectionStringWithoutSchema, schemaFromUrl } from '@pasar/db';
import pg from 'pg';

/** The wake-ups (NOTIFY) of a schema's outbox relay heard since `listenForRelayWakeUps`; `stop` ends the listener. */
export interface RelayWakeUps {
  count(): number;
  stop(): Promise<void>;
}

/**
 * Listens for the NOTIFY that wakes the outbox relay of the schema `databaseUrl` names (each
 * commit of outbox rows sends one unless the transaction hands its rows over): a test shows with
 * it that a use case's events went out without the relay's read.
 */
export async function listenForRelayWakeUps(databaseUrl: string): Promise<RelayWakeUps> {
  const client = new pg.Client({ connectionString: connectionStringWithoutSchema(databaseUrl) });
  await client.connect();
  let heard = 0;
  client.on('notification', () => void (heard += 1));
  await client.query(`LISTEN "outbox_${schemaFromUrl(databaseUrl)}"`);
  return { count: () => heard, stop: () => client.end() };
}
