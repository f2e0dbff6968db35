import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { MAX_RESPONSE_BYTES, addressRefusal, storedBody, urlRefusal, type UrlPolicy } from './rules';

/** A host name → its addresses (the system resolver; tests inject their own). */
export type Resolve = (hostname: string) => Promise<string[]>;
export const systemResolve: Resolve = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export type CheckedUrl = { ok: true; address: string } | { ok: false; reason: string };

/**
 * Checks an endpoint URL as the policy demands: its scheme, then every address its host resolves
 * to, once. The answer's address is the one to connect to (DNS rebinding: never resolved again).
 */
export async function checkUrl(url: URL, policy: UrlPolicy, resolve: Resolve): Promise<CheckedUrl> {
  const refusal = urlRefusal(url, policy);
  if (refusal) return { ok: false, reason: refusal };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return { ok: false, reason: 'the host does not resolve' };
  }
  const bad = addressRefusal(addresses, policy);
  return bad ? { ok: false, reason: bad } : { ok: true, address: addresses[0] };
}

export interface SendResult {
  /** null: no HTTP answer (refused address, network error, timeout). */
  status: number | null;
  durationMs: number;
  error: string | null;
  /** The first 1 KiB of the answer's body. */
  body: string | null;
  retryAfter: string | null;
}

export interface SendOptions {
  timeoutMs: number;
  policy: UrlPolicy;
  resolve: Resolve;
}

const agents = { 'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }), 'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }) };

/** A `lookup` that answers the address checked before, whatever the resolver would say now. */
function fixedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/**
 * One POST of a webhook: the host checked and resolved once and connected to at that address, no
 * redirect followed, the whole exchange cut at `timeoutMs`, at most 64 KiB of the answer read.
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(url);
  const checked = await checkUrl(target, options.policy, options.resolve);
  if (!checked.ok) return { status: null, durationMs: elapsed(), error: `refused: ${checked.reason}`, body: null, retryAfter: null };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const req = client.request(
      target,
      {
        method: 'POST',
        agent: agents[target.protocol as 'http:' | 'https:'],
        lookup: fixedLookup(checked.address),
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Pasar-Webhooks/1' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          finish({
            status: res.statusCode ?? null,
            error: null,
            body: storedBody(Buffer.concat(chunks)),
            retryAfter: typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : null,
          });
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
          else {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    req.on('error', (err) => finish({ status: null, error: err.message.slice(0, 500), body: null, retryAfter: null }));
    req.end(body);
  });
}
