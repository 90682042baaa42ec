// Wrong: the payout is checked once (Pending) and the support desk, on the phone with the bank,
// marks it done in the sandbox the same minute; the merchant's retry batch (another worker, which
// only knows the "Pending" it was handed a moment before) pays the order again under a new
// client_ref_id. It never read a
// stale status: the status was true when it was read, and changed after. Paying again a minute
// after the first payment went through is double-payout-after-success (medium), not the stale
// read of a reordered webhook.
import { assert, debugLog } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { order, VIKRAM } from '../lib/orders.js';
import { PayoutService } from '../lib/payouts.js';

export const client = {
  name: 'pays-again-after-forced-success',
  about: 'Reads Pending, the payout is forced to Success at the same sandbox instant, then pays again under a new client_ref_id; no webhooks.',
  correct: false,
  expect: ['double-payout-after-success'],
  async run({ sb }) {
    const it = await integration(sb, { webhooks: false });
    const { svc } = it;
    const first = order(sb, 'BATCH-0042-A', 1875, VIKRAM);
    const r = await svc.pay(first);
    assert(r.made, r.message);
    const seen = await svc.check({ client_ref_id: first.client_ref_id });
    assert(seen.transaction?.status === 'Pending', `expected Pending, got ${JSON.stringify(seen)}`);
    const forced = await fetch(`${sb.controlUrl}/payouts/${r.refId}/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'Success' }),
    });
    assert(forced.status === 200, `forcing Success answered ${forced.status}`);
    const batch = new PayoutService({ api: it.api, clock: it.clock, log: debugLog });
    const again = await batch.pay({ ...first, client_ref_id: 'BATCH-0042-B' });
    assert(again.made, again.message);
    await batch.untilFinal('BATCH-0042-B');
    await it.finish();
  },
};
