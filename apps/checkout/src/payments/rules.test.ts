import { randomUUID } from 'node:crypto';
import { paymentNotificationBody } from '@pasar/contracts';
import { Prisma } from '../generated/prisma/client';
import {
  hostedPaymentUrl,
  isAuthenticNotification,
  isPaymentMockOn,
  matchesPayment,
  mockReturnPath,
  notificationIntent,
  notificationSkey,
  paymentVcode,
  type SignedNotificationFields,
} from './rules';

// Vectors computed outside this code base: printf '%s' '<concatenation>' | md5sum
describe('paymentVcode = md5(amount + merchantId + orderId + verifyKey)', () => {
  test.each([
    ['25.50', 'pasar_dev', 'PSR-8K2M4Q', 'pasar-dev-verify-key', '56b0012923cc5efff04bb2628cdb800d'],
    ['1000.00', 'merchant_x', 'ORD-000001', 'vk_123', '75ab587221718624263c37072b08d79f'],
  ])('amount %s, merchant %s, order %s', (amount, merchantId, orderId, verifyKey, vcode) => {
    expect(paymentVcode(amount, merchantId, orderId, verifyKey)).toBe(vcode);
  });
});

const success: SignedNotificationFields = {
  tranID: '30012345',
  orderid: 'PSR-8K2M4Q',
  status: '00',
  domain: 'pasar_dev',
  amount: '25.50',
  currency: 'MYR',
  paydate: '2026-03-01 10:15:00',
  appcode: 'A123456',
};
const failed: SignedNotificationFields = {
  tranID: '999',
  orderid: 'ORD-000001',
  status: '11',
  domain: 'merchant_x',
  amount: '1000.00',
  currency: 'MYR',
  paydate: '2026-01-31 23:59:59',
  appcode: '',
};

describe('notificationSkey = md5(paydate + domain + md5(tranID + orderid + status + domain + amount + currency) + appcode + secret)', () => {
  test.each([
    ['a success with an appcode', success, 'pasar-dev-secret-key', 'be89ca2e9cdc1067e6a193473040ffbd'],
    ['a failure without an appcode', failed, 'sk_456', '45dcea38270d29e0ca858f4e4724be44'],
  ])('%s', (_case, fields, secret, skey) => {
    expect(notificationSkey(fields, secret)).toBe(skey);
  });
});

describe('isAuthenticNotification', () => {
  const signed = { ...success, skey: 'be89ca2e9cdc1067e6a193473040ffbd' };

  test('accepts our merchant id with the right skey, in either letter case', () => {
    expect(isAuthenticNotification(signed, 'pasar_dev', 'pasar-dev-secret-key')).toBe(true);
    expect(isAuthenticNotification({ ...signed, skey: signed.skey.toUpperCase() }, 'pasar_dev', 'pasar-dev-secret-key')).toBe(true);
  });

  test.each([
    ['another secret', signed, 'pasar_dev', 'other-secret'],
    ['a changed amount', { ...signed, amount: '2.55' }, 'pasar_dev', 'pasar-dev-secret-key'],
    ['a changed status', { ...signed, status: '11' as const }, 'pasar_dev', 'pasar-dev-secret-key'],
    ['another merchant id', signed, 'other_merchant', 'pasar-dev-secret-key'],
    ['an skey of another length', { ...signed, skey: 'be89' }, 'pasar_dev', 'pasar-dev-secret-key'],
  ])('refuses %s', (_case, notification, merchantId, secret) => {
    expect(isAuthenticNotification(notification, merchantId, secret)).toBe(false);
  });
});

describe('hostedPaymentUrl', () => {
  const request = {
    pageUrl: 'https://pay.example/RMS/pay/',
    merchantId: 'pasar_dev',
    verifyKey: 'pasar-dev-verify-key',
    amount: '25.50',
    orderRef: 'PSR-8K2M4Q',
    billName: 'Siti & Co',
    billEmail: 'siti@example.test',
    billDesc: 'Pasar order PSR-8K2M4Q',
    returnUrl: 'http://127.0.0.1:8080/payment/return',
    callbackUrl: 'http://127.0.0.1:8080/api/v1/payments/notify',
  };

  test('is the page under the merchant id with every parameter and the vcode', () => {
    const url = new URL(hostedPaymentUrl(request));
    expect(`${url.origin}${url.pathname}`).toBe('https://pay.example/RMS/pay/pasar_dev/');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      amount: '25.50',
      orderid: 'PSR-8K2M4Q',
      bill_name: 'Siti & Co',
      bill_email: 'siti@example.test',
      bill_desc: 'Pasar order PSR-8K2M4Q',
      returnurl: 'http://127.0.0.1:8080/payment/return',
      callbackurl: 'http://127.0.0.1:8080/api/v1/payments/notify',
      vcode: '56b0012923cc5efff04bb2628cdb800d',
    });
  });

  test('encodes the values (an ampersand in a name does not split the query)', () => {
    expect(hostedPaymentUrl(request)).toContain('bill_name=Siti+%26+Co');
  });
});

test('mockReturnPath is the spec return path with the order id', () => {
  const id = randomUUID();
  expect(mockReturnPath(id)).toBe(`/payment/return?status=success&orderId=${id}`);
});

describe('isPaymentMockOn', () => {
  test.each([
    ['development', true, true],
    ['test', true, true],
    ['production', true, false],
    ['development', false, false],
    ['production', false, false],
  ])('NODE_ENV=%s PAYMENT_MOCK=%s → %s', (env, mock, on) => {
    expect(isPaymentMockOn({ NODE_ENV: env, PAYMENT_MOCK: mock })).toBe(on);
  });
});

describe('matchesPayment', () => {
  const payment = { amount: new Prisma.Decimal('104.00'), currency: 'MYR' };
  test.each([
    ['104.00', 'MYR', true],
    ['104', 'MYR', true],
    ['104.00', 'myr', true],
    ['104.01', 'MYR', false],
    ['10.40', 'MYR', false],
    ['104.00', 'SGD', false],
  ])('amount %s %s → %s', (amount, currency, ok) => {
    expect(matchesPayment({ amount, currency }, payment)).toBe(ok);
  });
});

test('notificationIntent: only a success marks the order paid; failed and pending are recorded only', () => {
  expect(notificationIntent('00')).toBe('mark_paid');
  expect(notificationIntent('11')).toBe('record_only');
  expect(notificationIntent('22')).toBe('record_only');
});

describe('the notification contract', () => {
  const body = { ...success, skey: 'be89ca2e9cdc1067e6a193473040ffbd' };

  test('keeps the fields the gateway adds and defaults a missing appcode to empty', () => {
    const { appcode: _appcode, ...withoutAppcode } = body;
    expect(paymentNotificationBody.parse({ ...withoutAppcode, channel: 'fpx' })).toMatchObject({ appcode: '', channel: 'fpx' });
  });

  test.each([
    ['an unknown status', { ...body, status: '99' }],
    ['a missing skey', { ...body, skey: undefined }],
    ['an skey that is not md5 hex', { ...body, skey: 'not-a-signature' }],
    ['an amount that is not money', { ...body, amount: '12,50' }],
    ['a numeric tranID (fields are strings)', { ...body, tranID: 30012345 }],
  ])('refuses %s', (_case, input) => {
    expect(paymentNotificationBody.safeParse(input).success).toBe(false);
  });
});
