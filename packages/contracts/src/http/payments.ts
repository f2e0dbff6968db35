import { z } from 'zod';

/** Answer of POST /checkout/payment/initiate/{id} and /checkout/payment/retry/{id} (DESIGN §7). */
export const paymentUrlResponse = z
  .object({
    paymentUrl: z.string().min(1).meta({
      description:
        'The hosted payment page with its vcode signature; with the mock-payment switch on outside production, ' +
        'the return path /payment/return?status=success&orderId=<id> (the order is then already paid).',
    }),
  })
  .meta({ id: 'PaymentUrlResponse' });
export type PaymentUrlResponse = z.infer<typeof paymentUrlResponse>;

/** The payment gateway's status codes in a notification. */
export const PAYMENT_NOTIFICATION_STATUS = { success: '00', failed: '11', pending: '22' } as const;

const field = (max: number) => z.string().max(max);

/**
 * Body of POST /payments/notify (public; form-urlencoded or JSON; every field a string as the
 * gateway sends it). `skey` = md5(paydate + domain + md5(tranID + orderid + status + domain +
 * amount + currency) + appcode + secret key). Fields the gateway adds beyond these are kept.
 */
export const paymentNotificationBody = z
  .looseObject({
    tranID: field(100).min(1),
    orderid: field(100).min(1).meta({ description: "The order's shortId (or id) sent to the payment page" }),
    status: z.enum(['00', '11', '22']).meta({ description: "'00' success, '11' failed, '22' pending" }),
    domain: field(100).min(1).meta({ description: 'The merchant id' }),
    amount: z.string().regex(/^\d{1,10}(\.\d{1,2})?$/, 'amount like "12.50"'),
    currency: field(10).min(1),
    paydate: field(40),
    appcode: field(100).default(''),
    skey: z.string().regex(/^[0-9a-fA-F]{32}$/, 'skey is an md5 hex digest'),
  })
  .meta({ id: 'PaymentNotification' });
export type PaymentNotificationBody = z.infer<typeof paymentNotificationBody>;
