import { randomUUID } from 'node:crypto';
import { inTransactionHandingOver, type CommittedEvents } from '@pasar/bus';
import { paymentNotificationBody, type PaymentUrlResponse } from '@pasar/contracts';
import { ProblemError, badRequest, conflict, notFound } from '@pasar/service-kit';
import type { Logger } from 'pino';
import type { CheckoutConfig } from '../config';
import type { Order, Payment, Prisma, PrismaClient } from '../generated/prisma/client';
import { markOrderPaid, type MarkPaidResult } from '../lifecycle/order-paid';
import { hostedPaymentUrl, isAuthenticNotification, isPaymentMockOn, matchesPayment, mockReturnPath, notificationIntent } from './rules';
import { now } from '../deps';

/** What the payment use cases need. */
export interface PaymentDeps {
  prisma: PrismaClient;
  config: Pick<
    CheckoutConfig,
    | 'NODE_ENV'
    | 'PAYMENT_MERCHANT_ID'
    | 'PAYMENT_VERIFY_KEY'
    | 'PAYMENT_SECRET_KEY'
    | 'PAYMENT_PAGE_URL'
    | 'PAYMENT_MOCK'
    | 'PAYMENT_RETURN_URL'
    | 'PAYMENT_CALLBACK_URL'
  >;
  log: Logger;
  /** The service's relay: a payment's events are handed to it after the commit (inTransactionHandingOver). */
  relay?: CommittedEvents;
  clock?: () => Date;
}

/** Who starts a payment. */
export interface Payer {
  userId: string;
  email: string;
}

const notPayable = (why: string) => conflict('order_not_payable', why);

/**
 * POST /checkout/payment/initiate/{id} and /retry/{id}: a fresh hosted-page URL for the caller's
 * own unpaid, unexpired order, counting the attempt. With PAYMENT_MOCK outside production the
 * order is marked paid here (the same path as a verified notification) and the return path is
 * answered instead. Another customer's order answers 404; a paid or expired one 409.
 */
export async function startPayment(deps: PaymentDeps, payer: Payer, orderId: string, requestId?: string): Promise<PaymentUrlResponse> {
  const { prisma, config } = deps;
  const at = now(deps);
  const order = await prisma.order.findFirst({ where: { id: orderId, customerId: payer.userId }, include: { payment: true } });
  if (!order || !order.payment) throw notFound('order');
  if (order.status !== 'pending_payment') throw notPayable(`the order is ${order.status}`);
  if (order.expiresAt <= at) throw notPayable('the order expired before it was paid');

  if (isPaymentMockOn(config)) {
    await inTransactionHandingOver(prisma, deps.relay, async (tx) => {
      await tx.payment.update({ where: { orderId }, data: { attempts: { increment: 1 } } });
      const result = await markOrderPaid(tx, orderId, { transactionId: `mock-${randomUUID()}`, paidAt: at, requestId }, deps.log);
      if (result.outcome === 'not_payable') throw notPayable(`the order is ${result.status}`);
    });
    return { paymentUrl: mockReturnPath(orderId) };
  }

  const counted = await prisma.payment.updateMany({ where: { orderId, status: 'pending' }, data: { attempts: { increment: 1 } } });
  if (counted.count === 0) throw notPayable('the order is no longer awaiting payment');
  return { paymentUrl: await paymentPageUrl(deps, order, order.payment, payer) };
}

async function paymentPageUrl({ prisma, config }: PaymentDeps, order: Order, payment: Payment, payer: Payer): Promise<string> {
  const customer = await prisma.userReplica.findUnique({ where: { userId: payer.userId } });
  return hostedPaymentUrl({
    pageUrl: config.PAYMENT_PAGE_URL,
    merchantId: config.PAYMENT_MERCHANT_ID,
    verifyKey: config.PAYMENT_VERIFY_KEY,
    amount: payment.amount.toFixed(2),
    orderRef: order.shortId,
    billName: customer?.fullName || order.shipFullName,
    billEmail: customer?.email ?? payer.email,
    billDesc: `Pasar order ${order.shortId}`,
    returnUrl: config.PAYMENT_RETURN_URL,
    callbackUrl: config.PAYMENT_CALLBACK_URL,
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The order a notification names: by shortId (what initiate sends), or by id. */
async function orderNamedBy(prisma: PrismaClient, orderRef: string): Promise<(Order & { payment: Payment | null }) | null> {
  const byShortId = await prisma.order.findUnique({ where: { shortId: orderRef }, include: { payment: true } });
  if (byShortId || !UUID.test(orderRef)) return byShortId;
  return prisma.order.findUnique({ where: { id: orderRef }, include: { payment: true } });
}

/** The fields a notification that does not verify keeps, each cut to its size in the contract. */
const KNOWN_FIELDS = { tranID: 100, orderid: 100, status: 2, domain: 100, amount: 13, currency: 10, paydate: 40, appcode: 100, skey: 32 } as const;

const textField = (payload: Readonly<Record<string, unknown>>, key: string, max: number) => {
  const value = payload[key];
  return typeof value === 'string' || typeof value === 'number' ? String(value).slice(0, max) : '';
};

/**
 * The audit row's payload: a verified notification as it arrived (its size is bounded by the
 * route's body limit); of anything else only the known fields, bounded, so that unsigned calls
 * from anyone cannot fill the table with what they choose.
 */
function recordedPayload(body: unknown, verified: boolean): Prisma.InputJsonObject {
  const object = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (verified) return object as Prisma.InputJsonObject;
  return Object.fromEntries(Object.entries(KNOWN_FIELDS).map(([key, max]) => [key, textField(object, key, max)]));
}

/**
 * POST /payments/notify: the payment gateway's notification (body at most
 * PAYMENT_NOTIFY_BODY_LIMIT). Every one is recorded in payment_notification before anything else
 * (one that does not verify: its known fields only; old rows are pruned, ./pruning.ts). Then: malformed → 400; bad
 * signature → 400 invalid_signature; unknown order → 404; amount or currency not the payment's →
 * 400 amount_mismatch; failed or pending status → recorded only (the order stays payable until it
 * expires); success → `markOrderPaid` (a replay of the same transaction changes nothing); success
 * for an expired order → 409 order_expired, nothing changes (logged: the money is to be refunded).
 * A success for an order past expires_at that the sweep has not expired yet is taken: the order
 * still holds its stock, voucher and points, and the customer has paid.
 * Resolves when the notification is acknowledged (the route answers 200 `OK`).
 */
export async function receivePaymentNotification(deps: PaymentDeps, body: unknown, requestId?: string): Promise<void> {
  const { prisma, config, log } = deps;
  const parsed = paymentNotificationBody.safeParse(body);
  const notification = parsed.success ? parsed.data : undefined;
  const verified = notification ? isAuthenticNotification(notification, config.PAYMENT_MERCHANT_ID, config.PAYMENT_SECRET_KEY) : false;
  const order = notification ? await orderNamedBy(prisma, notification.orderid) : null;
  const payload = recordedPayload(body, verified);
  await prisma.paymentNotification.create({
    data: { orderId: order?.id ?? null, transactionId: textField(payload, 'tranID', 100), status: textField(payload, 'status', 10), verified, payload },
  });

  if (!parsed.success) throw parsed.error;
  if (!notification || !verified) throw badRequest('invalid_signature', 'the notification signature does not verify');
  if (!order || !order.payment) throw notFound('order');
  if (!matchesPayment(notification, order.payment)) throw badRequest('amount_mismatch', 'the amount or currency is not the order payment');
  if (notificationIntent(notification.status) === 'record_only') {
    log.info({ orderId: order.id, tranID: notification.tranID, status: notification.status }, 'payment not completed; the order stays payable until it expires');
    return;
  }

  const paidAt = now(deps);
  const result = await inTransactionHandingOver(prisma, deps.relay, (tx) => markOrderPaid(tx, order.id, { transactionId: notification.tranID, paidAt, requestId }, log));
  const refusal = refusalOf(result);
  if (refusal) {
    log.warn({ orderId: order.id, tranID: notification.tranID, outcome: result }, 'payment received for an order that takes none; refund it');
    throw refusal;
  }
}

function refusalOf(result: MarkPaidResult): ProblemError | undefined {
  if (result.outcome === 'paid' || (result.outcome === 'already_paid' && result.sameTransaction)) return undefined;
  if (result.outcome === 'already_paid') return conflict('order_already_paid', 'the order was paid by another transaction');
  if (result.status === 'expired') return conflict('order_expired', 'the order expired before the payment arrived');
  return conflict('order_not_payable', `the order is ${result.status}`);
}
