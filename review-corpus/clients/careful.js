// The careful integration: every situation of the review's checklist made to happen, and each
// handled as docs/review.md says.
import { sandboxApi } from '../lib/api.js';
import { chaosScenario } from '../lib/chaos.js';
import { testClock } from '../lib/clock.js';
import { assert, debugLog } from '../lib/debug.js';
import { ANITA, order, RAVI, VIKRAM } from '../lib/orders.js';
import { PayoutService } from '../lib/payouts.js';
import { startReceiver } from '../lib/receiver.js';
import { probe, setWebhook, untilPayoutExists } from '../lib/sandbox.js';

export const client = {
  name: 'careful',
  about:
    'Pays each order once under its own client_ref_id (looks it up after a 5xx, a drop or its time-out), waits out not-found, Unknown, 429 and 503, ' +
    'waits for a Pending beneficiary, pays again only after a failure or with #repeat, verifies and de-duplicates webhooks, ignores older statuses, ' +
    'and learns every final status (the reversal included).',
  correct: true,
  expect: [],
  ready: true,
  options: { scenario: chaosScenario('careful-chaos') },
  async run({ sb }) {
    const clock = testClock(sb);
    const api = sandboxApi(sb, clock, { timeoutMs: 30_000 });
    const svc = new PayoutService({ api, clock, log: debugLog });
    const receiver = await startReceiver({
      secret: sb.merchant.apiSecret,
      onTransaction: (t, { deliveryId }) => {
        const taken = svc.book.apply(t, `webhook ${deliveryId}`);
        debugLog(`webhook ${deliveryId} ${t.client_ref_id} ${t.status}${taken ? '' : ' (older or known: ignored)'}`);
      },
    });
    try {
      await setWebhook(sb, receiver.url);
      const probed = await probe(sb);
      assert(probed.ok, `the receiver probe failed: ${JSON.stringify(probed.checks)}`);

      /** Pays and confirms: one status check right after (it may not be visible yet: that is fine). */
      const payAndConfirm = async (o) => {
        const r = await svc.pay(o);
        assert(r.made, `${o.client_ref_id} not made: ${r.message}`);
        await svc.check({ client_ref_id: o.client_ref_id });
        return r;
      };

      await payAndConfirm(order(sb, 'CARE-N1', 1500));
      await payAndConfirm(order(sb, 'CARE-T500', 3003.01)); // 500, but made: found by client_ref_id
      await payAndConfirm(order(sb, 'CARE-TDROP', 3003.04)); // connection dropped, made: found
      // held 35 s: our time-out (30 s of the clock) gives up first; then it is looked up
      const held = svc.pay(order(sb, 'CARE-THOLD', 3003.02));
      await untilPayoutExists(sb, 'CARE-THOLD');
      await clock.sleep(30_000);
      assert((await held).made, 'CARE-THOLD not found after the time-out');
      await payAndConfirm(order(sb, 'CARE-LAG', 2002.08)); // "not found" at first: not re-paid
      await payAndConfirm(order(sb, 'CARE-UNK', 2002.03)); // Unknown for an hour: waited for
      await payAndConfirm(order(sb, 'CARE-REV', 2002.05)); // Success, reversed after 1 h
      await payAndConfirm(order(sb, 'CARE-NEW', 2002.06)); // NEW first
      await payAndConfirm(order(sb, 'SBX503-CARE', 1750)); // its status checks answer 503 twice
      // Pending 30 min; support looks it up a few times in a row and meets the limit once
      await payAndConfirm(order(sb, 'CARE-SLOW', 2002.02));
      for (let i = 0; i < 3; i++) await svc.check({ client_ref_id: 'CARE-SLOW' });

      // a new beneficiary is Pending for a while: refused, waited for, paid under the same id
      const bene = await api.createBeneficiary({ ...VIKRAM, beneficiary_mobile: '9876543210' });
      assert(bene.kind === 'ok', `beneficiary: ${bene.message}`);
      await payAndConfirm({
        ...order(sb, 'CARE-BENE', 2200),
        beneficiary_id: bene.beneficiaryId,
        beneficiary_name: undefined,
        beneficiary_email: undefined,
        account_number: undefined,
        ifsc_code: undefined,
      });

      // webhook chaos, one order each
      await payAndConfirm(order(sb, 'CHXDUP-C1', 1101, ANITA));
      await payAndConfirm(order(sb, 'CHXORD-C1', 1102, ANITA));
      await payAndConfirm(order(sb, 'CHXFRG-C1', 1103, ANITA));
      await payAndConfirm(order(sb, 'CHXSTL-C1', 1104, ANITA));
      await payAndConfirm(order(sb, 'CHXRPL-C1', 1105, ANITA));

      // a failed payment is paid again (new order id); a monthly one repeated on purpose
      await payAndConfirm(order(sb, 'CARE-FAIL', 777.77, RAVI, { remarks: 'sbx:Failed@5s' }));
      assert((await svc.untilFinal('CARE-FAIL')) === 'Failed', 'CARE-FAIL did not fail');
      await payAndConfirm(order(sb, 'CARE-FAIL-2', 777.77, RAVI, { remarks: 'retry of CARE-FAIL' }));
      await payAndConfirm(order(sb, 'CARE-N1-R', 1500, RAVI, { remarks: 'monthly vendor run #repeat' }));

      for (const e of svc.book.entries()) await svc.untilFinal(e.clientRefId);
      // the rest of the day: late webhooks (the reversal, replays, retries), then reconciliation
      await clock.sleep(3 * 60 * 60_000);
      await svc.reconcile();
      for (const e of svc.book.entries()) assert(svc.book.isFinal(e.clientRefId), `${e.clientRefId} is not final`);
      assert(svc.book.statusOf('CARE-REV') === 'Failed', 'the reversal was not learnt');
      assert(svc.book.statusOf('CHXORD-C1') === 'Success', 'a reordered Pending was believed');
    } finally {
      await receiver.close();
    }
  },
};
