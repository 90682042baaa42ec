// Wrong: a 500 from initialize is taken as "not paid", and the payout is sent again under a new
// client_ref_id. The 500 came after the payout was made: the payee is paid twice.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { naivePayOrder } from '../lib/naive.js';
import { order } from '../lib/orders.js';

export const client = {
  name: 'retry-new-ref-after-500',
  about:
    'Retries a 500 on initialize (a fault rule error_500_after: the payout was made) under a new client_ref_id; careful otherwise (polls, verified receiver).',
  correct: false,
  expect: ['double-payout-after-timeout'],
  options: {
    scenario: {
      extends: 'default',
      name: 'init-500-after-once',
      faults: [{ name: 'init-500-after', operation: 'initializePayout', match: { client_ref_id: 'VEND-*' }, effect: 'error_500_after', times: 1 }],
    },
  },
  async run({ sb }) {
    const it = await integration(sb);
    try {
      const r = await naivePayOrder(it.api, it.book, order(sb, 'VEND-2026-0042', 4100));
      assert(r.made && r.clientRefId === 'VEND-2026-0042-R2', `expected the retry to be made: ${JSON.stringify(r)}`);
      await it.svc.untilFinal(r.clientRefId);
      await it.finish();
    } finally {
      await it.close();
    }
  },
};
