/** The rpc peer is not there or did not answer in time; callers map it to 503. */
export class RpcUnavailableError extends Error {
  override readonly name = 'RpcUnavailableError';
  constructor(
    readonly subject: string,
    readonly reason: 'no_responders' | 'timeout' | 'disconnected',
  ) {
    super(`rpc ${subject} unavailable: ${reason}`);
  }
}

/** The rpc peer answered {ok:false}: a business refusal with a stable code. */
export class RpcFailedError extends Error {
  override readonly name = 'RpcFailedError';
  constructor(
    readonly subject: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown by an rpc handler to answer {ok:false, code, message}. */
export class RpcRefusal extends Error {
  override readonly name = 'RpcRefusal';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
