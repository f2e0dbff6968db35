import type { AccountSetupBody, EventData, identityAccountSetupCompleted } from '@pasar/contracts';
import { normaliseTin } from '@pasar/tax';

export type OptionalTin = { ok: true; tin: string | null } | { ok: false; reason: string };

/** A TIN the caller may leave out: absent, null or blank is none; anything else must be a valid TIN (normalised). */
export function optionalTin(input: string | null | undefined): OptionalTin {
  if (input == null || input.trim() === '') return { ok: true, tin: null };
  const result = normaliseTin(input);
  return result.ok ? { ok: true, tin: result.value } : { ok: false, reason: result.reason };
}

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
