// Wrong (the "E case"): the receiver stores the status of the latest webhook to ARRIVE. With
// webhooks reordered, a payout's Pending arrives after its Success and is believed; the sweeper
// that re-issues payouts "stuck in Pending" for half an hour pays the payee again under a new
// client_ref_id, without checking the status first.
import { assert, debugLog } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';

export const client = {
  name: 'trusts-latest-webhook',
  about:
    'Last webhook to arrive wins (chaos reorder: Pending after Success for 2002.06); a stuck-payout sweeper re-pays "Pending" payouts after 30 min under a new client_ref_id.',
  correct: false,
  expect: ['double-payout-after-stale-status'],
  options: { scenario: { extends: 'default', name: 'reordered-webhooks', webhooks: { chaos: { reorder: true } } } },
  async run({ sb }) {
    const latest = new Map(); // client_ref_id → status of the latest webhook received (the bug)
    const it = await integration(sb, {
      receiver: {
        onTransaction: (t) => {
          latest.set(t.client_ref_id, t.status);
          debugLog(`webhook ${t.client_ref_id} ${t.status}`);
          it.book.apply(t, 'webhook'); // (the book is only our test's record of what was told)
        },
      },
    });
    const { api, clock } = it;
    try {
      const orders = [order(sb, 'REF-88001', 2002.06), order(sb, 'REF-88002', 610, ANITA)];
      const ids = new Map(); // order → the client_ref_id of its current payout
      for (const o of orders) {
        const r = await api.initialize(o);
        assert(r.kind === 'ok', `${o.client_ref_id}: ${r.message}`);
        it.book.track(o.client_ref_id, o).refId = r.refId;
        latest.set(o.client_ref_id, r.status);
        ids.set(o, o.client_ref_id);
      }
      await clock.sleep(15_000); // the payouts settle; their webhooks come (reordered)
      await clock.sleep(30 * 60_000);
      // the sweeper: anything not Success or Failed after 30 min is stuck: issue it again
      for (const o of orders) {
        const current = ids.get(o);
        if (latest.get(current) === 'Success' || latest.get(current) === 'Failed') continue;
        const again = { ...o, client_ref_id: `${o.client_ref_id}-RE` };
        const r = await api.initialize(again);
        assert(r.kind === 'ok', `${again.client_ref_id}: ${r.message}`);
        it.book.track(again.client_ref_id, again).refId = r.refId;
        latest.set(again.client_ref_id, r.status);
        ids.set(o, again.client_ref_id);
      }
      assert(ids.get(orders[0]) === 'REF-88001-RE' && ids.get(orders[1]) === 'REF-88002', `the sweeper re-issued ${[...ids.values()]}`);
      await clock.sleep(30 * 60_000);
    } finally {
      await it.close();
    }
  },
};
