import { RpcRefusal, serveRpc, type Bus } from '@pasar/bus';
import { notifierSendEmail } from '@pasar/contracts';
import { DeliveryFailedError, deliver, type DeliveryDeps } from './deliver';

/**
 * `rpc.notifier.send_email`: sends now and answers `{ok: true}` only once the SMTP server accepted
 * the message (or an earlier delivery of the same messageId did). When the server refuses or
 * cannot be reached within the SMTP timeouts it answers the refusal `smtp_failed`, so the caller
 * can answer 500; the log row says `failed` with the reason.
 */
export function serveSendEmail(bus: Bus, deps: DeliveryDeps): ReturnType<typeof serveRpc> {
  return serveRpc(bus, notifierSendEmail, async (message, ctx) => {
    try {
      const delivered = await deliver({ ...deps, log: deps.log.child({ rpc: notifierSendEmail.subject, requestId: ctx.requestId }) }, message);
      return { messageId: delivered.messageId, status: delivered.status };
    } catch (err) {
      if (err instanceof DeliveryFailedError) throw new RpcRefusal('smtp_failed', err.message);
      throw err;
    }
  });
}
