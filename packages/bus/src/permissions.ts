import { nkeys } from '@nats-io/transport-node';
import { busGrantsOf, type BusUser } from '@pasar/contracts';
import { Naming } from './naming';

/**
 * NATS permissions of one user (the nats-server `permissions` block): what it may publish, what
 * it may subscribe to, and whether it may answer requests (`allow_responses`: one reply to the
 * reply subject of each request it received, whatever that subject is).
 */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  allow_responses?: boolean;
}

/**
 * Every connection of `user` takes its reply subjects (rpc replies, JetStream API answers and
 * pulled messages) under this prefix, and may subscribe only there: no user reads another's
 * replies (the default `_INBOX.>` would be one subject space for all).
 */
export function inboxPrefixOf(user: string): string {
  return `_INBOX_${user}`;
}

/**
 * The permissions of `user` under `namespace` (NATS_NAMESPACE), generated from the contracts'
 * grant table (busGrantsOf): publish its own events, the rpc it calls, acks of its own durable
 * consumers and the JetStream API of its own streams and consumers; subscribe to its inbox and
 * the rpc it answers (replies by allow_responses). JetStream delivers to the consumers, so a
 * service subscribes to no event subject.
 */
export function natsPermissionsOf(user: BusUser, namespace: string): NatsPermissions {
  const naming = new Naming(namespace);
  const grants = busGrantsOf(user);
  const publish = ['$JS.API.INFO'];
  const subscribe = [`${inboxPrefixOf(user)}.>`];
  publish.push(...grants.publishes.map((subject) => naming.subject(subject)));
  publish.push(...grants.calls.map((subject) => naming.subject(subject)));
  subscribe.push(...grants.answers.map((subject) => naming.subject(subject)));
  publish.push(...grants.broadcasts.map((subject) => naming.subject(subject)));
  subscribe.push(...grants.broadcasts.map((subject) => naming.subject(subject)));
  for (const owned of grants.owns) {
    const stream = naming.stream(owned);
    publish.push(`$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.CREATE.${stream}`, `$JS.API.STREAM.UPDATE.${stream}`);
  }
  for (const consumer of grants.consumes) {
    const stream = naming.stream(consumer.stream);
    const durable = naming.durable(user, consumer.durable);
    publish.push(
      `$JS.API.CONSUMER.INFO.${stream}.${durable}`,
      `$JS.API.CONSUMER.CREATE.${stream}.${durable}`,
      `$JS.API.CONSUMER.CREATE.${stream}.${durable}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${durable}`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
      `$JS.ACK.${stream}.${durable}.>`,
    );
  }
  for (const read of grants.reads) {
    // ordered consumers: created under a generated name, read with pull requests, never acked
    const stream = naming.stream(read);
    publish.push(
      `$JS.API.STREAM.INFO.${stream}`,
      `$JS.API.CONSUMER.CREATE.${stream}.*`,
      `$JS.API.CONSUMER.CREATE.${stream}.*.>`,
      `$JS.API.CONSUMER.INFO.${stream}.*`,
      `$JS.API.CONSUMER.DELETE.${stream}.*`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
    );
  }
  return {
    publish: { allow: [...new Set(publish)] },
    subscribe: { allow: [...new Set(subscribe)] },
    ...(grants.answers.length ? { allow_responses: true } : {}),
  };
}

/** A NATS user's NKey pair: the seed (the secret the service holds) and the public key (what the server config lists). */
export interface NatsUserKey {
  seed: string;
  publicKey: string;
}

/** A new NKey user pair. */
export function createNatsUserKey(): NatsUserKey {
  const pair = nkeys.createUser();
  return { seed: new TextDecoder().decode(pair.getSeed()), publicKey: pair.getPublicKey() };
}

/** The public key of a user seed (`SU...`); throws on anything else. */
export function publicKeyOfSeed(seed: string): string {
  const trimmed = seed.trim();
  if (!trimmed.startsWith('SU')) throw new Error('not an NKey user seed (it starts with SU)');
  return nkeys.fromSeed(new TextEncoder().encode(trimmed)).getPublicKey();
}

export interface NatsAuthUser {
  /** The user (for the comment in the config). */
  name: string;
  publicKey: string;
  /** Absent: every permission (a test harness's own user, never a service). */
  permissions?: NatsPermissions;
}

/**
 * The nats-server `authorization` block for `users` (JSON, which the nats-server config format
 * accepts): NKey users only, no `no_auth_user`, so an anonymous connection is refused.
 */
export function natsAuthorizationConfig(users: readonly NatsAuthUser[]): { authorization: { timeout: number; users: object[] } } {
  return {
    authorization: {
      // seconds a client has to authenticate (default 2): a busy host's clients need longer
      timeout: 10,
      users: users.map((user) => ({ nkey: user.publicKey, ...(user.permissions ? { permissions: user.permissions } : {}) })),
    },
  };
}
