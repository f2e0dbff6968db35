import { companyIdParam, inviteTeamMemberBody, listQuery } from '@pasar/contracts';
import { API_PREFIX, parse } from '@pasar/service-kit';
import type { Router } from 'express';
import type { B2bDeps } from '../deps';
import { requireMember } from '../members/access';
import { INVITERS } from '../members/rules';
import { inviteTeamMember, listTeam } from './teams';

type Deps = Pick<B2bDeps, 'prisma' | 'bus' | 'config' | 'log' | 'clock'>;

/** GET/POST /b2b/{companyId}/team. */
export function teamRoutes(router: Router, deps: Deps): void {
  router.get('/b2b/:companyId/team', async (req, res) => {
    const { companyId } = parse(companyIdParam, req.params);
    const page = parse(listQuery, req.query);
    const membership = await requireMember(deps.prisma, req, companyId);
    res.json(await listTeam(deps, membership, page));
  });

  router.post('/b2b/:companyId/team', async (req, res) => {
    const { companyId } = parse(companyIdParam, req.params);
    const body = parse(inviteTeamMemberBody, req.body);
    const membership = await requireMember(deps.prisma, req, companyId, INVITERS, 'invite members');
    const member = await inviteTeamMember(deps, membership, body, req.requestId);
    res.status(201).location(`${API_PREFIX}/b2b/${companyId}/team`).json(member);
  });
}
