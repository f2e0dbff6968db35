import { addressBody, type EventData, type identityAccountSetupCompleted } from '@pasar/contracts';
import { ProblemError, badRequest } from '@pasar/service-kit';
import type { Logger } from 'pino';
import { createAddress, listAddresses, setDefaultAddress } from '../addresses/addresses';
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import { normaliseOptionalTin } from '@pasar/tax';
import { isSameAddress, setupAddressBody, type SetupAddress } from './rules';

/** What the profile use cases need. */
export interface ProfileDeps {
  prisma: PrismaClient;
}

type Tx = Prisma.TransactionClient;
export type AccountSetupCompleted = EventData<typeof identityAccountSetupCompleted>;

/** GET /account/tin: the caller's profile TIN, null when none. */
export async function getProfileTin({ prisma }: ProfileDeps, customerId: string): Promise<string | null> {
  const profile = await prisma.customerProfile.findUnique({ where: { customerId }, select: { tin: true } });
  return profile?.tin ?? null;
}

/**
 * PATCH /account/tin: null or blank clears the profile TIN; otherwise it must be a valid TIN
 * (400 `invalid_tin`) and is stored normalised. Orders keep the buyer_tin they were placed with.
 */
export async function updateProfileTin({ prisma }: ProfileDeps, customerId: string, input: string | null): Promise<void> {
  const change = normaliseOptionalTin(input);
  if (!change.ok) throw badRequest('invalid_tin', change.reason);
  await saveProfileTin(prisma, customerId, change.tin);
}

async function saveProfileTin(db: Tx | PrismaClient, customerId: string, tin: string | null): Promise<void> {
  await db.customerProfile.upsert({ where: { customerId }, create: { customerId, tin }, update: { tin } });
}

/**
 * identity.account.setup_completed, for the user's profile: the billing TIN (when one was given
 * and is valid) becomes the profile TIN, in the inbox transaction `tx`; the address becomes the
 * default address through the address use cases.
 */
export async function applyAccountSetup(deps: ProfileDeps & { log: Logger }, tx: Tx, event: AccountSetupCompleted): Promise<void> {
  const tin = normaliseOptionalTin(event.billing?.tin);
  if (!tin.ok) deps.log.warn({ userId: event.userId, reason: tin.reason }, 'account setup sent an invalid TIN; the profile TIN is left as it is');
  else if (tin.tin) await saveProfileTin(tx, event.userId, tin.tin);
  if (event.address) await saveSetupAddress(deps, event.userId, event.address);
}

/**
 * Makes the setup address the customer's default. The address use cases run their own
 * transaction (they take the customer's address lock), so this write is not covered by the inbox
 * row: it is idempotent by content instead. An address with the same fields is made the default
 * rather than added again, so a redelivery after a failed commit adds nothing. An address the
 * address rules refuse (a field too long; 20 addresses already) is logged and skipped: setup
 * itself has succeeded and retrying cannot change that answer.
 */
async function saveSetupAddress(deps: ProfileDeps & { log: Logger }, customerId: string, address: SetupAddress): Promise<void> {
  const parsed = addressBody.safeParse(setupAddressBody(address));
  if (!parsed.success) {
    deps.log.warn({ customerId, issues: parsed.error.issues }, 'the account setup address breaks the address rules; not saved');
    return;
  }
  const existing = (await listAddresses(deps, customerId)).find((stored) => isSameAddress(stored, address));
  try {
    if (existing) await setDefaultAddress(deps, customerId, existing.id);
    else await createAddress(deps, customerId, parsed.data);
  } catch (err) {
    if (!(err instanceof ProblemError) || err.status !== 409) throw err;
    deps.log.warn({ customerId, code: err.code }, 'the account setup address was not saved');
  }
}
