import type { IncomingHttpHeaders } from 'node:http';
import type { Role } from '@pasar/contracts';
import { API_PREFIX } from '@pasar/service-kit';
import vary from 'vary';
import { BODY_LIMITS, DEFAULT_BODY_LIMIT, type GatewayRoute, type RouteAccess } from './route-table';

/** The table ordered for matching: longest prefix first (ties keep table order). */
export function compileRouteTable(table: readonly GatewayRoute[]): readonly GatewayRoute[] {
  for (const route of table) {
    if (!/^(\/[A-Za-z0-9._-]+)+$/.test(route.prefix)) throw new Error(`bad route prefix "${route.prefix}"`);
  }
  return table
    .map((route, index) => ({ route, index }))
    .sort((a, b) => b.route.prefix.length - a.route.prefix.length || a.index - b.index)
    .map(({ route }) => route);
}

/**
 * A path is served only in its plain form: no empty, `.` or `..` segments (also percent-encoded),
 * so a path cannot pass the gate as one route and reach a service as another.
 */
export function isPlainPath(path: string): boolean {
  if (!path.startsWith('/')) return false;
  const segments = path.slice(1).split('/');
  return segments.every((segment, i) => {
    if (segment === '') return i === segments.length - 1; // one trailing slash is fine
    const decoded = segment.replace(/%2e/gi, '.');
    return decoded !== '.' && decoded !== '..' && !/%2f|%5c/i.test(segment);
  });
}

/** The route for a path under /api/v1 (the first of the compiled table whose prefix matches whole segments). */
export function matchRoute(compiled: readonly GatewayRoute[], path: string): GatewayRoute | undefined {
  if (!isPlainPath(path)) return undefined;
  return compiled.find((route) => path === route.prefix || path.startsWith(`${route.prefix}/`));
}

export type AccessDecision = 'allow' | 'unauthenticated' | 'forbidden';

/** The coarse gate: public for anyone, `any` for every signed-in user, `vendor`/`admin` for that role only. */
export function decideAccess(access: RouteAccess, caller: { role: Role } | null): AccessDecision {
  if (access === 'public') return 'allow';
  if (!caller) return 'unauthenticated';
  if (access === 'any' || caller.role === access) return 'allow';
  return 'forbidden';
}

/** How large a body a proxied request may send (`url`: /api/v1/..., query string included): 1 MB, more on the routes BODY_LIMITS lists. */
export function bodyLimitOf(method: string, url: string, limits: typeof BODY_LIMITS = BODY_LIMITS): string {
  const query = url.indexOf('?');
  const path = (query === -1 ? url : url.slice(0, query)).slice(API_PREFIX.length);
  return limits.find((entry) => entry.method === method && entry.path === path)?.limit ?? DEFAULT_BODY_LIMIT;
}

/**
 * The headers an upstream gets: the incoming ones without any `x-pasar-*` (only the gateway may
 * speak for the caller), without the session cookie and without the caller's trace context, plus
 * the signed identity headers and the gateway's own trace context (`trace`: the services follow
 * the gateway's trace, never a caller's it did not trust). The body was read whole (`bodyLength`
 * bytes) and goes on with its length, no longer chunked.
 */
export function forwardHeaders(incoming: IncomingHttpHeaders, signed: Record<string, string>, requestId: string, bodyLength = 0, trace: Record<string, string> = {}): IncomingHttpHeaders {
  // one pass, no intermediate copies: this runs for every proxied request
  const headers: IncomingHttpHeaders = {};
  for (const name in incoming) {
    const lower = name.toLowerCase();
    if (lower.startsWith('x-pasar-') || lower === 'cookie' || lower === 'traceparent' || lower === 'tracestate') continue;
    headers[lower] = incoming[name];
  }
  Object.assign(headers, signed, trace);
  headers['x-request-id'] = requestId;
  if (bodyLength > 0 || headers['transfer-encoding'] !== undefined) {
    delete headers['transfer-encoding'];
    headers['content-length'] = String(bodyLength);
  }
  return headers;
}

/**
 * The Vary of a proxied answer: the upstream's joined by the gateway's own (`Origin` where CORS
 * named the caller's origin), not replaced by it, so a shared cache never gives one origin's
 * answer to another. Each field once (case-insensitive), `*` alone when either has it; the
 * upstream's as it is when the gateway has none, and the gateway's when the upstream sends none.
 */
export function joinedVary(gateway: string | undefined, upstream: string | undefined): string | undefined {
  if (gateway === undefined || upstream === undefined) return upstream ?? gateway;
  return vary.append(upstream, gateway); // the gateway's fields are checked as header names, the upstream's taken as sent
}

export type ProxyFailure = { status: 502 | 503 | 504; code: string; detail: string };

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EHOSTDOWN']);
export const UPSTREAM_TIMEOUT_CODE = 'UPSTREAM_TIMEOUT';

/** How a failed proxy attempt is answered: unreachable 503, timed out 504, anything else 502. */
export function classifyProxyError(code: string | undefined, upstream: string): ProxyFailure {
  if (code && UNREACHABLE.has(code)) {
    return { status: 503, code: 'service_unavailable', detail: `the ${upstream} service is not reachable; try again` };
  }
  if (code === UPSTREAM_TIMEOUT_CODE || code === 'ETIMEDOUT') {
    return { status: 504, code: 'upstream_timeout', detail: `the ${upstream} service did not answer in time` };
  }
  return { status: 502, code: 'bad_gateway', detail: `the ${upstream} service gave no valid answer` };
}
