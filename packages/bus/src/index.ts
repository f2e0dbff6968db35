export { Bus, REQUEST_ID_HEADER, type BusAuth, type BusOptions } from './bus';
export {
  createNatsUserKey,
  inboxPrefixOf,
  natsAuthorizationConfig,
  natsPermissionsOf,
  publicKeyOfSeed,
  type NatsAuthUser,
  type NatsPermissions,
  type NatsUserKey,
} from './permissions';
export { Naming } from './naming';
export { ensureStreams, deleteNamespaceStreams, type EnsureStreamsOptions } from './streams';
export {
  enqueueEvent,
  enqueueEvents,
  HANDING_OVER,
  inTransactionHandingOver,
  isUnpublishable,
  OutboxRelay,
  stripSchema,
  UnpublishableError,
  type OutboxTx,
  type CommittedEvents,
  type HandingOverTx,
  type EnqueueOptions,
  type OutboxRelayOptions,
  type OutboxRow,
} from './outbox';
export {
  countDeadLetters,
  listOutboxDeadLetters,
  listParkedMessages,
  replayOutboxDeadLetter,
  replayParkedMessage,
  type DeadLetterPage,
  type OutboxDeadLetter,
  type ParkedMessageRow,
  type RawSql,
} from './dead-letters';
export {
  discardDeadLetter,
  isDeadLetterId,
  listDeadLetterDiscards,
  listDeadLetters,
  replayDeadLetter,
  replayDeadLettersOfType,
  summarizeDeadLetters,
  type DeadLetterFilter,
} from './dead-letter-operations';
export {
  consume,
  consumeWithInbox,
  DEFAULT_BACKOFF_MS,
  PermanentFailure,
  type ConsumerOptions,
  type InboxClaim,
  type InboxConsumerOptions,
  type InboxTx,
  type MessageContext,
  type ParkingDb,
  type SqlInboxConsumerOptions,
  type SqlTx,
  type RunningConsumer,
  type TransactionalDb,
  type Unvalidated,
} from './consumer';
export { BUS_MIGRATIONS, migrateServiceSchema } from './migrations';
export { pruneBusTables, type PruneOptions, type PruneResult } from './pruning';
export { serveRpc, callRpc, DEFAULT_RPC_TIMEOUT_MS, type RpcContext } from './rpc';
export { RpcFailedError, RpcRefusal, RpcUnavailableError } from './errors';
