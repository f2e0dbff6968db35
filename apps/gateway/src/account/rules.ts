import type { AccountSetupBody, EventData, identityAccountSetupCompleted } from '@pasar/contracts';

export type SetupCompleted = EventData<typeof identityAccountSetupCompleted>;

/**
 * What `identity.account.setup_completed` tells checkout and b2b: the new name and phone, the
 * address (a blank second line is none) and, when the caller sent billing data, the TIN already
 * normalised (`billing: null` when no billing data was sent at all).
 */
export function setupCompletedData(userId: string, body: AccountSetupBody, tin: string | null, completedAt: Date): SetupCompleted {
  const { address } = body;
  return {
    userId,
    fullName: body.fullName,
    phone: body.phone,
    address: {
      fullName: address.fullName,
      phone: address.phone,
      addressLine1: address.addressLine1,
      addressLine2: address.addressLine2 || null,
      city: address.city,
      postcode: address.postcode,
      state: address.state,
    },
    billing: body.billing ? { tin } : null,
    completedAt: completedAt.toISOString(),
  };
}
