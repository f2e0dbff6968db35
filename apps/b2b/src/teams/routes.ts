import { companyIdParam, invitationIdParam, inviteTeamMemberBody, listQuery, teamMemberParams } from '@pasar/contracts';
import { parse, requireRole, sendProblem } from '@pasar/service-kit';
import type { Router } from 'express';
import type { B2bDeps } from '../deps';
import { requireMember } from '../members/access';
import { INVITERS } from '../members/rules';
import { answerInvitation, inviteTeamMember, listInvitations, listTeam, removeTeamMember } from './teams';

type Deps = Pick<B2bDeps, 'prisma' | 'bus' | 'config' | 'log' | 'clock'>;

/** GET/POST /b2b/{companyId}/team, DELETE /b2b/{companyId}/team/{memberId}, the caller's invitations. */
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
    const outcome = await inviteTeamMember(deps, membership, body, req.requestId);
    if (!outcome.ok) {
      res.setHeader('Retry-After', String(outcome.retryAfterS));
      return sendProblem(res, 429, outcome.code, 'this company sent as many invites as it may in 24 hours; try again later');
    }
    res.status(202).json(outcome.sent);
  });

  router.delete('/b2b/:companyId/team/:memberId', async (req, res) => {
    const { companyId, memberId } = parse(teamMemberParams, req.params);
    const membership = await requireMember(deps.prisma, req, companyId);
    await removeTeamMember(deps, membership, memberId);
    res.status(204).end();
  });

  router.get('/b2b/invitations', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    res.json(await listInvitations(deps, userId));
  });

  for (const answer of ['accept', 'decline'] as const) {
    router.post(`/b2b/invitations/:id/${answer}`, async (req, res) => {
      const { userId } = requireRole(req, 'customer');
      const { id } = parse(invitationIdParam, req.params);
      await answerInvitation(deps, userId, id, answer === 'accept');
      res.status(204).end();
    });
  }
}
