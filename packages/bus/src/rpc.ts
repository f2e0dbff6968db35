import { errors as natsErrors, type Msg, type Subscription } from '@nats-io/transport-node';
import { rpcReplySchema, rpcSubjectOf, type RpcContract, type RpcReply, type RpcRequest, type RpcResponse } from '@pasar/contracts';
import { z } from 'zod';
import type { Bus } from './bus';
import { REQUEST_ID_HEADER } from './bus';
import { RpcFailedError, RpcRefusal, RpcUnavailableError } from './errors';
import { inMessageSpan } from './trace';

export const DEFAULT_RPC_TIMEOUT_MS = 3000;

export interface RpcContext {
  requestId?: string;
}

/** Answers an rpc subject; instances of one service share the work (queue group). */
export function serveRpc<R extends RpcContract>(
  bus: Bus,
  contract: R,
  handler: (request: RpcRequest<R>, ctx: RpcContext) => Promise<RpcResponse<R>>,
): Subscription {
  const subject = bus.naming.subject(rpcSubjectOf(contract));
  return bus.nc.subscribe(subject, {
    queue: bus.service,
    callback: (err, msg) => {
      if (err) {
        bus.log.error({ err, subject }, 'rpc subscription error');
        return;
      }
      const attributes = () => ({ 'messaging.system': 'nats', 'messaging.operation.type': 'process', 'messaging.destination.name': contract.subject });
      void inMessageSpan(`${contract.subject} process`, msg.headers, attributes, () => answer(bus, contract, handler, msg));
    },
  });
}

async function answer<R extends RpcContract>(
  bus: Bus,
  contract: R,
  handler: (request: RpcRequest<R>, ctx: RpcContext) => Promise<RpcResponse<R>>,
  msg: Msg,
): Promise<void> {
  const requestId = msg.headers?.get(REQUEST_ID_HEADER) || undefined;
  let reply: RpcReply;
  try {
    const request = contract.request.parse(msg.json()) as RpcRequest<R>;
    const data = contract.response.parse(await handler(request, { requestId }));
    reply = { ok: true, data };
  } catch (err) {
    if (err instanceof RpcRefusal) reply = { ok: false, code: err.code, message: err.message };
    else if (err instanceof z.ZodError) reply = { ok: false, code: 'invalid_request', message: z.prettifyError(err) };
    else {
      bus.log.error({ err, subject: contract.subject, requestId }, 'rpc handler failed');
      reply = { ok: false, code: 'internal', message: 'internal error' };
    }
  }
  msg.respond(JSON.stringify(reply));
}

/**
 * Asks an rpc subject and waits for the answer. Throws RpcUnavailableError when nobody answers
 * (callers map it to 503) and RpcFailedError when the peer refused.
 */
export async function callRpc<R extends RpcContract>(
  bus: Bus,
  contract: R,
  request: RpcRequest<R>,
  options: { timeoutMs?: number; requestId?: string } = {},
): Promise<RpcResponse<R>> {
  const subject = bus.naming.subject(rpcSubjectOf(contract));
  const payload = contract.request.parse(request);
  if (bus.nc.isClosed()) throw new RpcUnavailableError(contract.subject, 'disconnected');
  let msg: Msg;
  try {
    msg = await bus.nc.request(subject, JSON.stringify(payload), {
      timeout: options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS,
      headers: bus.headers(options.requestId),
    });
  } catch (err) {
    throw new RpcUnavailableError(contract.subject, classify(err));
  }
  const reply = rpcReplySchema.parse(msg.json());
  if (!reply.ok) throw new RpcFailedError(contract.subject, reply.code, reply.message);
  return contract.response.parse(reply.data) as RpcResponse<R>;
}

function classify(err: unknown): RpcUnavailableError['reason'] {
  if (err instanceof natsErrors.RequestError && err.isNoResponders()) return 'no_responders';
  if (err instanceof natsErrors.NoRespondersError) return 'no_responders';
  if (err instanceof natsErrors.TimeoutError) return 'timeout';
  if (err instanceof Error && err.cause instanceof natsErrors.TimeoutError) return 'timeout';
  return 'disconnected';
}
