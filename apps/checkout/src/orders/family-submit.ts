import type { FamilySubmitBody } from '@pasar/contracts';
import { badRequest, notFound } from '@pasar/service-kit';
import { familyCartLines } from '../family/cart';
import { familyOfMember } from '../family/membership';
import { familyAddress } from '../family/rules';
import type { Order } from '../generated/prisma/client';
import { priceOrder, writeOrder } from './place-order';
import { familyOrderNotes } from './rules';
import { idempotencyOf, placeOnce, type OrderDeps, type SubmitOptions } from './submit';
import { systemClock } from '../deps';

/**
 * POST /checkout/family/submit by an active member of a family (404 none, 403
 * `membership_pending`): the whole shared cart or the listed items (404 for an id not in it),
 * to the family's address (400 `family_address_missing`), one sub-order per store, with the
 * owner's profile TIN as buyer TIN and the cart item ids in admin_notes for the payment
 * notification to remove. Same transaction as every submit (priceOrder, then writeOrder).
 */
export function submitFamilyOrder(deps: OrderDeps, userId: string, body: FamilySubmitBody, options: SubmitOptions = {}): Promise<Order> {
  const { prisma, config, clock = systemClock } = deps;
  const idempotency = idempotencyOf('family-submit', options.idempotencyKey, body);
  return placeOnce(prisma, userId, idempotency, async () => {
    const { family } = await familyOfMember(prisma, userId);
    const shippingAddress = familyAddress(family);
    if (!shippingAddress) throw badRequest('family_address_missing', 'the family owner has not set the delivery address yet');
    const requested = body.cartItemIds ? [...new Set(body.cartItemIds)] : undefined;
    const lines = await familyCartLines(prisma, family.id, requested);
    if (requested && lines.length !== requested.length) throw notFound('cart item');
    if (lines.length === 0) throw badRequest('cart_empty', 'the family cart is empty');
    const owner = await prisma.customerProfile.findUnique({ where: { customerId: family.ownerId }, select: { tin: true } });
    const priced = await priceOrder(prisma, {
      customerId: userId,
      lines,
      shippingAddress,
      shippingMethodIds: body.shippingMethodIds ?? [],
      familyId: family.id,
      buyerTin: owner?.tin ?? null,
      adminNotes: familyOrderNotes(lines.map((line) => line.id)),
      idempotency,
      now: clock(),
      paymentTtlMs: config.ORDER_PAYMENT_TTL,
      requestId: options.requestId,
    });
    return (tx) => writeOrder(tx, priced);
  });
}
