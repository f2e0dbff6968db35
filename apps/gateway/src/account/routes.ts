import { updateProfileBody } from '@pasar/contracts';
import { parse, requireUser } from '@pasar/service-kit';
import type { Router } from 'express';
import type { SessionDeps } from '../auth/sessions';
import { updateProfile } from './profile';

/** PATCH /account/profile (the rest of /account/* is checkout's). */
export function accountRoutes(router: Router, deps: Pick<SessionDeps, 'prisma' | 'revocations'>): void {
  router.patch('/account/profile', async (req, res) => {
    const identity = requireUser(req);
    const body = parse(updateProfileBody, req.body);
    await updateProfile(deps, identity.userId, body, req.requestId);
    res.status(204).end();
  });
}
