// Wrong: the handler inserts each delivery into a table keyed by delivery id and lets the unique
// key's error through as 409 Conflict. A delivery sent again (a duplicate, a redelivery) is
// answered 409 forever, and the provider keeps retrying it.
import { chaosScenario } from '../lib/chaos.js';
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';
import { probe } from '../lib/sandbox.js';

export const client = {
  name: 'duplicate-conflict',
  about:
    'Receiver answers 409 to a delivery id it already handled (chaos duplicate, the probe duplicate-delivery); signature, timestamp and polling are right.',
  correct: false,
  expect: ['webhook-duplicate-failed'],
  options: { scenario: chaosScenario('duplicate-webhooks') },
  async run({ sb }) {
    const it = await integration(sb, { receiver: { onSeen: 'conflict' } });
    const { svc } = it;
    try {
      const probed = await probe(sb);
      const dup = probed.checks.find((c) => c.check === 'duplicate-delivery');
      assert(dup && !dup.passed && dup.got === '409', `expected the duplicate probe to get 409: ${JSON.stringify(dup)}`);
      for (const o of [order(sb, 'DUPC-00001', 535), order(sb, 'CHXDUP-DC1', 536, ANITA), order(sb, 'CHXDUP-DC2', 537, ANITA)]) {
        const r = await svc.pay(o);
        assert(r.made, `${o.client_ref_id}: ${r.message}`);
      }
      await it.finish();
    } finally {
      await it.close();
    }
  },
};
