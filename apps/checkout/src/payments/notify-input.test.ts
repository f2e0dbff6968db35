/**
 * POST /payments/notify is public and takes form or JSON bodies from anyone: a malformed body
 * answers 4xx problem+json, never 500, and changes no order.
 */
import { signedHeaders } from '@pasar/testkit';
import request from 'supertest';
import { useTestCheckout } from '../../test/checkout';
import { seedPendingOrder } from '../lifecycle/test-fixtures';
import { notificationSkey, type SignedNotificationFields } from './rules';

const t = useTestCheckout();
const notifyPath = '/api/v1/payments/notify';
const post = () => request(t.checkout.url).post(notifyPath).set(signedHeaders(null));

function expect4xx(res: request.Response) {
  expect({ status: res.status, body: res.text }).toEqual({ status: expect.any(Number), body: expect.any(String) });
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
}

describe('POST /payments/notify with a malformed body', () => {
  const malformedJson: [string, string][] = [
    ['bad JSON', '{"tranID": '],
    ['a NUL in a field', '{"tranID":"T1\\u0000","orderid":"x","status":"00"}'],
    ['a NUL in a key', '{"tran\\u0000ID":"T1"}'],
    ['a lone surrogate (jsonb refuses it)', '{"tranID":"T1","note":"\\ud800"}'],
    ['nested 5,000 levels', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)],
    ['an infinite number', '{"tranID":"T1","amount":1e999}'],
    ['a JSON array', '[{"tranID":"T1"}]'],
    ['JSON null', 'null'],
    ['a JSON string', '"OK"'],
    ['fields of the wrong types', '{"tranID":{"a":[1,2]},"orderid":12,"status":true,"amount":[],"skey":null}'],
    ['a 100,000-character field', JSON.stringify({ tranID: 'x'.repeat(100_000), orderid: 'y'.repeat(100_000) })],
  ];

  test.each(malformedJson)('JSON: %s → 4xx', async (_name, text) => {
    const res = await post().set('content-type', 'application/json').send(text);
    expect4xx(res);
  });

  const malformedForms: [string, string][] = [
    ['an encoded NUL', 'tranID=T1%00&orderid=x&status=00'],
    ['a bad percent-encoding', 'tranID=%E0%A4%A&orderid=%&status=00'],
    ['repeated fields', 'tranID=T1&tranID=T2&orderid=x&orderid=y&status=00&status=11'],
    ['no fields at all', '&&&='],
    ['a key without a value', 'tranID&orderid&status'],
  ];

  test.each(malformedForms)('form: %s → 4xx', async (_name, text) => {
    const res = await post().type('form').send(text);
    expect4xx(res);
  });

  test('text/plain and other content types → 415', async () => {
    expect((await post().type('text/plain').send('tranID=T1')).status).toBe(415);
    expect((await post().set('content-type', 'application/xml').send('<a/>')).status).toBe(415);
  });

  test('an unsupported charset or a broken gzip body → 4xx', async () => {
    expect4xx(await post().set('content-type', 'application/json; charset=ebcdic').send('{}'));
    expect4xx(await post().set('content-type', 'application/json').set('content-encoding', 'gzip').send('not gzip at all'));
  });

  test('a malformed notification for a real order leaves it unpaid', async () => {
    const order = await seedPendingOrder(t.checkout.prisma);
    const fields: SignedNotificationFields = {
      tranID: 'T-malformed',
      orderid: order.shortId,
      status: '00',
      domain: t.checkout.config.PAYMENT_MERCHANT_ID,
      amount: order.total,
      currency: 'MYR',
      paydate: '2026-03-01 10:15:00',
      appcode: '',
    };
    const skey = notificationSkey(fields, t.checkout.config.PAYMENT_SECRET_KEY);
    // correctly signed, but carrying a NUL and a lone surrogate in fields the gateway adds
    for (const extra of ['"extra":"a\\u0000"', '"extra":"\\udfff"']) {
      const text = `${JSON.stringify({ ...fields, skey }).slice(0, -1)},${extra}}`;
      expect4xx(await post().set('content-type', 'application/json').send(text));
    }
    const row = await t.checkout.prisma.order.findUniqueOrThrow({ where: { id: order.orderId } });
    expect(row.status).toBe('pending_payment');
    // and the well-formed one is still taken
    await post().type('form').send({ ...fields, skey }).expect(200);
    expect((await t.checkout.prisma.order.findUniqueOrThrow({ where: { id: order.orderId } })).status).toBe('paid');
  });
});
