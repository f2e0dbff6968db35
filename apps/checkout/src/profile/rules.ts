import type { AddressBody, EventData, identityAccountSetupCompleted } from '@pasar/contracts';

export type SetupAddress = NonNullable<EventData<typeof identityAccountSetupCompleted>['address']>;

/** The label of the address saved from account setup (the setup form asks for none). */
export const SETUP_ADDRESS_LABEL = 'Home';

/** The address of account setup as an address request that makes it the default. */
export function setupAddressBody(address: SetupAddress): AddressBody {
  const { fullName: full_name, addressLine1: address_line_1, addressLine2: address_line_2, ...sameNames } = address;
  return { label: SETUP_ADDRESS_LABEL, full_name, address_line_1, address_line_2, ...sameNames, is_default: true };
}

const COMPARED_FIELDS = ['fullName', 'phone', 'addressLine1', 'addressLine2', 'city', 'postcode', 'state'] as const;
/** A stored address, as far as it is compared with the setup address. */
export type AddressFields = Record<(typeof COMPARED_FIELDS)[number], string | null>;

/**
 * True when a stored address already holds the setup address (the label aside). Values are
 * compared as the address use cases store them: trimmed, an empty second line being none.
 */
export function isSameAddress(stored: AddressFields, address: SetupAddress): boolean {
  const comparable = (value: string | null) => (value ?? '').trim();
  return COMPARED_FIELDS.every((field) => comparable(stored[field]) === comparable(address[field]));
}
