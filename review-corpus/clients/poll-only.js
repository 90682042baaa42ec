// A correct integration without a webhook endpoint: every payout is polled, backing off, until it
// is final; Success payouts are checked again later in the day (a reversal can still come).
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';
import { setWebhook } from '../lib/sandbox.js';

export const client = {
  name: 'poll-only',
  about:
    'No webhook_url: polls each payout with back-off until final (a not-found just after initialize is polled again), looks faulted initializes up by client_ref_id, and re-checks Success payouts after the reversal window.',
  correct: true,
  expect: [],
  async run({ sb }) {
    const it = await integration(sb, { webhooks: false });
    const { svc, clock, book } = it;
    await setWebhook(sb, null);
    const orders = [
      order(sb, 'POLL-1', 900),
      order(sb, 'POLL-500', 3003.01),
      order(sb, 'POLL-DROP', 3003.04),
      order(sb, 'POLL-LAG', 2002.08),
      order(sb, 'POLL-2ND', 2002.09),
      order(sb, 'POLL-UNK', 2002.03),
      order(sb, 'POLL-UNKF', 2002.04),
      order(sb, 'POLL-REV', 2002.05, ANITA),
      order(sb, 'POLL-NEW', 2002.06, ANITA),
      order(sb, 'POLL-SLOW', 2002.02, ANITA),
    ];
    for (const o of orders) {
      const r = await svc.pay(o);
      assert(r.made, `${o.client_ref_id}: ${r.message}`);
      await svc.check({ client_ref_id: o.client_ref_id }); // "not found" just after initialize is the lag: polled again later
    }
    for (const o of orders) await svc.untilFinal(o.client_ref_id);
    // a Success can be reversed: check the day's Success payouts again after 1 h and 2 h
    for (let round = 0; round < 2; round++) {
      await clock.sleep(60 * 60_000);
      for (const o of orders) if (book.statusOf(o.client_ref_id) === 'Success') await svc.check({ client_ref_id: o.client_ref_id });
    }
    assert(book.statusOf('POLL-REV') === 'Failed', 'the reversal was not learnt');
    for (const o of orders) assert(book.isFinal(o.client_ref_id), `${o.client_ref_id} not final`);
  },
};
