import { z } from 'zod';

/**
 * An event contract: its type (the NATS subject without namespace) and the zod schema of `data`.
 * The envelope {id, type, source, occurredAt, data} is the same for every event (DESIGN §4).
 */
export interface EventContract<TType extends string = string, TSchema extends z.ZodType = z.ZodType> {
  readonly type: TType;
  readonly data: TSchema;
}

export function defineEvent<TType extends string, TSchema extends z.ZodType>(
  type: TType,
  data: TSchema,
): EventContract<TType, TSchema> {
  return { type, data };
}

export type EventData<E extends EventContract> = z.infer<E['data']>;

export const eventEnvelopeSchema = z.object({
  id: z.uuid(),
  type: z.string().min(1),
  source: z.string().min(1),
  occurredAt: z.iso.datetime(),
  data: z.unknown(),
});
export type EventEnvelope<TData = unknown> = Omit<z.infer<typeof eventEnvelopeSchema>, 'data'> & { data: TData };

/** A request/reply contract: subject `rpc.<service>.<verb>`, request and response schemas. */
export interface RpcContract<
  TSubject extends string = string,
  TReq extends z.ZodType = z.ZodType,
  TRes extends z.ZodType = z.ZodType,
> {
  readonly subject: TSubject;
  readonly request: TReq;
  readonly response: TRes;
}

export function defineRpc<TSubject extends string, TReq extends z.ZodType, TRes extends z.ZodType>(
  subject: TSubject,
  request: TReq,
  response: TRes,
): RpcContract<TSubject, TReq, TRes> {
  return { subject, request, response };
}

export type RpcRequest<R extends RpcContract> = z.infer<R['request']>;
export type RpcResponse<R extends RpcContract> = z.infer<R['response']>;

/** The reply on the wire: `{ok: true, data}` or `{ok: false, code, message}` (DESIGN §4). */
export const rpcReplySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), code: z.string(), message: z.string() }),
]);
export type RpcReply = z.infer<typeof rpcReplySchema>;

/** The JetStream streams, one per publishing domain (DESIGN §4). */
export const STREAMS = {
  IDENTITY: 'identity',
  CHECKOUT: 'checkout',
  B2B: 'b2b',
  VENDOR: 'vendor',
  ADMIN: 'admin',
  NOTIFY: 'notify',
} as const;
export type StreamName = keyof typeof STREAMS;

/** The stream that carries an event type: its first token names the domain. */
export function streamOf(eventType: string): StreamName {
  const domain = eventType.split('.')[0];
  const entry = Object.entries(STREAMS).find(([, prefix]) => prefix === domain);
  if (!entry) throw new Error(`event type "${eventType}" belongs to no stream`);
  return entry[0] as StreamName;
}
