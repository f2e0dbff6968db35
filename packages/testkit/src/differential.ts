/**
 * The differential tests of the paths that serve requests without express (service-kit's lean
 * routes, the gateway's raw proxy path): one fixed matrix of requests, sent byte for byte to the
 * path under test and to express serving the same route, whose answers must be equal.
 */
import { request as httpRequest } from 'node:http';

/** The request id every case sends (so problem bodies and echoes carry the same one). */
export const DIFFERENTIAL_REQUEST_ID = 'req-differential';

/**
 * How a case presents its caller; each test turns it into its own credentials (signed headers, a
 * session cookie): valid ones of the route's audience, valid ones of another role, none, tampered
 * or malformed ones, expired ones.
 */
export type Credentials = 'valid' | 'another role' | 'none' | 'bad' | 'expired';

/** A route under test: its method and path with its parameters filled. */
export interface DifferentialRoute {
  /** How a difference names the route, e.g. `GET /vendor/shipments/:id`. */
  label: string;
  method: 'GET' | 'POST';
  target: string;
  /** The target with a path parameter badly percent-encoded, when the route has one. */
  badlyEncoded?: string;
  /** A caller without valid credentials is let through (the route decides), not refused with 401. */
  isPublic?: boolean;
}

/** One request of the matrix. */
export interface DifferentialCase {
  name: string;
  credentials: Credentials;
  method: string;
  path: string;
  /** The content type sent, if any. */
  contentType?: string;
  body?: Buffer;
  /** Sends the request once first and repeats it with the first answer's ETag as If-None-Match. */
  conditional?: boolean;
  /** The status both must answer where the case decides it before any handler runs. */
  status?: number;
  /** The route's own answer is expected (the handler runs): a test whose handler always answers may check its status. */
  handled?: boolean;
}

const JSON_TYPE = 'application/json';
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const nested = (depth: number) => Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
/** One byte over the 1 MB a JSON body may have (body-parser's and the gateway's default limit). */
const tooLarge = () => json({ pad: 'x'.repeat(1024 * 1024 + 10) });

/** The fixed matrix for one route. */
export function differentialCases(route: DifferentialRoute): DifferentialCase[] {
  const withBody = route.method === 'POST';
  const valid = { method: route.method, path: route.target, credentials: 'valid' as const, ...(withBody ? { contentType: JSON_TYPE, body: json({}) } : {}) };
  const refused = route.isPublic ? undefined : 401;
  const bodyRule = (status: number) => (withBody ? status : undefined);
  const withQuery = (query: string) => `${route.target}${route.target.includes('?') ? '&' : '?'}${query}`;
  return [
    { ...valid, name: 'valid', handled: true },
    { ...valid, name: 'no credentials', credentials: 'none', status: refused },
    { ...valid, name: 'bad credentials', credentials: 'bad', status: refused },
    { ...valid, name: 'expired credentials', credentials: 'expired', status: refused },
    { ...valid, name: 'another role', credentials: 'another role' },
    { ...valid, name: 'wrong content type', contentType: 'text/plain', body: Buffer.from('hello'), status: bodyRule(415) },
    { ...valid, name: 'too large', contentType: JSON_TYPE, body: tooLarge(), status: bodyRule(413) },
    { ...valid, name: 'too deep', contentType: JSON_TYPE, body: nested(200), status: bodyRule(400) },
    { ...valid, name: 'NUL in the body', contentType: JSON_TYPE, body: json({ note: 'a\u0000b' }), status: bodyRule(400) },
    { ...valid, name: 'NUL in the path', path: `${route.target}%00`, status: 400 },
    { ...valid, name: 'NUL in the query', path: withQuery('q=a%00b'), status: 400 },
    ...(route.badlyEncoded ? [{ ...valid, name: 'bad percent-encoding in the path', path: route.badlyEncoded, status: 400 }] : []),
    { ...valid, name: 'bad percent-encoding in the query', path: withQuery('q=%E0%A4%A') },
    { ...valid, name: 'valid, then its ETag as If-None-Match', conditional: true, handled: true },
    { ...valid, name: 'unknown query parameter', path: withQuery('unknown=1'), handled: true },
    { name: 'HEAD', credentials: 'valid', method: 'HEAD', path: route.target, handled: route.method === 'GET' },
    { name: 'wrong method', credentials: 'valid', method: 'PUT', path: route.target, contentType: JSON_TYPE, body: json({}) },
    { name: 'a body on a method that takes none', credentials: 'valid', method: withBody ? 'DELETE' : 'GET', path: route.target, contentType: 'text/plain', body: Buffer.from('hello'), status: 400 },
  ];
}

/** An answer as a client reads it: status, every header but Date (it ticks), body. */
export interface DifferentialAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

/** A request sent byte for byte as given (path unnormalised), with node's own client. */
export function sendAsIs(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<DifferentialAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const { date: _date, ...kept } = res.headers;
        const headers = Object.fromEntries(Object.entries(kept).filter((entry): entry is [string, string | string[]] => entry[1] !== undefined).sort(([a], [b]) => a.localeCompare(b)));
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve({ status: 0, headers: {}, body: err.code }) : reject(err)));
    req.end(body);
  });
}

export interface DifferentialRun {
  /** The base URL of the path under test. */
  subject: string;
  /** The base URL of express serving the same routes. */
  reference: string;
  routes: readonly DifferentialRoute[];
  /** The credentials headers of a case (sent to both). */
  credentialsFor(route: DifferentialRoute, c: DifferentialCase): Record<string, string>;
  /** Headers every request carries besides the case's own (e.g. an Origin). */
  extraHeaders?: Record<string, string>;
  /** What else a test requires of the subject's answer to a case (a message per failure). */
  check?(route: DifferentialRoute, c: DifferentialCase, answer: DifferentialAnswer): string | undefined;
}

/**
 * Sends every case of every route to both, one after the other, and lists the differences: a
 * status other than the one the case decides, any 5xx, and any answer (status, headers, body)
 * the subject gives other than the reference's.
 */
export async function differencesOf(run: DifferentialRun): Promise<string[]> {
  const differences: string[] = [];
  for (const route of run.routes) {
    for (const c of differentialCases(route)) {
      const headers: Record<string, string> = {
        ...run.extraHeaders,
        ...(c.contentType ? { 'content-type': c.contentType } : {}),
        ...run.credentialsFor(route, c),
        'x-request-id': DIFFERENTIAL_REQUEST_ID,
      };
      const answerOf = async (base: string) => {
        const extra: Record<string, string> = {};
        if (c.conditional) {
          const first = await sendAsIs(base, c.method, c.path, headers, c.body);
          if (typeof first.headers.etag === 'string') extra['if-none-match'] = first.headers.etag;
        }
        return sendAsIs(base, c.method, c.path, { ...headers, ...extra }, c.body);
      };
      const subject = await answerOf(run.subject);
      const reference = await answerOf(run.reference);
      const where = `${route.label} — ${c.name}`;
      if (c.status !== undefined && subject.status !== c.status) differences.push(`${where}: ${subject.status}, not ${c.status}`);
      if (subject.status >= 500 || subject.status === 0) differences.push(`${where}: ${subject.status} ${subject.body}`);
      const extra = run.check?.(route, c, subject);
      if (extra) differences.push(`${where}: ${extra}`);
      if (JSON.stringify(subject) !== JSON.stringify(reference)) {
        differences.push(`${where}:\n  subject   ${JSON.stringify(subject)}\n  reference ${JSON.stringify(reference)}`);
      }
    }
  }
  return differences;
}
