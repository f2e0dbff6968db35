import { createHash, timingSafeEqual } from 'node:crypto';
import { PAYMENT_NOTIFICATION_STATUS, type PaymentNotificationBody } from '@pasar/contracts';
import { Prisma } from '../generated/prisma/client';

const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

/** The hosted page's request signature (DESIGN §6): md5(amount + merchantId + orderId + verifyKey). */
export function paymentVcode(amount: string, merchantId: string, orderId: string, verifyKey: string): string {
  return md5(amount + merchantId + orderId + verifyKey);
}

/** The fields of a notification its signature covers. */
export type SignedNotificationFields = Pick<
  PaymentNotificationBody,
  'tranID' | 'orderid' | 'status' | 'domain' | 'amount' | 'currency' | 'paydate' | 'appcode'
>;

/**
 * The notification's signature (DESIGN §6):
 * md5(paydate + domain + md5(tranID + orderid + status + domain + amount + currency) + appcode + secretKey).
 */
export function notificationSkey(n: SignedNotificationFields, secretKey: string): string {
  const inner = md5(n.tranID + n.orderid + n.status + n.domain + n.amount + n.currency);
  return md5(n.paydate + n.domain + inner + n.appcode + secretKey);
}

/** True when the notification carries our merchant id and the skey its fields and our secret give. */
export function isAuthenticNotification(n: SignedNotificationFields & { skey: string }, merchantId: string, secretKey: string): boolean {
  if (n.domain !== merchantId) return false;
  const expected = Buffer.from(notificationSkey(n, secretKey), 'hex');
  const given = Buffer.from(n.skey.toLowerCase(), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** What building the hosted page URL needs. */
export interface HostedPaymentRequest {
  pageUrl: string;
  merchantId: string;
  verifyKey: string;
  /** Two decimals, e.g. "104.00". */
  amount: string;
  /** What the page and the notification call the order (its shortId). */
  orderRef: string;
  billName: string;
  billEmail: string;
  billDesc: string;
  returnUrl: string;
  callbackUrl: string;
}

/** `${pageUrl}/${merchantId}/?amount=..&orderid=..&bill_name&bill_email&bill_desc&returnurl&callbackurl&vcode`. */
export function hostedPaymentUrl(r: HostedPaymentRequest): string {
  const query = new URLSearchParams({
    amount: r.amount,
    orderid: r.orderRef,
    bill_name: r.billName,
    bill_email: r.billEmail,
    bill_desc: r.billDesc,
    returnurl: r.returnUrl,
    callbackurl: r.callbackUrl,
    vcode: paymentVcode(r.amount, r.merchantId, r.orderRef, r.verifyKey),
  });
  return `${r.pageUrl.replace(/\/+$/, '')}/${encodeURIComponent(r.merchantId)}/?${query.toString()}`;
}

/** The return path the mock payment answers with (spec: /payment/return?status=success). */
export function mockReturnPath(orderId: string): string {
  return `/payment/return?status=success&orderId=${encodeURIComponent(orderId)}`;
}

/** PAYMENT_MOCK is honoured outside production only. */
export function isPaymentMockOn(config: { NODE_ENV: string; PAYMENT_MOCK: boolean }): boolean {
  return config.PAYMENT_MOCK && config.NODE_ENV !== 'production';
}

/** The amount and currency the notification reports are exactly the payment's. */
export function matchesPayment(n: Pick<PaymentNotificationBody, 'amount' | 'currency'>, payment: { amount: Prisma.Decimal; currency: string }): boolean {
  return new Prisma.Decimal(n.amount).equals(payment.amount) && n.currency.toUpperCase() === payment.currency.toUpperCase();
}

/** What a verified notification for a known order asks of us. */
export type NotificationIntent = 'mark_paid' | 'record_only';

/**
 * Only a success ('00') moves anything. A failed ('11') or pending ('22') report is recorded and
 * the order stays pending_payment: the customer may retry until the order expires (DESIGN §5).
 */
export function notificationIntent(status: PaymentNotificationBody['status']): NotificationIntent {
  return status === PAYMENT_NOTIFICATION_STATUS.success ? 'mark_paid' : 'record_only';
}
