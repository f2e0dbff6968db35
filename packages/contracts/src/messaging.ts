import { z } from 'zod';

/**
 * The version of a message contract. An additive change (a new optional field, a new enum value
 * no consumer switches on) keeps it; a breaking one (a field removed, renamed, retyped or newly
 * required from callers) bumps it. Every consumer and caller has a fixture in
 * packages/contracts/fixtures that the contract tests check, so a change that breaks one fails
 * `npm test` (README "Message contracts").
 */
export interface ContractVersion {
  version?: number;
}

function versionOf(options: ContractVersion | undefined, name: string): number {
  const version = options?.version ?? 1;
  if (!Number.isInteger(version) || version < 1) throw new Error(`bad version ${version} of ${name}: a whole number from 1`);
  return version;
}

/**
 * An event contract: its type (the NATS subject without namespace), its version and the zod
 * schema of `data`. The envelope {id, type, version, source, occurredAt, data} is the same for
 * every event (DESIGN §4); consumers accept the versions they know (the contract's by default).
 */
export interface EventContract<TType extends string = string, TSchema extends z.ZodType = z.ZodType> {
  readonly type: TType;
  readonly version: number;
  readonly data: TSchema;
  /**
   * Optional fast path of the data check for a hot event: true only when `data` already is exactly
   * what `data.parse` would answer (every field valid, no key to strip, no default to fill), so the
   * parse can be skipped; false says nothing and the parse runs (with its usual error). Each one has
   * a test that every value it accepts, the schema accepts unchanged.
   */
  readonly accepts?: (data: unknown) => boolean;
  /** Subject routing (EventRoute), for an event most of whose consumers want only part of it. */
  readonly route?: EventRoute;
  /**
   * The aggregate an event is about (`order:<id>`, `shipment:<id>`, …), from its checked data: the
   * outbox relay publishes one aggregate's events in order, holding the later ones after a failed
   * publish. None: the event orders with nothing (each goes out on its own).
   */
  readonly aggregateOf?: (data: never) => string;
}

/**
 * An event published on `<type>.<key>` instead of `<type>`, the key taken from its data: a
 * consumer that wants every event of the type listens on `<type>.*`, one that wants a part only on
 * `<type>.<key>`, so NATS never delivers it the rest (b2b and the consumer orders: most orders are
 * not B2B). `keyOf` sees the data as published (unchecked) and answers one of `keys`.
 */
export interface EventRoute {
  readonly keys: readonly string[];
  readonly keyOf: (data: unknown) => string;
}

/** A contract's options: its version, for a hot event the fast path of its check (EventContract.accepts), its routing (EventRoute). */
export interface EventContractOptions<TData = unknown> extends ContractVersion {
  accepts?: (data: unknown) => boolean;
  route?: EventRoute;
  /** EventContract.aggregateOf. */
  aggregateOf?: (data: TData) => string;
}

/** The routed event types (defineEvent registers them): the relay publishes a row by its type and data only. */
const routes = new Map<string, EventRoute>();

export function defineEvent<TType extends string, TSchema extends z.ZodType>(
  type: TType,
  data: TSchema,
  options?: EventContractOptions<z.output<TSchema>>,
): EventContract<TType, TSchema> {
  const contract = { type, version: versionOf(options, type), data };
  if (options?.route) {
    for (const key of options.route.keys) {
      if (!/^[a-z][a-z0-9_]*$/.test(key)) throw new Error(`bad route key "${key}" of ${type}: lower-case letters, digits and _ only`);
    }
    const known = routes.get(type);
    if (known && known !== options.route) throw new Error(`${type} is routed twice`);
    routes.set(type, options.route);
  }
  return {
    ...contract,
    ...(options?.accepts ? { accepts: options.accepts } : {}),
    ...(options?.route ? { route: options.route } : {}),
    ...(options?.aggregateOf ? { aggregateOf: options.aggregateOf as (data: never) => string } : {}),
  };
}

/**
 * The subject (without namespace) an event of `type` with `data` is published on: `<type>.<key>`
 * for a routed type (EventRoute), else `<type>`.
 */
export function eventSubjectOf(type: string, data: unknown): string {
  const route = routes.get(type);
  return route ? `${type}.${route.keyOf(data)}` : type;
}

/** The event type of a subject (without namespace) an event was published on: `<type>`, or `<type>.<key>` when routed. */
export function eventTypeOfSubject(subject: string): string {
  const dot = subject.lastIndexOf('.');
  const routedType = dot > 0 ? subject.slice(0, dot) : '';
  return routes.get(routedType)?.keys.includes(subject.slice(dot + 1)) ? routedType : subject;
}

/** Every subject (without namespace) events of `type` are published on. */
export function eventSubjectsOf(type: string): string[] {
  const route = routes.get(type);
  return route ? route.keys.map((key) => `${type}.${key}`) : [type];
}

/**
 * The subject (without namespace) a consumer of `contract` listens on: `<type>` for an unrouted
 * contract; for a routed one `<type>.<key>` (only that part) or `<type>.*` (all of it).
 */
export function eventFilterOf(contract: Pick<EventContract, 'type' | 'route'>, key?: string): string {
  if (!contract.route) {
    if (key !== undefined) throw new Error(`${contract.type} is not routed: no route key to listen on`);
    return contract.type;
  }
  if (key === undefined) return `${contract.type}.*`;
  if (!contract.route.keys.includes(key)) throw new Error(`${contract.type} has no route key "${key}" (${contract.route.keys.join(', ')})`);
  return `${contract.type}.${key}`;
}

export type EventData<E extends EventContract> = z.infer<E['data']>;

export const eventEnvelopeSchema = z.object({
  id: z.uuid(),
  type: z.string().min(1),
  /** The contract version the producer wrote (envelopes from before versions were written are 1). */
  version: z.number().int().positive().default(1),
  source: z.string().min(1),
  occurredAt: z.iso.datetime(),
  data: z.unknown(),
});
export type EventEnvelope<TData = unknown> = Omit<z.infer<typeof eventEnvelopeSchema>, 'data' | 'version'> & {
  /** Always written by the outbox; absent only in envelopes from before versions (read as 1). */
  version?: number;
  data: TData;
};

/**
 * A request/reply contract: subject `rpc.<service>.<verb>`, its version, request and response
 * schemas. Version 1 is asked on the plain subject, a later version N on `<subject>.vN`
 * (rpcSubjectOf), so a server can answer an old and a new version side by side while callers move.
 */
export interface RpcContract<
  TSubject extends string = string,
  TReq extends z.ZodType = z.ZodType,
  TRes extends z.ZodType = z.ZodType,
> {
  readonly subject: TSubject;
  readonly version: number;
  readonly request: TReq;
  readonly response: TRes;
}

export function defineRpc<TSubject extends string, TReq extends z.ZodType, TRes extends z.ZodType>(
  subject: TSubject,
  request: TReq,
  response: TRes,
  options?: ContractVersion,
): RpcContract<TSubject, TReq, TRes> {
  return { subject, version: versionOf(options, subject), request, response };
}

/** The subject an rpc version is asked on: the plain subject for version 1, `<subject>.v<N>` after. */
export function rpcSubjectOf(contract: Pick<RpcContract, 'subject' | 'version'>): string {
  return contract.version === 1 ? contract.subject : `${contract.subject}.v${contract.version}`;
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
