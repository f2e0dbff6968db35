import { signInBody, signUpBody } from '@pasar/contracts';
import { API_PREFIX, ProblemError, parse, sendProblem, unauthenticated } from '@pasar/service-kit';
import type { Router } from 'express';
import { signIn, signOut, signUp, type AuthDeps } from './auth';
import { deviceToken, readDeviceToken, setDeviceCookie } from './device-cookie';
import { clearSessionCookie, readSessionToken, setSessionCookie } from './cookies';
import { hadStaleCookie, sessionOf } from './middleware';

/** POST /auth/sign-up, /auth/sign-in, /auth/sign-out and GET /auth/session (DESIGN §7). */
export function authRoutes(router: Router, deps: AuthDeps & { production: boolean }): void {
  router.post('/auth/sign-up', async (req, res) => {
    const body = parse(signUpBody, req.body);
    const signedIn = await signUp(deps, body, req.requestId);
    setSessionCookie(res, deps.production, signedIn.token, signedIn.expiresAt, signedIn.issuedAt);
    setDeviceCookie(res, deps.production, deviceToken(deps.config.IDENTITY_SECRET, signedIn.user.email, signedIn.issuedAt));
    res.status(201).location(`${API_PREFIX}/auth/session`).json({ user: signedIn.user });
  });

  router.post('/auth/sign-in', async (req, res) => {
    const body = parse(signInBody, req.body);
    const result = await signIn(deps, body, req.ip ?? req.socket.remoteAddress ?? 'unknown', readDeviceToken(req));
    if (result.ok) {
      setSessionCookie(res, deps.production, result.token, result.expiresAt, result.issuedAt);
      setDeviceCookie(res, deps.production, result.deviceToken);
      res.status(200).json({ user: result.user });
    } else if (result.reason === 'rate_limited') {
      res.setHeader('Retry-After', String(result.retryAfterS));
      sendProblem(res, 429, 'rate_limited', `too many sign-in attempts; try again in ${result.retryAfterS} s`);
    } else {
      throw new ProblemError(401, 'invalid_credentials', 'wrong e-mail or password');
    }
  });

  router.post('/auth/sign-out', async (req, res) => {
    await signOut(deps, readSessionToken(req));
    clearSessionCookie(res, deps.production);
    res.status(204).end();
  });

  router.get('/auth/session', (_req, res) => {
    const session = sessionOf(res);
    if (!session) {
      if (hadStaleCookie(res)) clearSessionCookie(res, deps.production);
      throw unauthenticated();
    }
    res.json({ user: session.user });
  });
}
