import { signedHeaders, TEST_NATS_NKEY_SEED } from '@pasar/testkit';
import request from 'supertest';
import { useTestCheckout } from '../../test/checkout';
import { DEV_PAYMENT_SECRETS } from '../config';
import { seedPendingOrder, type SeededOrder } from '../lifecycle/test-fixtures';
import { notificationSkey, type SignedNotificationFields } from './rules';

/** A checkout configured for production: keys of its own, never the public sandbox ones. */
const LIVE = { PAYMENT_MERCHANT_ID: 'shop_live', PAYMENT_VERIFY_KEY: 'live-verify-key-1', PAYMENT_SECRET_KEY: 'live-secret-key-1' };
const t = useTestCheckout({ NODE_ENV: 'production', NATS_NKEY_SEED: TEST_NATS_NKEY_SEED, ...LIVE });

function signed(order: SeededOrder, merchantId: string, secretKey: string) {
  const fields: SignedNotificationFields = {
    tranID: `T${Date.now()}${Math.floor(Math.random() * 1000)}`,
    orderid: order.shortId,
    status: '00',
    domain: merchantId,
    amount: order.total,
    currency: 'MYR',
    paydate: '2026-03-01 10:15:00',
    appcode: 'A123456',
  };
  return { ...fields, skey: notificationSkey(fields, secretKey) };
}

const notify = (body: object) => request(t.checkout.url).post('/api/v1/payments/notify').set(signedHeaders(null)).type('form').send(body);
const statusOf = async (order: SeededOrder) => (await t.checkout.prisma.order.findUniqueOrThrow({ where: { id: order.orderId } })).status;

describe('a production checkout and the public sandbox payment keys', () => {
  test('a notification forged with the public default keys is refused and the order stays unpaid', async () => {
    const order = await seedPendingOrder(t.checkout.prisma);
    const forged = signed(order, DEV_PAYMENT_SECRETS.PAYMENT_MERCHANT_ID, DEV_PAYMENT_SECRETS.PAYMENT_SECRET_KEY);
    expect((await notify(forged).expect(400)).body).toMatchObject({ code: 'invalid_signature' });
    const forgedForOurMerchant = signed(order, LIVE.PAYMENT_MERCHANT_ID, DEV_PAYMENT_SECRETS.PAYMENT_SECRET_KEY);
    await notify(forgedForOurMerchant).expect(400);
    expect(await statusOf(order)).toBe('pending_payment');
  });

  test('a notification signed with its own secret key pays the order', async () => {
    const order = await seedPendingOrder(t.checkout.prisma);
    await notify(signed(order, LIVE.PAYMENT_MERCHANT_ID, LIVE.PAYMENT_SECRET_KEY)).expect(200);
    expect(await statusOf(order)).toBe('paid');
  });
});
