import { Agent, request } from 'node:http';

/** An answer of the lean client: status, the parsed JSON body (or the text, or null when empty). */
export interface LeanAnswer {
  status: number;
  json: unknown;
}

/**
 * The load generator's HTTP client: node:http over one keep-alive agent per origin, JSON in and
 * out, nothing else. The bench shares the machine's cores with the stack it measures, so its
 * client must cost as little as a load tool's (fetch costs several times more CPU per request,
 * which the services then lose); pgbench, the comparison, is C.
 */
export class LeanClient {
  private readonly agent: Agent;
  private readonly host: string;
  private readonly port: number;

  constructor(baseUrl: string, maxSockets = 256) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port || 80);
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' });
  }

  /** `path` is the full path (e.g. /api/v1/checkout/submit). */
  call(method: string, path: string, options: { cookie?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<LeanAnswer> {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string | number> = { ...options.headers };
    if (options.cookie) headers.cookie = options.cookie;
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    return new Promise((resolve, reject) => {
      const req = request({ agent: this.agent, host: this.host, port: this.port, method, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
          let json: unknown = text || null;
          if (text && /json/.test(res.headers['content-type'] ?? '')) {
            try {
              json = JSON.parse(text) as unknown;
            } catch {
              json = text;
            }
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      });
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)));
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
