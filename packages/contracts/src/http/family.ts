import { z } from 'zod';
import { money, postalAddress } from './common';

/** A family has at most this many current (pending or active) members, the owner included; one more answers 409 `family_full`. */
export const MAX_FAMILY_MEMBERS = 10;
/** The most of one product (and variant) one cart line holds. */
export const MAX_FAMILY_CART_QUANTITY = 999;

const text = (max: number) => z.string().trim().min(1).max(max);

/** Body of POST /family: the caller becomes the owner. */
export const createFamilyBody = z.object({ name: text(200) }).strict().meta({ id: 'CreateFamilyRequest' });
export type CreateFamilyBody = z.infer<typeof createFamilyBody>;

/** Body of PUT /family/address: where family orders are delivered. */
export const familyAddressBody = z
  .object({
    fullName: text(200),
    phone: text(40),
    addressLine1: text(200),
    addressLine2: z.string().trim().max(200).nullish().meta({ description: 'Empty, null or absent: none.' }),
    city: text(100),
    postcode: text(20),
    state: text(100),
  })
  .strict()
  .meta({ id: 'FamilyAddressRequest' });
export type FamilyAddressBody = z.infer<typeof familyAddressBody>;

/** Body of POST /family/members: the person is invited (an account with a temporary password is created when they have none). */
export const inviteFamilyMemberBody = z
  .object({
    email: z.string().trim().toLowerCase().pipe(z.email().max(254)),
    fullName: text(200),
  })
  .strict()
  .meta({ id: 'InviteFamilyMemberRequest' });
export type InviteFamilyMemberBody = z.infer<typeof inviteFamilyMemberBody>;

export const familyMembershipStatus = z.enum(['pending', 'active', 'inactive']);

export const familyMember = z
  .object({
    id: z.uuid(),
    userId: z.uuid(),
    email: z.string(),
    fullName: z.string(),
    status: familyMembershipStatus,
    mustChangePassword: z.boolean(),
    invitedAt: z.iso.datetime(),
    joinedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'FamilyMember' });
export type FamilyMember = z.infer<typeof familyMember>;

export const familyAddress = postalAddress
  .meta({ id: 'FamilyAddress' });
export type FamilyAddress = z.infer<typeof familyAddress>;

export const family = z
  .object({
    id: z.uuid(),
    name: z.string(),
    ownerId: z.uuid(),
    isOwner: z.boolean().meta({ description: 'Whether the caller owns the family.' }),
    address: familyAddress.nullable().meta({ description: 'null until the owner sets it.' }),
    members: z.array(familyMember).meta({ description: 'Current members (pending and active), the owner first, then by invitation time.' }),
  })
  .meta({ id: 'Family' });
export type Family = z.infer<typeof family>;

/** Body of POST /family/cart/items; the same product and variant again adds to the line's quantity. */
export const addFamilyCartItemBody = z
  .object({
    productId: z.uuid(),
    variantId: z.uuid().nullish().meta({ description: 'Required when the product has variants; must be one of them.' }),
    quantity: z.number().int().min(1).max(MAX_FAMILY_CART_QUANTITY),
  })
  .strict()
  .meta({ id: 'AddFamilyCartItemRequest' });
export type AddFamilyCartItemBody = z.infer<typeof addFamilyCartItemBody>;

export const familyCartItem = z
  .object({
    id: z.uuid(),
    productId: z.uuid(),
    variantId: z.uuid().nullable(),
    productName: z.string(),
    variantName: z.string().nullable(),
    unitPrice: money.meta({ description: "The variant's price override, else the product's base price." }),
    quantity: z.number().int(),
    lineTotal: money,
    storeId: z.uuid(),
    addedBy: z.uuid(),
  })
  .meta({ id: 'FamilyCartItem' });
export type FamilyCartItem = z.infer<typeof familyCartItem>;

export const familyCart = z.object({ items: z.array(familyCartItem), subtotal: money }).meta({ id: 'FamilyCart' });
export type FamilyCart = z.infer<typeof familyCart>;
