import { z } from 'zod';

/**
 * POST /family/members → 202 (issue 24): the same answer for every e-mail, whether it had an
 * account, is a vendor's or an administrator's, or already belongs to a family.
 */
export const familyInviteSent = z
  .object({ email: z.string(), status: z.literal('pending') })
  .meta({ id: 'FamilyInviteSent', description: 'The invitation is on its way if the e-mail can join; nothing says whom it belongs to.' });
export type FamilyInviteSent = z.infer<typeof familyInviteSent>;
