// The merchant's test-suite wiring: the test clock, the API client, the payout service and (unless
// told otherwise) our webhook receiver registered with the sandbox, all for the demo merchant.
import { sandboxApi } from './api.js';
import { testClock } from './clock.js';
import { debugLog } from './debug.js';
import { PayoutService } from './payouts.js';
import { startReceiver } from './receiver.js';
import { setWebhook } from './sandbox.js';

/**
 * @param {object} sb the started sandbox
 * @param {{ webhooks?: boolean, receiver?: object, webhookVersion?: 'v1'|'v2', apiVersion?: 'v1'|'v2', timeoutMs?: number, clock?: object }} [o]
 */
export async function integration(sb, { webhooks = true, receiver = {}, webhookVersion, apiVersion = 'v2', timeoutMs = 30_000, clock = testClock(sb) } = {}) {
  const api = sandboxApi(sb, clock, { version: apiVersion, timeoutMs });
  const svc = new PayoutService({ api, clock, log: debugLog });
  let rec = null;
  if (webhooks) {
    rec = await startReceiver({
      secret: sb.merchant.apiSecret,
      onTransaction: (t, { deliveryId }) => {
        const taken = svc.book.apply(t, `webhook ${deliveryId}`);
        debugLog(`webhook ${deliveryId} ${t.client_ref_id} ${t.status}${taken ? '' : ' (not newer: kept what we knew)'}`);
      },
      ...receiver,
    });
    await setWebhook(sb, rec.url, webhookVersion);
  }
  return {
    clock,
    api,
    svc,
    book: svc.book,
    receiver: rec,
    /** Follows every payout we know was made to its final status, lets the day run on, reconciles. */
    async finish({ dayMs = 3 * 60 * 60_000 } = {}) {
      for (const e of svc.book.entries()) if (e.refId !== null) await svc.untilFinal(e.clientRefId);
      await clock.sleep(dayMs);
      await svc.reconcile();
    },
    close: async () => {
      await rec?.close();
    },
  };
}
