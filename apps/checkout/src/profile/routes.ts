import { updateTinBody, type CustomerTin } from '@pasar/contracts';
import { parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import { getProfileTin, updateProfileTin, type ProfileDeps } from './profile';

/** GET and PATCH /account/tin (customer role). */
export function profileRoutes(router: Router, deps: ProfileDeps): void {
  router.get('/account/tin', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const answer: CustomerTin = { tin: await getProfileTin(deps, userId) };
    res.json(answer);
  });

  router.patch('/account/tin', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { tin } = parse(updateTinBody, req.body);
    await updateProfileTin(deps, userId, tin);
    res.status(204).end();
  });
}
