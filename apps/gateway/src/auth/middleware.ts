import { unavailable } from '@pasar/service-kit';
import type { RequestHandler, Response } from 'express';
import { readSessionToken, setSessionCookie } from './cookies';
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

/**
 * The gateway's authentication (replaces service-kit's signed-identity check): resolves the
 * session cookie into `req.identity`, or null for an anonymous request. It never refuses: the
 * route table's gate decides what an anonymous caller may reach.
 */
export function authenticateSession(deps: SessionDeps & { production: boolean }): RequestHandler {
  return (req, res, next) => {
    req.identity = null;
    const token = readSessionToken(req);
    if (token === undefined) return next();
    if (!isWellFormedToken(token)) {
      res.locals.staleSessionCookie = true;
      return next();
    }
    resolveSession(deps, hashSessionToken(token)).then(
      (resolved) => {
        if (!resolved) {
          res.locals.staleSessionCookie = true;
          return next();
        }
        const { session, extended } = resolved;
        req.identity = { userId: session.user.id, role: session.user.role, email: session.user.email };
        res.locals.session = session;
        if (extended) setSessionCookie(res, deps.production, token, session.expiresAt, deps.clock());
        next();
      },
      (err: unknown) => {
        req.log.error({ err }, 'could not resolve the session');
        next(unavailable('sessions cannot be checked right now; try again'));
      },
    );
  };
}
