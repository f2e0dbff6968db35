import { randomUUID } from 'node:crypto';
import { RpcFailedError, callRpc } from '@pasar/bus';
import { vendorCreateStore, vendorStoreUpserted } from '@pasar/contracts';
import { outboxEvents, startTestVendor, storeInput, type TestVendor } from '../../test/vendor';

let t: TestVendor;

beforeAll(async () => {
  t = await startTestVendor();
});
afterAll(async () => {
  await t?.stop();
});

const createStoreRpc = (overrides: Parameters<typeof storeInput>[0] = {}) => callRpc(t.peer.bus, vendorCreateStore, storeInput(overrides));

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(RpcFailedError);
  return (err as RpcFailedError).code;
}

describe('rpc.vendor.create_store', () => {
  test('creates the store with TIN and MSIC normalised, and publishes vendor.store.upserted', async () => {
    const ownerUserId = randomUUID();
    const applicationId = randomUUID();
    const answer = await createStoreRpc({ applicationId, ownerUserId, name: '  Kedai Ali & Anak ', tin: 'c-0012345678', msicCode: ' 47711 ', sstRegNo: ' W10-1808-32000123 ' });
    expect(answer).toEqual({ storeId: expect.any(String), created: true });

    const store = await t.vendor.prisma.store.findUniqueOrThrow({ where: { id: answer.storeId } });
    expect(store).toMatchObject({
      applicationId,
      ownerUserId,
      name: 'Kedai Ali & Anak',
      slug: 'kedai-ali-anak',
      tin: 'C12345678',
      msicCode: '47711',
      sstRegNo: 'W10-1808-32000123',
      bankName: 'Maybank',
      status: 'active',
      consentAccepted: true,
      consentAcceptedAt: new Date('2026-01-02T03:04:05.000Z'),
      consentTosVersion: '2026-01',
    });
    const events = (await outboxEvents(t, vendorStoreUpserted)).filter((e) => e.storeId === answer.storeId);
    expect(events).toEqual([
      { storeId: answer.storeId, ownerUserId, name: 'Kedai Ali & Anak', slug: 'kedai-ali-anak', logoPath: 'stores/logo.png', status: 'active', updatedAt: store.updatedAt.toISOString() },
    ]);
  });

  test('is idempotent by application id: a retry answers the same store, created=false, and writes nothing', async () => {
    const input = { applicationId: randomUUID(), ownerUserId: randomUUID() };
    const answers = await Promise.all([createStoreRpc(input), createStoreRpc(input), createStoreRpc({ ...input, name: 'Another name' })]);
    const storeIds = new Set(answers.map((a) => a.storeId));
    expect(storeIds.size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    const [storeId] = [...storeIds];
    expect(await t.vendor.prisma.store.count({ where: { applicationId: input.applicationId } })).toBe(1);
    expect((await outboxEvents(t, vendorStoreUpserted)).filter((e) => e.storeId === storeId)).toHaveLength(1);
  });

  test('gives stores with the same name distinct slugs', async () => {
    const name = `Same Name ${randomUUID().slice(0, 8)}`;
    const answers = await Promise.all([createStoreRpc({ name }), createStoreRpc({ name }), createStoreRpc({ name })]);
    const stores = await t.vendor.prisma.store.findMany({ where: { id: { in: answers.map((a) => a.storeId) } } });
    const base = name.toLowerCase().replace(/ /g, '-');
    expect(stores.map((s) => s.slug).sort()).toEqual([base, `${base}-2`, `${base}-3`]);
  });

  test.each([
    ['invalid_tin', { tin: 'XX123' }],
    ['invalid_tin', { tin: 'IG12' }],
    ['invalid_msic', { msicCode: '4771' }],
    ['invalid_name', { name: '   ' }],
    ['invalid_bank_details', { bankAccountNumber: ' ' }],
  ])('refuses with %s and creates nothing (%j)', async (code, overrides) => {
    const applicationId = randomUUID();
    expect(await refusal(createStoreRpc({ applicationId, ...overrides }))).toBe(code);
    expect(await t.vendor.prisma.store.count({ where: { applicationId } })).toBe(0);
  });

  test('refuses owner_has_store for a second application of the same owner', async () => {
    const ownerUserId = randomUUID();
    await createStoreRpc({ ownerUserId });
    const applicationId = randomUUID();
    expect(await refusal(createStoreRpc({ ownerUserId, applicationId }))).toBe('owner_has_store');
    expect(await t.vendor.prisma.store.count({ where: { ownerUserId } })).toBe(1);
  });

  test('refuses a request that breaks the contract with invalid_request', async () => {
    const bad = { ...storeInput(), applicationId: 'not-a-uuid' };
    const reply = await t.peer.bus.nc.request(t.peer.bus.naming.subject(vendorCreateStore.subject), JSON.stringify(bad), { timeout: 3000 });
    expect(reply.json()).toMatchObject({ ok: false, code: 'invalid_request' });
  });
});
