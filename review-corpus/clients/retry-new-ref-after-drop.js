// Wrong: a dropped connection on initialize is taken as "not paid", and the payout is sent again
// under a new client_ref_id, up to three times. Each dropped request had made its payout (3003.04):
// the payee is paid three times while the merchant believes the payment failed.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { naivePayOrder } from '../lib/naive.js';
import { ANITA, order } from '../lib/orders.js';

export const client = {
  name: 'retry-new-ref-after-drop',
  about:
    'Initialize 3003.04 (connection dropped, payout made) retried under new client_ref_ids, three attempts in all; its receiver then learns all three outcomes.',
  correct: false,
  expect: ['double-payout-after-timeout'],
  async run({ sb }) {
    const it = await integration(sb);
    try {
      const r = await naivePayOrder(it.api, it.book, order(sb, 'CB-31-0009', 3003.04, ANITA, { purpose: 'CASHBACK' }));
      assert(!r.made, `expected every attempt to be dropped: ${JSON.stringify(r)}`);
      await it.clock.sleep(60 * 60_000); // the webhooks of the three payouts arrive
      for (const e of it.book.entries()) assert(it.book.isFinal(e.clientRefId), `${e.clientRefId}: no outcome learnt`);
    } finally {
      await it.close();
    }
  },
};
