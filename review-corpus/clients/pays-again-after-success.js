// Wrong: payouts run as jobs on an at-least-once queue, and the job makes a fresh client_ref_id per
// run. A worker paid the order, saw it Success, and died before acking the job; the queue ran the
// job again ten minutes later on another worker (which knows nothing of the first run), and that
// paid the payee again.
import { assert, debugLog } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';
import { PayoutService } from '../lib/payouts.js';

export const client = {
  name: 'pays-again-after-success',
  about: 'A re-run job pays an order again under a new client_ref_id 10 min after the first payout succeeded (no #repeat); careful otherwise.',
  correct: false,
  expect: ['double-payout-after-success'],
  async run({ sb }) {
    const it = await integration(sb);
    const { api, clock } = it;
    try {
      const job = { id: 'JOB-5512', order: order(sb, 'unset', 2750, ANITA, { remarks: 'refund for order 5512' }) };
      let runs = 0;
      /** The job body, on a worker: a new client_ref_id per run (the bug), pay, wait for the outcome. */
      const runJob = async (worker) => {
        runs += 1;
        const o = { ...job.order, client_ref_id: `${job.id}-RUN${runs}` };
        const r = await worker.pay(o);
        assert(r.made, `${o.client_ref_id}: ${r.message}`);
        return worker.untilFinal(o.client_ref_id);
      };
      assert((await runJob(it.svc)) === 'Success', 'the first run did not succeed');
      // the worker died before acknowledging the job; the queue's visibility time-out brings it back
      await clock.sleep(10 * 60_000);
      const secondWorker = new PayoutService({ api, clock, log: debugLog });
      assert((await runJob(secondWorker)) === 'Success', 'the second run did not succeed');
      await it.finish();
    } finally {
      await it.close();
    }
  },
};
