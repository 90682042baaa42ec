import { Router } from 'express';
import { checkoutRecord } from '../contract/records.js';
import { CheckoutError, MESSAGES } from '../errors.js';
import type { Sandbox } from '../sandbox.js';
import { authenticateCheckout } from './auth.js';
import { checkoutSuccess } from './envelopes.js';
import { methodNotAllowed } from './routing.js';

/** The checkout status lookup: `{ status, message, data }`, MerchantId + AccessToken headers. */
export function checkoutRouter(sb: Sandbox): Router {
  const router = Router();
  router
    .route('/api/v1/payment/transaction/:transaction_id/status')
    .get((req, res) => {
      const merchant = authenticateCheckout(sb.repo, req.headers);
      if (!merchant) throw new CheckoutError(401, MESSAGES.checkoutUnauthorized);
      res.locals.merchant = merchant;
      // Another merchant's transaction answers exactly as an unknown one.
      const t = sb.repo.checkoutTransaction(merchant.merchant_id, String(req.params.transaction_id));
      if (!t) throw new CheckoutError(404, MESSAGES.checkoutNotFound);
      res.status(200).json(checkoutSuccess(MESSAGES.checkoutFetched, checkoutRecord(t, merchant)));
    })
    .all(methodNotAllowed);
  return router;
}
