// Wrong: the signature check became async (the secret now comes from the secrets store) and the
// call site was not updated: `if (!verifySignature(req))` tests a Promise, which is always truthy,
// so nothing is ever refused for its signature. The timestamp check, synchronous, still works.
import { chaosScenario } from '../lib/chaos.js';
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';
import { probe } from '../lib/sandbox.js';

export const client = {
  name: 'accepts-forged-webhook',
  about:
    'Receiver never awaits its async HMAC check, so forged deliveries (chaos wrong_signature, the probe) are answered 2xx; timestamp, de-duplication and polling are right.',
  correct: false,
  expect: ['webhook-forged-accepted'],
  options: { scenario: chaosScenario('forged-webhooks') },
  async run({ sb }) {
    const it = await integration(sb, { receiver: { awaitSignature: false } });
    const { svc } = it;
    try {
      const probed = await probe(sb);
      const forged = probed.checks.find((c) => c.check === 'forged-signature');
      assert(forged && !forged.passed, `expected the forged probe to be accepted: ${JSON.stringify(forged)}`);
      for (const o of [order(sb, 'AFW-00001', 515), order(sb, 'CHXFRG-AFW', 516, ANITA), order(sb, 'CHXSTL-AFW', 517, ANITA)]) {
        const r = await svc.pay(o);
        assert(r.made, `${o.client_ref_id}: ${r.message}`);
      }
      await it.finish();
      assert(
        it.receiver.log.some((l) => !l.probe && l.deliveryId && l.status === 204 && l.reason === 'handled'),
        'nothing was handled',
      );
    } finally {
      await it.close();
    }
  },
};
