import type { Sandbox } from '../../admin/sandbox.js';
import { checkoutSuccess } from '../../contract/envelopes.js';
import { checkoutRecord } from '../../contract/records.js';
import { CheckoutError, MESSAGES } from '../../errors.js';
import type { Call, OperationHandlers } from '../mount.js';
import { sendJson } from '../respond.js';

/** The checkout status lookup: `{ status, message, data }`, MerchantId + AccessToken headers. */
export function checkoutHandlers(sb: Sandbox): OperationHandlers {
  return {
    getCheckoutStatus: {
      handle: ({ res, merchant, input }: Call<{ transaction_id: string }>) => {
        // Another merchant's transaction answers exactly as an unknown one.
        const t = sb.repo.checkoutTransaction(merchant.merchant_id, input.transaction_id);
        if (!t) throw new CheckoutError(404, MESSAGES.checkoutNotFound);
        sb.events.behaviour(merchant.merchant_id, `checkout.status.${t.status}`);
        sendJson(res, 200, JSON.stringify(checkoutSuccess(MESSAGES.checkoutFetched, checkoutRecord(t, merchant))));
      },
    },
  };
}
