import { z } from 'zod';

const text = (max: number) => z.string().trim().min(1).max(max);

/** Body of POST and PUT /account/addresses (snake_case as the spec shows). */
export const addressBody = z
  .object({
    label: text(50),
    full_name: text(200),
    phone: text(40),
    address_line_1: text(200),
    address_line_2: z.string().trim().max(200).nullish().meta({ description: 'Empty, null or absent: none.' }),
    city: text(100),
    postcode: text(20),
    state: text(100),
    is_default: z
      .boolean()
      .optional()
      .meta({
        description:
          "true: this becomes the caller's default and the previous default is unset in the same transaction. " +
          "Otherwise a new address is the default only when it is the caller's first, and an edit leaves the default where it is.",
      }),
  })
  .strict()
  .meta({ id: 'AddressRequest' });
export type AddressBody = z.infer<typeof addressBody>;

export const customerAddress = z
  .object({
    id: z.uuid(),
    customer_id: z.uuid(),
    label: z.string(),
    full_name: z.string(),
    phone: z.string(),
    address_line_1: z.string(),
    address_line_2: z.string().nullable(),
    city: z.string(),
    postcode: z.string(),
    state: z.string(),
    is_default: z.boolean(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'CustomerAddress' });
export type CustomerAddress = z.infer<typeof customerAddress>;

/** A customer keeps at most this many addresses; one more answers 409 `address_limit`. */
export const MAX_ADDRESSES_PER_CUSTOMER = 20;
