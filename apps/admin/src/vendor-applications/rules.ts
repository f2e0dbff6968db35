import { createHash, randomInt } from 'node:crypto';
import type { VendorApplicationStatus } from '@pasar/contracts';
import type { Refusal } from '@pasar/service-kit';

/** Approve and reject act on pending applications only (DESIGN §5); otherwise 409. */
export function reviewable(status: VendorApplicationStatus): { ok: true } | Refusal<'not_pending'> {
  return status === 'pending' ? { ok: true } : { ok: false, code: 'not_pending', detail: `the application is ${status}` };
}

/** Resend-credentials is for approved applications only (spec). */
export function credentialsResendable(status: VendorApplicationStatus): { ok: true } | Refusal<'not_approved'> {
  return status === 'approved' ? { ok: true } : { ok: false, code: 'not_approved', detail: `the application is ${status}, not approved` };
}

/** Letters and digits a person reads back without confusing them (no 0/O, 1/l/I). */
export const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
export const GENERATED_PASSWORD_LENGTH = 16;

/** The vendor's generated password: 16 characters (spec), uniformly drawn with a CSPRNG. */
export function generatePassword(pick: (size: number) => number = randomInt): string {
  let password = '';
  for (let i = 0; i < GENERATED_PASSWORD_LENGTH; i += 1) password += PASSWORD_ALPHABET[pick(PASSWORD_ALPHABET.length)];
  return password;
}

/** The idempotency key of the approval's account creation: one account per application. */
export const accountKeyOf = (applicationId: string): string => `vendor-application:${applicationId}`;

/** A stable UUID derived from a name (the approval's credentials e-mail id: the same approval e-mails once). */
export function derivedUuid(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const approvalEmailIdOf = (applicationId: string): string => derivedUuid(`vendor-application-credentials:${applicationId}`);

/** The sign-in link of the credentials e-mail. */
export const signInUrlOf = (appUrl: string): string => `${appUrl.replace(/\/+$/, '')}/sign-in`;
