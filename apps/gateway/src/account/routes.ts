import { accountSetupBody, changePasswordBody, updateProfileBody } from '@pasar/contracts';
import { parse, requireUser, sendProblem, unauthenticated } from '@pasar/service-kit';
import type { Request, Response, Router } from 'express';
import { sessionOf } from '../auth/middleware';
import { changePassword, type AccountDeps, type Caller, type PasswordOutcome } from './passwords';
import { updateProfile } from './profile';
import { completeAccountSetup, mustChangePassword } from './setup';

/**
 * The gateway's /account routes: PATCH /account/profile, GET /account/must-change-password,
 * POST /account/setup and POST /account/change-password (the rest of /account/* is checkout's).
 */
export function accountRoutes(router: Router, deps: AccountDeps): void {
  router.patch('/account/profile', async (req, res) => {
    const identity = requireUser(req);
    const body = parse(updateProfileBody, req.body);
    await updateProfile(deps, identity.userId, body, req.requestId);
    res.status(204).end();
  });

  router.get('/account/must-change-password', async (req, res) => {
    const identity = requireUser(req);
    res.json({ mustChangePassword: await mustChangePassword(deps.prisma, identity.userId) });
  });

  router.post('/account/setup', async (req, res) => {
    const caller = callerOf(req, res);
    const body = parse(accountSetupBody, req.body);
    answer(res, await completeAccountSetup(deps, caller, body, req.requestId));
  });

  router.post('/account/change-password', async (req, res) => {
    const caller = callerOf(req, res);
    const body = parse(changePasswordBody, req.body);
    answer(res, await changePassword(deps, caller, body));
  });
}

/** The signed-in caller with the session they called with (401 when anonymous). */
function callerOf(req: Request, res: Response): Caller {
  const identity = requireUser(req);
  const session = sessionOf(res);
  if (!session) throw unauthenticated();
  return { userId: identity.userId, email: identity.email, tokenHash: session.tokenHash, ip: req.ip ?? req.socket.remoteAddress ?? 'unknown' };
}

/** 204, or 429 with Retry-After when the password attempts are spent. */
function answer(res: Response, outcome: PasswordOutcome): void {
  if (outcome.ok) {
    res.status(204).end();
    return;
  }
  res.setHeader('Retry-After', String(outcome.retryAfterS));
  sendProblem(res, 429, 'rate_limited', `too many wrong passwords; try again in ${outcome.retryAfterS} s`);
}
