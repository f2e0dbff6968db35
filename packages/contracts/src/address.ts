import { z } from 'zod';

/** A delivery address as events and responses carry it (camelCase; snapshots on orders and shipments). */
export const postalAddress = z.object({
  fullName: z.string(),
  phone: z.string(),
  addressLine1: z.string(),
  addressLine2: z.string().nullable(),
  city: z.string(),
  postcode: z.string(),
  state: z.string(),
});
export type PostalAddress = z.infer<typeof postalAddress>;
