// Wrong: the payout state machine in the webhook handler refuses any move out of a final state
// ("Success is final") with 409, and the poller stops at Success. The reversal's Failed webhook is
// refused on every attempt, so the money that came back is never accounted for.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order, RAVI, VIKRAM } from '../lib/orders.js';

export const client = {
  name: 'final-state-guard',
  about:
    'Receiver answers 409 to a webhook that moves a payout out of Success (the 2002.05 reversal), polling stops at Success; the other webhooks are handled (failures stay under half).',
  correct: false,
  expect: ['reversal-never-learnt'],
  async run({ sb }) {
    const state = new Map(); // client_ref_id → status, our payouts table
    const it = await integration(sb, {
      receiver: {
        onTransaction: (t) => {
          const was = state.get(t.client_ref_id);
          if (was === 'Success' || was === 'Failed') {
            if (t.status === was) return;
            throw Object.assign(new Error(`illegal transition ${was} → ${t.status}`), { status: 409 });
          }
          state.set(t.client_ref_id, t.status);
          it.book.apply(t, 'webhook');
        },
      },
    });
    const { svc, book, clock } = it;
    try {
      const orders = [order(sb, 'FSG-REV001', 2002.05)];
      const payees = [RAVI, ANITA, VIKRAM];
      for (let i = 1; i <= 9; i++) orders.push(order(sb, `FSG-${String(i).padStart(6, '0')}`, 180 + i, payees[i % 3]));
      for (const o of orders) {
        const r = await svc.pay(o);
        assert(r.made, `${o.client_ref_id}: ${r.message}`);
      }
      for (const o of orders) {
        const s = await svc.untilFinal(o.client_ref_id);
        state.set(o.client_ref_id, s);
      }
      assert(book.statusOf('FSG-REV001') === 'Success', 'the reversed payout was not seen Success first');
      await clock.sleep(3 * 60 * 60_000); // the day goes on; nobody polls a Success again
      assert(state.get('FSG-REV001') === 'Success', 'the guard let the reversal through');
    } finally {
      await it.close();
    }
  },
};
