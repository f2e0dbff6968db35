/** A minimal server-sent-events client over fetch, for tests: frames as they arrive, and what closed the stream. */
import { waitFor } from './wait';

export interface SseFrame {
  event: string;
  id?: string;
  data: unknown;
}

export class SseClient {
  readonly frames: SseFrame[] = [];
  /** `:` comment lines seen (heartbeats). */
  comments = 0;
  retry: number | undefined;
  /** True once the server ended the stream. */
  ended = false;
  private readonly abort = new AbortController();

  private constructor(readonly response: Response) {}

  /** GET `url` with an event-stream Accept; resolves once the headers came (the body is read in the background). */
  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const abort = new AbortController();
    const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
    const client = new SseClient(response);
    client.abort.signal.addEventListener('abort', () => abort.abort());
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) void client.read();
    return client;
  }

  get status(): number {
    return this.response.status;
  }

  /** The stream's id of the last frame that had one. */
  lastId(): string | undefined {
    return [...this.frames].reverse().find((frame) => frame.id !== undefined)?.id;
  }

  /** Waits until `count` frames (optionally: of this event) came; answers those. */
  async waitForFrames(predicate: (frame: SseFrame) => boolean, count = 1, timeoutMs = 30_000): Promise<SseFrame[]> {
    try {
      return await waitFor(() => {
        const matching = this.frames.filter(predicate);
        return matching.length >= count ? matching : undefined;
      }, timeoutMs, 25);
    } catch (err) {
      throw new Error(`fewer than ${count} matching frames within ${timeoutMs} ms; got ${JSON.stringify(this.frames)}`, { cause: err });
    }
  }

  async waitForEnd(timeoutMs = 30_000): Promise<void> {
    await waitFor(() => this.ended, timeoutMs, 25);
  }

  close(): void {
    this.abort.abort();
  }

  private async read(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of this.response.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          this.take(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by close(), or the connection dropped
    }
    this.ended = true;
  }

  private take(block: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.comments += 1;
      else if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
      else if (line.startsWith('retry: ')) this.retry = Number(line.slice(7));
    }
    if (data.length > 0) this.frames.push({ event, id, data: JSON.parse(data.join('\n')) });
  }
}
