import { z } from 'zod';
import { roleSchema } from '../events';

export const passwordSchema = z.string().min(8, 'password must be at least 8 characters').max(128);
const email = z
  .email()
  .max(254)
  .transform((v) => v.trim().toLowerCase());

export const signUpBody = z
  .object({
    email,
    password: passwordSchema,
    fullName: z.string().trim().min(1).max(200),
    phone: z.string().trim().min(3).max(40).optional(),
  })
  .meta({ id: 'SignUpRequest' });

export const signInBody = z
  .object({ email, password: z.string().min(1).max(128) })
  .meta({ id: 'SignInRequest' });

export const sessionUser = z
  .object({
    id: z.uuid(),
    email: z.string(),
    fullName: z.string(),
    role: roleSchema,
    mustChangePassword: z.boolean(),
  })
  .meta({ id: 'SessionUser' });
export type SessionUser = z.infer<typeof sessionUser>;

export const sessionResponse = z.object({ user: sessionUser }).meta({ id: 'SessionResponse' });

export const updateProfileBody = z
  .object({ fullName: z.string().trim().min(1).max(200) })
  .meta({ id: 'UpdateProfileRequest' });
