// Wrong: the receiver verifies the HMAC of "<t>." + body, but never looks at how old t is: a
// correctly signed request captured a week ago is accepted as new.
import { chaosScenario } from '../lib/chaos.js';
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';
import { probe } from '../lib/sandbox.js';

export const client = {
  name: 'no-timestamp-check',
  about: 'Receiver verifies the V2 signature but not the timestamp: stale deliveries (chaos stale_timestamp, the probe) are answered 2xx; the rest is careful.',
  correct: false,
  expect: ['webhook-stale-accepted'],
  options: { scenario: chaosScenario('stale-webhooks') },
  async run({ sb }) {
    const it = await integration(sb, { receiver: { checkTimestamp: false } });
    const { svc } = it;
    try {
      const probed = await probe(sb);
      const stale = probed.checks.find((c) => c.check === 'stale-timestamp');
      assert(stale && !stale.passed, `expected the stale probe to be accepted: ${JSON.stringify(stale)}`);
      for (const o of [
        order(sb, 'NTC-00001', 525),
        order(sb, 'CHXSTL-NTC', 526, ANITA),
        order(sb, 'CHXRPL-NTC', 527, ANITA),
        order(sb, 'CHXFRG-NTC', 528, ANITA),
      ]) {
        const r = await svc.pay(o);
        assert(r.made, `${o.client_ref_id}: ${r.message}`);
      }
      await it.finish();
    } finally {
      await it.close();
    }
  },
};
