// Wrong only in its endpoint: the webhook receiver is down (every request answered 503 by the
// load balancer in front of it) for the whole run. The payout service itself is careful: it polls
// every payout to its final status with back-off, so no outcome is lost; the probe run by the
// suite fails every check of a receiver that does not answer. Forged and stale requests were not
// *accepted*: nothing but an unhealthy endpoint may be held against it.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { order, RAVI, VIKRAM } from '../lib/orders.js';
import { probe } from '../lib/sandbox.js';

export const client = {
  name: 'receiver-down-polls',
  about: 'Its webhook endpoint answers 503 to everything (down); it runs the probe, and polls every payout to final with back-off.',
  correct: false,
  expect: ['webhook-unhealthy'],
  async run({ sb }) {
    const it = await integration(sb, { receiver: { down: 503 } });
    try {
      for (const [ref, amount, payee] of [
        ['DOWN-000001', 1200, RAVI],
        ['DOWN-000002', 2002.01, VIKRAM],
        ['DOWN-000003', 830, VIKRAM],
        ['DOWN-000004', 445, RAVI],
      ]) {
        const r = await it.svc.pay(order(sb, ref, amount, payee));
        assert(r.made, r.message);
      }
      const result = await probe(sb);
      assert(result.ok === false, 'the probe should fail against a receiver that is down');
      await it.finish();
    } finally {
      await it.close();
    }
  },
};
