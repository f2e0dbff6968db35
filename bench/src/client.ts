import { Pool } from 'undici';

/** An answer of the lean client: status, the parsed JSON body (or the text, or null when empty). */
export interface LeanAnswer {
  status: number;
  json: unknown;
}

/**
 * The load generator's HTTP client: one undici connection pool per origin (keep-alive, no
 * pipelining), JSON in and out, nothing else. The bench shares the machine's cores with the stack
 * it measures, so its client must cost as little as a load tool's (fetch costs several times
 * more CPU per request than undici's own request API, node:http about half as much again); pgbench,
 * the comparison, is C.
 */
export class LeanClient {
  private readonly pool: Pool;

  constructor(baseUrl: string, maxSockets = 256) {
    this.pool = new Pool(new URL(baseUrl).origin, { connections: maxSockets, pipelining: 1, keepAliveTimeout: 60_000 });
  }

  /** `path` is the full path (e.g. /api/v1/checkout/submit). */
  async call(method: string, path: string, options: { cookie?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<LeanAnswer> {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { ...options.headers };
    if (options.cookie) headers.cookie = options.cookie;
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await this.pool.request({ method: method as 'GET', path, headers, body: payload, headersTimeout: 30_000, bodyTimeout: 30_000 });
    const text = await res.body.text();
    let json: unknown = text || null;
    const type = res.headers['content-type'];
    if (text && /json/.test(Array.isArray(type) ? type.join() : (type ?? ''))) {
      try {
        json = JSON.parse(text) as unknown;
      } catch {
        json = text;
      }
    }
    return { status: res.statusCode, json };
  }

  close(): void {
    void this.pool.close();
  }
}
