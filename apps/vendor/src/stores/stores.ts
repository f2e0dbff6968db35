import { enqueueEvent, RpcRefusal } from '@pasar/bus';
import { vendorStoreUpserted, type RpcRequest, type vendorCreateStore } from '@pasar/contracts';
import { normaliseMsic, normaliseTin } from '@pasar/tax';
import { EVENT_SOURCE, lockKey, type Tx, type VendorDeps } from '../deps';
import type { Store } from '../generated/prisma/client';
import { firstFreeSlug, slugify } from './rules';

export type CreateStoreInput = RpcRequest<typeof vendorCreateStore>;

/**
 * Creates the store of an approved vendor application (rpc.vendor.create_store; also the dev/demo
 * seed's way to give a vendor a store). Idempotent by application id: a retry answers the same
 * store with created=false and writes nothing. TIN and MSIC are validated and normalised
 * (refusals `invalid_tin`, `invalid_msic`); one store per owner (`owner_has_store`).
 * vendor.store.upserted goes out through the outbox in the same transaction.
 */
export async function createStore({ prisma }: Pick<VendorDeps, 'prisma'>, input: CreateStoreInput): Promise<{ storeId: string; created: boolean }> {
  const tin = normaliseTin(input.tin);
  if (!tin.ok) throw new RpcRefusal('invalid_tin', tin.reason);
  const msic = normaliseMsic(input.msicCode);
  if (!msic.ok) throw new RpcRefusal('invalid_msic', msic.reason);
  const name = input.name.trim();
  if (!name) throw new RpcRefusal('invalid_name', 'the store name is required');
  const bank = [input.bankName, input.bankAccountNumber, input.bankAccountName].map((field) => field.trim());
  if (bank.some((field) => !field)) throw new RpcRefusal('invalid_bank_details', 'bank name, account number and account name are required');

  return prisma.$transaction(async (tx) => {
    await lockKey(tx, `store_application:${input.applicationId}`);
    const existing = await tx.store.findUnique({ where: { applicationId: input.applicationId }, select: { id: true } });
    if (existing) return { storeId: existing.id, created: false };
    await lockKey(tx, `store_owner:${input.ownerUserId}`);
    if (await tx.store.findUnique({ where: { ownerUserId: input.ownerUserId }, select: { id: true } })) {
      throw new RpcRefusal('owner_has_store', 'this user already owns a store');
    }
    const store = await tx.store.create({
      data: {
        applicationId: input.applicationId,
        ownerUserId: input.ownerUserId,
        name,
        slug: await freeSlug(tx, slugify(name)),
        description: input.description ?? null,
        logoPath: input.logoPath ?? null,
        bannerPath: input.bannerPath ?? null,
        tin: tin.value,
        msicCode: msic.value,
        sstRegNo: input.sstRegNo?.trim() || null,
        bankName: bank[0],
        bankAccountNumber: bank[1],
        bankAccountName: bank[2],
        consentAccepted: input.consent.accepted,
        consentAcceptedAt: input.consent.acceptedAt ? new Date(input.consent.acceptedAt) : null,
        consentTosVersion: input.consent.tosVersion,
      },
    });
    await enqueueEvent(tx, vendorStoreUpserted, storeUpserted(store), EVENT_SOURCE);
    return { storeId: store.id, created: true };
  });
}

/** Slugs are unique; writers of one base slug take turns so two stores never race for the same one. */
async function freeSlug(tx: Tx, base: string): Promise<string> {
  await lockKey(tx, `store_slug:${base}`);
  const taken = await tx.store.findMany({ where: { slug: { startsWith: base } }, select: { slug: true } });
  return firstFreeSlug(base, new Set(taken.map((s) => s.slug)));
}

function storeUpserted(store: Store) {
  return {
    storeId: store.id,
    ownerUserId: store.ownerUserId,
    name: store.name,
    slug: store.slug,
    logoPath: store.logoPath,
    status: store.status,
    updatedAt: store.updatedAt.toISOString(),
  };
}
