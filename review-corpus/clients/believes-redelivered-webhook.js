// Wrong (the "E case" again, at distinct times): the receiver stores the status of the latest
// webhook to ARRIVE, every arrival applied (no de-duplication). After an incident the provider re-sends a payout's old Pending webhook twenty
// minutes after its Success; the receiver takes it, and the stuck-payout sweeper pays the payee
// again under a new client_ref_id without checking the status first.
import { assert, debugLog } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { order } from '../lib/orders.js';
import { deliveriesOf, redeliver } from '../lib/sandbox.js';

export const client = {
  name: 'believes-redelivered-webhook',
  about:
    'Last webhook to arrive wins: a Pending webhook of 2002.06 redelivered 20 min after its Success is believed; the sweeper re-pays it at 30 min under a new client_ref_id.',
  correct: false,
  expect: ['double-payout-after-stale-status'],
  async run({ sb }) {
    const latest = new Map(); // client_ref_id → status of the latest webhook received (the bug)
    const it = await integration(sb, {
      receiver: {
        onSeen: 'handle', // no de-duplication: every arrival is applied
        onTransaction: (t) => {
          latest.set(t.client_ref_id, t.status);
          debugLog(`webhook ${t.client_ref_id} ${t.status}`);
        },
      },
    });
    const { api, clock } = it;
    try {
      const o = order(sb, 'INV-2026-0311', 2002.06);
      const r = await api.initialize(o);
      assert(r.kind === 'ok', r.message);
      latest.set(o.client_ref_id, r.status);
      await clock.sleep(15_000); // NEW → Pending → Success, a webhook each
      assert(latest.get(o.client_ref_id) === 'Success', `expected Success, got ${latest.get(o.client_ref_id)}`);
      await clock.sleep(20 * 60_000);
      // the provider's incident replay: the old Pending webhook comes again
      const pending = (await deliveriesOf(sb, r.refId)).find((d) => d.event_status === 'Pending' && d.kind === 'genuine');
      await redeliver(sb, pending.delivery_id);
      await sb.settleWebhooks();
      await clock.sleep(10 * 60_000);
      // the sweeper: anything not final after 30 min is stuck: issue it again
      const status = latest.get(o.client_ref_id);
      assert(status === 'Pending', `expected the redelivered Pending to be believed, got ${status}`);
      const again = { ...o, client_ref_id: `${o.client_ref_id}-RE` };
      const r2 = await api.initialize(again);
      assert(r2.kind === 'ok', r2.message);
      await clock.sleep(30 * 60_000);
      assert(latest.get(again.client_ref_id) === 'Success', 'the new payout did not succeed');
    } finally {
      await it.close();
    }
  },
};
