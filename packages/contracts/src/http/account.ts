import { z } from 'zod';
import { passwordSchema } from './auth';
import { familyAddressBody } from './family';

/**
 * Account setup and passwords (served by the gateway; SPEC "Account setup", DESIGN §6/§7) and the
 * customer's TIN (served by checkout; SPEC "Customer account").
 */

const text = (max: number) => z.string().trim().min(1).max(max);

/** A TIN as the caller types it; packages/tax validates and normalises it (400 `invalid_tin`). */
const tinInput = z.string().max(50);

/** The new password must be 8 to 128 characters and differ from the current one. */
function differentPasswords(body: { currentPassword: string; newPassword: string }, ctx: z.RefinementCtx): void {
  if (body.currentPassword === body.newPassword) {
    ctx.addIssue({ code: 'custom', path: ['newPassword'], message: 'the new password must differ from the current one' });
  }
}

/** Body of POST /account/change-password. */
export const changePasswordBody = z
  .object({ currentPassword: z.string().min(1).max(128), newPassword: passwordSchema })
  .strict()
  .superRefine(differentPasswords)
  .meta({ id: 'ChangePasswordRequest' });
export type ChangePasswordBody = z.infer<typeof changePasswordBody>;

/** The address sent with account setup: it becomes the user's default delivery address (same fields as a family address). */
export const accountSetupAddress = familyAddressBody.meta({ id: 'AccountSetupAddress' });

/** Body of POST /account/setup: password, name, phone, the default address and optionally the billing TIN. */
export const accountSetupBody = z
  .object({
    currentPassword: z.string().min(1).max(128),
    newPassword: passwordSchema,
    fullName: text(200),
    phone: text(40),
    address: accountSetupAddress,
    billing: z
      .object({ tin: tinInput.nullish().meta({ description: 'Empty, null or absent: none. Otherwise a TIN (normalised).' }) })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine(differentPasswords)
  .meta({ id: 'AccountSetupRequest' });
export type AccountSetupBody = z.infer<typeof accountSetupBody>;

/** Answer of GET /account/must-change-password. */
export const mustChangePasswordResponse = z
  .object({
    mustChangePassword: z.boolean().meta({
      description: 'true while the caller was given a temporary password (family or B2B invite, reset) and has not completed account setup',
    }),
  })
  .meta({ id: 'MustChangePasswordResponse' });

/** Body of PATCH /account/tin: null or "" clears the TIN. */
export const updateTinBody = z
  .object({ tin: tinInput.nullable().meta({ description: 'null or empty clears; otherwise validated and normalised' }) })
  .strict()
  .meta({ id: 'UpdateTinRequest' });
export type UpdateTinBody = z.infer<typeof updateTinBody>;

/** Answer of GET /account/tin. */
export const customerTin = z.object({ tin: z.string().nullable() }).meta({ id: 'CustomerTin' });
export type CustomerTin = z.infer<typeof customerTin>;
