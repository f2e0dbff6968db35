import { z } from 'zod';
import { b2bRoleSchema } from './b2b';

// B2B team consent (issue 24): an invite answers the same whatever the e-mail belongs to; an
// existing account accepts or declines its invitation; members leave and admins remove them.

/** POST /b2b/{companyId}/team → 202: the same answer for every e-mail (existence is never revealed). */
export const teamInviteSent = z
  .object({ email: z.string(), status: z.literal('pending') })
  .meta({ id: 'B2bTeamInviteSent', description: 'The invitation is on its way if the e-mail can join; nothing says whether it had an account.' });
export type TeamInviteSent = z.infer<typeof teamInviteSent>;

/** GET /b2b/invitations: an invitation of the caller's existing account, waiting for its answer. */
export const b2bInvitation = z
  .object({
    id: z.uuid(),
    companyId: z.uuid(),
    companyName: z.string(),
    b2bRole: b2bRoleSchema,
    invitedAt: z.iso.datetime(),
  })
  .meta({ id: 'B2bInvitation' });
export type B2bInvitation = z.infer<typeof b2bInvitation>;

export const invitationIdParam = z.object({ id: z.uuid() });

/** DELETE /b2b/{companyId}/team/{memberId} */
export const teamMemberParams = z.object({ companyId: z.uuid(), memberId: z.uuid() });
