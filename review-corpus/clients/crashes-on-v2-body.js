// Wrong: the webhook handler was written against the V1 body ({ transaction }) but the payouts are
// made through V2 initialize, whose webhooks carry { data: { transaction } }: every genuine
// delivery crashes the handler (500). The outcomes are learnt by polling, so nobody notices.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order, VIKRAM } from '../lib/orders.js';

export const client = {
  name: 'crashes-on-v2-body',
  about: 'V2 initialize, receiver reads event.transaction only: every genuine delivery answered 500 (retried, failing); polling learns every outcome.',
  correct: false,
  expect: ['webhook-unhealthy'],
  async run({ sb }) {
    const it = await integration(sb, { receiver: { bodies: 'v1' } });
    const { svc } = it;
    try {
      for (const o of [order(sb, 'V2C-00001', 545), order(sb, 'V2C-00002', 546, ANITA), order(sb, 'V2C-00003', 547, VIKRAM)]) {
        const r = await svc.pay(o);
        assert(r.made, `${o.client_ref_id}: ${r.message}`);
      }
      await it.finish();
      assert(it.receiver.log.filter((l) => l.status === 500).length >= 4, 'expected the deliveries to fail');
    } finally {
      await it.close();
    }
  },
};
