import type { ServerResponse } from 'node:http';
import { SSE_HEARTBEAT, SSE_PREAMBLE, formatEventId, sseFrame, type Position } from './rules';

export interface LiveStreamLimits {
  /** A `:` comment line this often keeps proxies and clients from calling the stream dead. */
  heartbeatMs: number;
  /** The server closes a stream that carried no event for this long (the client reconnects). */
  idleMs: number;
  /** A client that lets more than this many bytes pile up unread is dropped. */
  maxBufferBytes: number;
}

export type CloseReason = 'ended' | 'idle' | 'slow_client' | 'signed_out' | 'client_gone' | 'shutdown';

/**
 * One open event stream to one client: writes the frames, beats, and closes itself when idle, when
 * the client stops reading, or when told to. `position` is what the client has seen (its event id).
 */
export class LiveStream {
  private heartbeat: NodeJS.Timeout | undefined;
  private idle: NodeJS.Timeout | undefined;
  private closedWith: CloseReason | undefined;
  private readonly closeHandlers: ((reason: CloseReason) => void)[] = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly limits: LiveStreamLimits,
    readonly owner: { userId: string; tokenHash: string },
    public position: Position,
  ) {
    res.on('close', () => this.close('client_gone'));
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Sends the headers and the retry preamble, and starts the heartbeat and the idle clock. */
  open(): void {
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    this.res.socket?.setNoDelay(true);
    this.res.socket?.setTimeout(0);
    this.write(SSE_PREAMBLE);
    this.heartbeat = setInterval(() => this.write(SSE_HEARTBEAT), this.limits.heartbeatMs);
    this.heartbeat.unref();
    this.idle = setTimeout(() => this.close('idle'), this.limits.idleMs);
    this.idle.unref();
  }

  /** One event; with `position` the stream moved there and the event carries it as its id. */
  send(event: string, data: unknown, position?: Position): void {
    if (this.closed) return;
    if (position) this.position = position;
    this.write(sseFrame(event, position ? formatEventId(position) : undefined, data));
    this.touch();
  }

  /** The final `end` event, then close (a client that reconnects after it gets a fresh snapshot). */
  end(data: unknown): void {
    if (this.closed) return;
    this.write(sseFrame('end', formatEventId(this.position), data));
    this.close('ended');
  }

  onClose(handler: (reason: CloseReason) => void): void {
    this.closeHandlers.push(handler);
  }

  close(reason: CloseReason): void {
    if (this.closed) return;
    this.closedWith = reason;
    clearInterval(this.heartbeat);
    clearTimeout(this.idle);
    if (reason === 'slow_client') this.res.destroy();
    else this.res.end();
    for (const handler of this.closeHandlers) handler(reason);
  }

  private write(chunk: string): void {
    if (this.closed) return;
    this.res.write(chunk);
    // what the socket could not take yet stays in memory: past the bound the client is dropped
    if (this.res.writableLength > this.limits.maxBufferBytes) this.close('slow_client');
  }

  /** The idle clock starts over (the same timer, re-armed: nothing allocated per event). */
  private touch(): void {
    this.idle?.refresh();
  }
}

/**
 * The open streams of this gateway instance per user: the per-user limit, and closing a user's
 * streams when the session they were opened with is revoked (sign-out, password change).
 */
export class LiveStreamRegistry {
  private readonly byUser = new Map<string, Set<LiveStream | symbol>>();
  private readonly all = new Set<LiveStream>();

  constructor(private readonly maxPerUser: number) {}

  /**
   * Takes one of the user's slots before the stream exists (the snapshot is awaited after), or
   * answers false when all are taken. Release it with `release`, or hand it to `attach`.
   */
  reserve(userId: string): symbol | undefined {
    const set = this.byUser.get(userId) ?? new Set();
    if (set.size >= this.maxPerUser) return undefined;
    const slot = Symbol(userId);
    set.add(slot);
    this.byUser.set(userId, set);
    return slot;
  }

  release(userId: string, slot: symbol | LiveStream): void {
    const set = this.byUser.get(userId);
    set?.delete(slot);
    if (set?.size === 0) this.byUser.delete(userId);
    if (slot instanceof LiveStream) this.all.delete(slot);
  }

  /** The reserved slot becomes the open stream (released again when it closes). */
  attach(slot: symbol, stream: LiveStream): void {
    const { userId } = stream.owner;
    const set = this.byUser.get(userId) ?? new Set();
    set.delete(slot);
    set.add(stream);
    this.byUser.set(userId, set);
    this.all.add(stream);
    stream.onClose(() => this.release(userId, stream));
  }

  /** Closes the streams opened with these sessions, or all of a user's. */
  revoke(revocation: { tokenHashes?: string[]; userId?: string }): void {
    const hashes = new Set(revocation.tokenHashes ?? []);
    for (const stream of [...this.all]) {
      if (stream.owner.userId === revocation.userId || hashes.has(stream.owner.tokenHash)) stream.close('signed_out');
    }
  }

  closeAll(reason: CloseReason): void {
    for (const stream of [...this.all]) stream.close(reason);
  }

  get size(): number {
    return this.all.size;
  }
}
