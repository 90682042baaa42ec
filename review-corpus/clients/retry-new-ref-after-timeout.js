// Wrong: initialize did not answer within the client's 30 s time-out, so the payout is sent again
// under a new client_ref_id. The held request had made the payout: paid twice.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { naivePayOrder } from '../lib/naive.js';
import { order, VIKRAM } from '../lib/orders.js';
import { untilPayoutExists } from '../lib/sandbox.js';

export const client = {
  name: 'retry-new-ref-after-timeout',
  about: 'Initialize held past its 30 s time-out (a fault rule hold, once); retries under a new client_ref_id; careful otherwise.',
  correct: false,
  expect: ['double-payout-after-timeout'],
  options: {
    scenario: {
      extends: 'default',
      name: 'init-hold-once',
      faults: [{ name: 'init-hold', operation: 'initializePayout', match: { client_ref_id: 'SAL-*' }, effect: 'hold', hold: '45s', times: 1 }],
    },
  },
  async run({ sb }) {
    const it = await integration(sb);
    try {
      const paying = naivePayOrder(it.api, it.book, order(sb, 'SAL-NOV-0007', 52000, VIKRAM, { purpose: 'SALARY' }));
      await untilPayoutExists(sb, 'SAL-NOV-0007');
      await it.clock.sleep(30_000); // the client's time-out; the answer is still held
      const r = await paying;
      assert(r.made && r.clientRefId === 'SAL-NOV-0007-R2', `expected the retry to be made: ${JSON.stringify(r)}`);
      await it.svc.untilFinal(r.clientRefId);
      await it.finish();
    } finally {
      await it.close();
    }
  },
};
