// Wrong: the client checks a payout once, a couple of seconds after initialize, records what it
// says ("Pending: the bank has it") and leaves the rest to a month-end reconciliation. The payout
// turns Unknown a few seconds later and stays so; nobody asks about it again.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { order } from '../lib/orders.js';

export const client = {
  name: 'forgets-unknown',
  about:
    'One status check 2 s after initialize (Pending), then nothing: 2002.03 turns Unknown at 5 s and is still Unknown when the run ends (30 min later); no webhook_url.',
  correct: false,
  expect: ['payout-left-unresolved'],
  async run({ sb }) {
    const it = await integration(sb, { webhooks: false });
    const { svc, clock, book } = it;
    const o = order(sb, 'FUN-000001', 2002.03);
    const r = await svc.pay(o);
    assert(r.made, r.message);
    await clock.sleep(2000);
    await svc.check({ client_ref_id: o.client_ref_id });
    assert(book.statusOf(o.client_ref_id) === 'Pending', `expected Pending, got ${book.statusOf(o.client_ref_id)}`);
    await clock.sleep(30 * 60_000); // the rest of the day's work; the payout is Unknown all along
  },
};
