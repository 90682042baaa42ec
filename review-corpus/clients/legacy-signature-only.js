// Wrong: the receiver verifies the older X-Sandbox-Signature (an HMAC of the body, as our first
// integration did) and never moved to X-Sandbox-Signature-V2. The old header has no timestamp: a
// correctly signed request sent again later (stale, replayed) is accepted as new.
import { chaosScenario } from '../lib/chaos.js';
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';
import { probe } from '../lib/sandbox.js';

export const client = {
  name: 'legacy-signature-only',
  about:
    'Receiver checks only X-Sandbox-Signature (sha256 of the body, no timestamp): forged refused, stale accepted (chaos stale_timestamp, the probe); de-duplicates; polls.',
  correct: false,
  expect: ['webhook-stale-accepted'],
  options: { scenario: chaosScenario('legacy-signature') },
  async run({ sb }) {
    const it = await integration(sb, { receiver: { scheme: 'legacy' } });
    const { svc } = it;
    try {
      const probed = await probe(sb);
      const byCheck = Object.fromEntries(probed.checks.map((c) => [c.check, c.passed]));
      assert(byCheck['forged-signature'] && !byCheck['stale-timestamp'], `expected forged refused and stale accepted: ${JSON.stringify(probed.checks)}`);
      for (const o of [
        order(sb, 'LSO-00001', 555),
        order(sb, 'CHXSTL-LSO', 556, ANITA),
        order(sb, 'CHXFRG-LSO', 557, ANITA),
        order(sb, 'CHXDUP-LSO', 558, ANITA),
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
