import type { ServerResponse } from 'node:http';
import { SSE_HEARTBEAT, SSE_PREAMBLE, formatEventId, sseFrame, type Position } from './rules';
import type { StreamSlots } from './stream-slots';

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
    // the client left while the stream was being prepared: its 'close' is past, close now
    if (this.res.destroyed) return this.close('client_gone');
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

/** One of a user's stream slots, taken before the stream exists. */
export interface StreamSlot {
  userId: string;
  id: string;
}

/**
 * The open streams of this gateway instance: the per-user limit (counted by `slots`, across
 * instances when they share Redis), and closing a user's streams when the session they were
 * opened with is revoked (sign-out, password change).
 */
export class LiveStreamRegistry {
  private readonly all = new Set<LiveStream>();

  constructor(private readonly slots: StreamSlots) {}

  /**
   * Takes one of the user's slots before the stream exists (the snapshot is awaited after), or
   * answers undefined when all are taken. Release it with `release`, or hand it to `attach`.
   */
  async reserve(userId: string): Promise<StreamSlot | undefined> {
    const id = await this.slots.acquire(userId);
    return id === undefined ? undefined : { userId, id };
  }

  release(slot: StreamSlot): void {
    this.slots.release(slot.userId, slot.id);
  }

  /** The reserved slot becomes the open stream's (released when it closes). */
  attach(slot: StreamSlot, stream: LiveStream): void {
    this.all.add(stream);
    stream.onClose(() => {
      this.all.delete(stream);
      this.release(slot);
    });
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
