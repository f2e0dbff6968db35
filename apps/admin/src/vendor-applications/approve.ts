import { randomUUID } from 'node:crypto';
import { callRpc, RpcFailedError, RpcUnavailableError } from '@pasar/bus';
import { identityCreateUser, identityResetPassword, notifierSendEmail, vendorCreateStore } from '@pasar/contracts';
import type { Refusal } from '@pasar/service-kit';
import { now, type AdminDeps } from '../deps';
import type { VendorApplication } from '../generated/prisma/client';
import { accountKeyOf, approvalEmailIdOf, credentialsResendable, generatePassword, reviewable, signInUrlOf } from './rules';

/** How long the synchronous credentials e-mail may take before it counts as not delivered. */
const EMAIL_RPC_TIMEOUT_MS = 8_000;
/** An approval's lease: longer than its steps can take (three 3 s rpc calls and the e-mail). */
export const APPROVAL_LEASE_MS = 60_000;

type Deps = Pick<AdminDeps, 'prisma' | 'bus' | 'config' | 'log' | 'clock'>;

export type ApprovalRefusal = Refusal<
  'not_found' | 'not_pending' | 'approval_in_progress' | 'not_approved' | 'email_taken' | 'store_refused' | 'credentials_email_failed'
>;
export type ApproveResult = { ok: true; application: VendorApplication } | ApprovalRefusal;

/**
 * The approval saga (DESIGN §6, STYLE §1), forward only; each step is idempotent by application id
 * and stores its output on the application, so an approval that stopped half-way (still pending)
 * completes on the next approve without a second account or store:
 *   create_user  rpc.identity.create_user (role vendor, 16-character password, key vendor-application:<id>) → user_id;
 *                an existing account of the e-mail (created=false, whatever its role) → 409 email_taken
 *   create_store rpc.vendor.create_store (by application id: TIN, MSIC, SST, bank data, consent audit) → store_id
 *   approve      conditional update from pending
 *   send_email   rpc.notifier.send_email (credentials; message id derived from the application)
 * The run leases the application first (approving_until), so a second approve or a reject meanwhile
 * answers 409 instead of landing between the steps; the lease ends with the run (or expires when
 * the process died). When a retry finds user_id recorded (its password is gone), the password is
 * reset before the e-mail. An undeliverable e-mail is `credentials_email_failed` (the
 * route answers 500); the application stays approved and resend-credentials follows.
 */
export async function approveApplication(deps: Deps, id: string): Promise<ApproveResult> {
  const at = now(deps);
  const leaseEnd = new Date(at.getTime() + APPROVAL_LEASE_MS);
  const { count } = await deps.prisma.vendorApplication.updateMany({
    where: { id, status: 'pending', OR: [{ approvingUntil: null }, { approvingUntil: { lt: at } }] },
    data: { approvingUntil: leaseEnd },
  });
  if (count === 0) {
    const application = await deps.prisma.vendorApplication.findUnique({ where: { id } });
    if (!application) return { ok: false, code: 'not_found', detail: 'vendor application not found' };
    const pending = reviewable(application.status);
    return pending.ok ? { ok: false, code: 'approval_in_progress', detail: 'an approval of this application is running' } : pending;
  }
  try {
    return await approveSaga(deps, id);
  } finally {
    await deps.prisma.vendorApplication.updateMany({ where: { id, approvingUntil: leaseEnd }, data: { approvingUntil: null } });
  }
}

async function approveSaga(deps: Deps, id: string): Promise<ApproveResult> {
  let application = await deps.prisma.vendorApplication.findUniqueOrThrow({ where: { id } });

  // step 1: create_user
  let password: string | null = null;
  if (!application.userId) {
    const generated = generatePassword();
    const { user, created } = await callRpc(deps.bus, identityCreateUser, {
      email: application.email,
      fullName: application.fullName,
      phone: application.phone,
      role: 'vendor',
      password: generated,
      mustChangePassword: true,
      idempotencyKey: accountKeyOf(id),
    });
    // identity answers created=true only for a new account or a repeat of this key's own creation;
    // an account that existed before (any role, a store-less vendor too) is someone's: never take it over
    if (!created) {
      return { ok: false, code: 'email_taken', detail: `${application.email} already has a ${user.role} account; the vendor account needs its own e-mail` };
    }
    password = generated;
    application = await recordStep(deps, id, { userId: user.id });
  }
  const userId = application.userId as string;

  // step 2: create_store
  if (!application.storeId) {
    let storeId: string;
    try {
      ({ storeId } = await callRpc(deps.bus, vendorCreateStore, {
        applicationId: id,
        ownerUserId: userId,
        name: application.storeName,
        description: application.description,
        // the application's logo and banner are the applicant's links, not files in our storage (the store keeps storage paths)
        logoPath: null,
        bannerPath: null,
        tin: application.tin,
        msicCode: application.msicCode,
        sstRegNo: application.sstRegNo,
        bankName: application.bankName,
        bankAccountNumber: application.bankAccountNumber,
        bankAccountName: application.bankAccountName,
        consent: {
          accepted: application.intermediaryConsentAccepted,
          acceptedAt: application.intermediaryConsentAt?.toISOString() ?? null,
          tosVersion: application.intermediaryConsentTosVersion,
        },
      }));
    } catch (err) {
      if (err instanceof RpcFailedError) return { ok: false, code: 'store_refused', detail: `the store was not created: ${err.code}: ${err.message}` };
      throw err;
    }
    application = await recordStep(deps, id, { storeId });
  }

  // step 3: approve (from pending only)
  const { count } = await deps.prisma.vendorApplication.updateMany({
    where: { id, status: 'pending' },
    data: { status: 'approved', reviewedAt: now(deps), rejectionNote: null },
  });
  application = await deps.prisma.vendorApplication.findUniqueOrThrow({ where: { id } });
  if (count === 0) return { ok: false, code: 'not_pending', detail: `the application is ${application.status}` };

  // step 4: send_email (reset first when this run does not know the password)
  if (password === null) password = await resetPassword(deps, userId);
  const sent = await sendCredentials(deps, application, password, approvalEmailIdOf(id));
  return sent.ok ? { ok: true, application } : sent;
}

/**
 * Resend-credentials (approved only): a new 16-character password, reset through identity (the
 * old one stops working), then the credentials e-mail; undeliverable → `credentials_email_failed`
 * after the password was reset (spec).
 */
export async function resendCredentials(deps: Deps, id: string): Promise<{ ok: true } | ApprovalRefusal> {
  const application = await deps.prisma.vendorApplication.findUnique({ where: { id } });
  if (!application) return { ok: false, code: 'not_found', detail: 'vendor application not found' };
  const approved = credentialsResendable(application.status);
  if (!approved.ok) return approved;
  if (!application.userId) return { ok: false, code: 'not_approved', detail: 'the application has no vendor account' };
  const password = await resetPassword(deps, application.userId);
  return sendCredentials(deps, application, password, randomUUID());
}

async function recordStep(deps: Pick<Deps, 'prisma'>, id: string, output: { userId: string } | { storeId: string }): Promise<VendorApplication> {
  return deps.prisma.vendorApplication.update({ where: { id }, data: output });
}

async function resetPassword(deps: Deps, userId: string): Promise<string> {
  const password = generatePassword();
  await callRpc(deps.bus, identityResetPassword, { userId, password, mustChangePassword: true });
  return password;
}

/** The password travels only in this synchronous call, never through the outbox (DESIGN §7). */
async function sendCredentials(
  deps: Deps,
  application: VendorApplication,
  password: string,
  messageId: string,
): Promise<{ ok: true } | Refusal<'credentials_email_failed'>> {
  try {
    await callRpc(
      deps.bus,
      notifierSendEmail,
      {
        messageId,
        to: application.email,
        template: 'credentials',
        vars: { fullName: application.fullName, email: application.email, password, signInUrl: signInUrlOf(deps.config.APP_URL) },
      },
      // within the gateway's upstream timeout (10 s), so the administrator gets this service's answer
      { timeoutMs: EMAIL_RPC_TIMEOUT_MS },
    );
    return { ok: true };
  } catch (err) {
    // refused by the SMTP server, or the notifier is not answering: either way the e-mail is not out
    if (!(err instanceof RpcFailedError || err instanceof RpcUnavailableError)) throw err;
    deps.log.warn({ applicationId: application.id, reason: err.message }, 'credentials e-mail not delivered');
    return { ok: false, code: 'credentials_email_failed', detail: 'the credentials e-mail could not be delivered; resend the credentials' };
  }
}
