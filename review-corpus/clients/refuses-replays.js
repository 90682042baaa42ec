// A correct integration whose receiver is stricter than the docs' example: beside the signature
// and the 300 s timestamp, it remembers every attempt it accepted (delivery id, X-Sandbox-Attempt,
// signature header) and refuses (401) the exact same attempt sent again — a replay — even when its
// delivery id was handled before. A duplicate (same delivery id, a new attempt) is acknowledged: the
// probe's duplicate-delivery check shows it (chaos duplicate is left out: see the note below).
//
// Note: a chaos duplicate sent within the same real second as its original, with the same attempt
// number, would be byte for byte a replay (the timestamp has whole seconds), which no receiver can
// tell apart; docs/webhooks.md says a duplicate is "signed afresh with a new timestamp".
import { chaosScenario } from '../lib/chaos.js';
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';
import { probe } from '../lib/sandbox.js';

export const client = {
  name: 'refuses-replays',
  about:
    'Receiver answers 401 to any replayed request (an attempt it received before, byte for byte) and to any stale timestamp, even for a delivery id it handled; 2xx to a duplicate (a new attempt of a delivery id it handled).',
  correct: true,
  expect: [],
  options: { scenario: chaosScenario('refuses-replays', { webhooks: { chaos: { replay: 0.5 } } }) },
  async run({ sb }) {
    const it = await integration(sb, { receiver: { refuseReplays: true } });
    const { svc } = it;
    try {
      const probed = await probe(sb);
      assert(probed.ok, `probe: ${JSON.stringify(probed.checks)}`);
      for (const o of [
        order(sb, 'RR-ONE', 410),
        order(sb, 'RR-UNK', 2002.03),
        order(sb, 'RR-REV', 2002.05),
        order(sb, 'CHXRPL-RR', 412, ANITA),
        order(sb, 'CHXSTL-RR', 413, ANITA),
        order(sb, 'CHXFRG-RR', 414, ANITA),
        order(sb, 'CHXORD-RR', 415, ANITA),
      ]) {
        const r = await svc.pay(o);
        assert(r.made, `${o.client_ref_id}: ${r.message}`);
      }
      await it.finish();
      assert(
        it.receiver.log.some((l) => l.reason === 'replayed request'),
        'no replay was refused',
      );
    } finally {
      await it.close();
    }
  },
};
