import {
  addFamilyCartItemBody,
  createFamilyBody,
  familyAddressBody,
  inviteFamilyMemberBody,
  uuidParam,
  type Family as FamilyJson,
  type FamilyCart as FamilyCartJson,
  type FamilyCartItem as FamilyCartItemJson,
  type FamilyMember as FamilyMemberJson,
} from '@pasar/contracts';
import { API_PREFIX, parse, requireRole, sendProblem } from '@pasar/service-kit';
import type { Router } from 'express';
import type { FamilyMember } from '../generated/prisma/client';
import { addFamilyCartItem, getFamilyCart, removeFamilyCartItem, type PricedCart, type PricedCartLine } from './cart';
import { createFamily, getFamily, setFamilyAddress, type FamilyView } from './family';
import { inviteMember, removeMember, type MemberDeps } from './members';
import { familyAddress } from './rules';

/** Family accounts (DESIGN §7): the family, its address and members, and the shared cart. Customers only. */
export function familyRoutes(router: Router, deps: MemberDeps): void {
  router.post('/family', async (req, res) => {
    const { userId, email } = requireRole(req, 'customer');
    const view = await createFamily(deps, { userId, email }, parse(createFamilyBody, req.body));
    res.status(201).location(`${API_PREFIX}/family`).json(toFamilyJson(view));
  });

  router.get('/family', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    res.json(toFamilyJson(await getFamily(deps, userId)));
  });

  router.put('/family/address', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    await setFamilyAddress(deps, userId, parse(familyAddressBody, req.body));
    res.status(204).end();
  });

  router.post('/family/members', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const outcome = await inviteMember(deps, userId, parse(inviteFamilyMemberBody, req.body), req.requestId);
    if (!outcome.ok) {
      res.setHeader('Retry-After', String(outcome.retryAfterS));
      return sendProblem(res, 429, outcome.code, 'this family sent as many invites as it may in 24 hours; try again later');
    }
    res.status(202).json(outcome.sent);
  });

  router.delete('/family/members/:id', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { id } = parse(uuidParam, req.params);
    await removeMember(deps, userId, id);
    res.status(204).end();
  });

  router.get('/family/cart', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    res.json(toFamilyCartJson(await getFamilyCart(deps, userId)));
  });

  router.post('/family/cart/items', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const line = await addFamilyCartItem(deps, userId, parse(addFamilyCartItemBody, req.body));
    res.status(201).location(`${API_PREFIX}/family/cart/items/${line.id}`).json(toFamilyCartItemJson(line));
  });

  router.delete('/family/cart/items/:id', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { id } = parse(uuidParam, req.params);
    await removeFamilyCartItem(deps, userId, id);
    res.status(204).end();
  });
}

export function toFamilyJson({ family, members, isOwner }: FamilyView): FamilyJson {
  return {
    id: family.id,
    name: family.name,
    ownerId: family.ownerId,
    isOwner,
    address: familyAddress(family),
    members: members.map(toFamilyMemberJson),
  };
}

export function toFamilyMemberJson(member: FamilyMember): FamilyMemberJson {
  return {
    id: member.id,
    userId: member.userId,
    email: member.email,
    fullName: member.fullName,
    status: member.status,
    mustChangePassword: member.mustChangePassword,
    invitedAt: member.invitedAt.toISOString(),
    joinedAt: member.joinedAt?.toISOString() ?? null,
  };
}

function toFamilyCartJson(cart: PricedCart): FamilyCartJson {
  return { items: cart.items.map(toFamilyCartItemJson), subtotal: cart.subtotal.toFixed(2) };
}

function toFamilyCartItemJson(line: PricedCartLine): FamilyCartItemJson {
  return {
    id: line.id,
    productId: line.productId,
    variantId: line.variantId,
    productName: line.productName,
    variantName: line.variantName,
    unitPrice: line.unitPrice.toFixed(2),
    quantity: line.quantity,
    lineTotal: line.lineTotal.toFixed(2),
    storeId: line.storeId,
    addedBy: line.addedBy,
  };
}
