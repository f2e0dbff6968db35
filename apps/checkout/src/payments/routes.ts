import { uuidParam } from '@pasar/contracts';
import { parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import { receivePaymentNotification, startPayment, type PaymentDeps } from './payments';

/** POST /checkout/payment/initiate/{id}, POST /checkout/payment/retry/{id}, POST /payments/notify (public). */
export function paymentRoutes(router: Router, deps: PaymentDeps): void {
  for (const action of ['initiate', 'retry']) {
    router.post(`/checkout/payment/${action}/:id`, async (req, res) => {
      const { userId, email } = requireRole(req, 'customer');
      const { id } = parse(uuidParam, req.params);
      res.json(await startPayment(deps, { userId, email }, id, req.requestId));
    });
  }

  // The payment gateway posts form fields or JSON and expects a plain acknowledgement.
  router.post('/payments/notify', async (req, res) => {
    await receivePaymentNotification(deps, req.body, req.requestId);
    res.type('text/plain').send('OK');
  });
}
