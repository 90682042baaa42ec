// A correct integration that never polls: every outcome comes from webhooks. After a fault on
// initialize it sends the same client_ref_id again (a duplicate is refused, nothing is paid twice)
// and waits for the webhooks of the payout that exists. Some of its payouts' webhooks come forged,
// stale or replayed on purpose (chaos): it refuses those and learns the outcome from the retries.
import { chaosScenario } from '../lib/chaos.js';
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';

export const client = {
  name: 'webhook-only',
  about:
    'Never calls the status check: retries a faulted initialize under the same client_ref_id, and learns every outcome (Unknown, reversal) from verified, de-duplicated webhooks, refusing the forged, stale and replayed ones chaos sends.',
  correct: true,
  expect: [],
  options: { scenario: chaosScenario('webhook-only', { webhooks: { chaos: { duplicate: 0.5 } } }) },
  async run({ sb }) {
    const it = await integration(sb);
    const { api, clock, book } = it;
    try {
      /** Initialize; after a 5xx or a lost answer, the same request again (same client_ref_id). */
      const pay = async (o) => {
        book.track(o.client_ref_id, o);
        for (let attempt = 1; attempt <= 5; attempt++) {
          const r = await api.initialize(o);
          if (r.kind === 'ok' || r.kind === 'duplicate') {
            // duplicate: an earlier attempt of ours made it; its webhooks will tell
            book.get(o.client_ref_id).refId ??= r.refId ?? 'made';
            return;
          }
          if (r.kind === 'rejected' || r.kind === 'invalid') throw new Error(`${o.client_ref_id}: ${r.message}`);
          await clock.sleep((r.retryAfter ?? 5 * attempt) * 1000);
        }
        throw new Error(`${o.client_ref_id}: provider kept failing`);
      };

      await pay(order(sb, 'WHO-1', 1200));
      await pay(order(sb, 'WHO-500', 3003.01));
      await pay(order(sb, 'WHO-DROP', 3003.04));
      await pay(order(sb, 'WHO-FAIL', 2002.01));
      await pay(order(sb, 'WHO-UNK', 2002.03));
      await pay(order(sb, 'WHO-REV', 2002.05));
      await pay(order(sb, 'WHO-NEW', 2002.06, ANITA));
      await pay(order(sb, 'WHO-LAG', 2002.08, ANITA));
      // webhooks forged, stale or replayed on purpose: refused, and the outcome still learnt
      await pay(order(sb, 'CHXFRG-WHO', 1210));
      await pay(order(sb, 'CHXSTL-WHO', 1211));
      await pay(order(sb, 'CHXRPL-WHO', 1212));

      // the day goes on; the webhooks arrive (the reversal after an hour)
      for (let i = 0; i < 12; i++) await clock.sleep(15 * 60_000);
      for (const e of book.entries()) assert(book.isFinal(e.clientRefId), `${e.clientRefId}: no final status from the webhooks`);
      assert(book.statusOf('WHO-REV') === 'Failed', 'the reversal was not learnt');
    } finally {
      await it.close();
    }
  },
};
