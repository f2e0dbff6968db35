export { Bus, REQUEST_ID_HEADER, type BusOptions } from './bus';
export { Naming } from './naming';
export { ensureStreams, deleteNamespaceStreams, type EnsureStreamsOptions } from './streams';
export { enqueueEvent, enqueueEvents, OutboxRelay, stripSchema, type OutboxTx, type EnqueueOptions } from './outbox';
export {
  consume,
  consumeWithInbox,
  DEFAULT_BACKOFF_MS,
  DEFAULT_MAX_DELIVER,
  type ConsumerOptions,
  type InboxConsumerOptions,
  type InboxTx,
  type MessageContext,
  type ParkingDb,
  type RunningConsumer,
  type TransactionalDb,
} from './consumer';
export { serveRpc, callRpc, DEFAULT_RPC_TIMEOUT_MS, type RpcContext } from './rpc';
export { RpcFailedError, RpcRefusal, RpcUnavailableError } from './errors';
