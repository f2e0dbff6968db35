import { unavailable, type Identity } from '@pasar/service-kit';
import type { RequestHandler, Response } from 'express';
import { sessionCookie, sessionTokenOf } from './cookies';
import { hashSessionToken, isWellFormedToken } from './rules';
import type { ResolvedSession } from './session-cache';
import { resolveSession, type SessionDeps } from './sessions';

/** The session the request was authenticated with (set by `authenticateSession`). */
export function sessionOf(res: Response): ResolvedSession | undefined {
  return res.locals.session as ResolvedSession | undefined;
}

/** True when the request carried a session cookie that no longer names a session. */
export function hadStaleCookie(res: Response): boolean {
  return res.locals.staleSessionCookie === true;
}

/** Who a request's session cookie says the caller is. */
export interface Caller {
  /** null: anonymous (no cookie, or one that names no live session). */
  identity: Identity | null;
  session?: ResolvedSession;
  /** The cookie named no live session (or was not a token at all). */
  staleCookie: boolean;
  /** The session's expiry moved: this Set-Cookie value carries the new one. */
  renewedCookie?: string;
}

const ANONYMOUS: Caller = { identity: null, staleCookie: false };
const STALE: Caller = { identity: null, staleCookie: true };

/**
 * Resolves a Cookie header into the caller (the session cache first, then the database); rejects
 * when sessions cannot be checked. Shared by the express routes and the proxied path.
 */
export async function callerOf(deps: SessionDeps & { production: boolean }, cookieHeader: string | undefined): Promise<Caller> {
  const token = sessionTokenOf(cookieHeader);
  if (token === undefined) return ANONYMOUS;
  if (!isWellFormedToken(token)) return STALE;
  const resolved = await resolveSession(deps, hashSessionToken(token));
  if (!resolved) return STALE;
  const { session, extended } = resolved;
  return {
    identity: { userId: session.user.id, role: session.user.role, email: session.user.email },
    session,
    staleCookie: false,
    ...(extended ? { renewedCookie: sessionCookie(deps.production, token, session.expiresAt, deps.clock()) } : {}),
  };
}

/**
 * The gateway's authentication (replaces service-kit's signed-identity check): resolves the
 * session cookie into `req.identity`, or null for an anonymous request. It never refuses: the
 * route table's gate decides what an anonymous caller may reach.
 */
export function authenticateSession(deps: SessionDeps & { production: boolean }): RequestHandler {
  return (req, res, next) => {
    req.identity = null;
    callerOf(deps, req.headers.cookie).then(
      (caller) => {
        req.identity = caller.identity;
        if (caller.staleCookie) res.locals.staleSessionCookie = true;
        if (caller.session) res.locals.session = caller.session;
        if (caller.renewedCookie) res.append('Set-Cookie', caller.renewedCookie);
        next();
      },
      (err: unknown) => {
        req.log.error({ err }, 'could not resolve the session');
        next(unavailable('sessions cannot be checked right now; try again'));
      },
    );
  };
}
