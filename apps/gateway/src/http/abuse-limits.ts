import { sendProblem } from '@pasar/service-kit';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { GatewayConfig, RateLimit } from '../config';
import { takePoint, type LimiterStore } from './limiter-store';

/** An endpoint bots abuse, limited per client IP. */
interface AbuseLimit {
  name: string;
  method: string;
  /** Under /api/v1, as the gateway's API router sees it. */
  path: string;
  limit: RateLimit;
}

type AbuseConfig = Pick<GatewayConfig, 'RATE_LIMIT_SIGN_UP' | 'RATE_LIMIT_PAYMENT_NOTIFY' | 'RATE_LIMIT_FAMILY_INVITES' | 'RATE_LIMIT_VENDOR_APPLICATIONS'>;

export function abuseLimitTable(config: AbuseConfig): AbuseLimit[] {
  return [
    { name: 'sign_up', method: 'POST', path: '/auth/sign-up', limit: config.RATE_LIMIT_SIGN_UP },
    { name: 'payment_notify', method: 'POST', path: '/payments/notify', limit: config.RATE_LIMIT_PAYMENT_NOTIFY },
    { name: 'family_invites', method: 'POST', path: '/family/members', limit: config.RATE_LIMIT_FAMILY_INVITES },
    { name: 'vendor_applications', method: 'POST', path: '/vendor-applications', limit: config.RATE_LIMIT_VENDOR_APPLICATIONS },
  ];
}

/** The path as the router matches it: case-insensitive, a trailing slash ignored. */
export function normalisedPath(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

/**
 * Mounted on /api/v1 before the routes and the proxy: each limited endpoint takes one point of
 * the client IP's budget (req.ip, as TRUST_PROXY says), shared by every gateway instance through
 * Redis when REDIS_URL is set. Spent → 429 `rate_limited` with Retry-After.
 */
export function abuseLimits(config: AbuseConfig, store: LimiterStore, log: Logger): RequestHandler {
  const limits = abuseLimitTable(config).map((entry) => ({ ...entry, limiter: store.limiter(`abuse_${entry.name}`, entry.limit.points, entry.limit.durationS) }));
  return async (req, res, next) => {
    const path = normalisedPath(req.path);
    const entry = limits.find((l) => l.method === req.method && l.path === path);
    if (!entry) return next();
    const decision = await takePoint(entry.limiter, req.ip ?? req.socket.remoteAddress ?? 'unknown', log);
    if (decision.ok) return next();
    res.setHeader('Retry-After', String(decision.retryAfterS));
    sendProblem(res, 429, 'rate_limited', `too many requests; try again in ${decision.retryAfterS} s`);
  };
}
