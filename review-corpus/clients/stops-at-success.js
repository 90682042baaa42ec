// Wrong: polling stops at Success ("the money went out"), and there is no webhook endpoint. A
// reversal an hour later (Success → Failed, the money came back) is never learnt.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { order } from '../lib/orders.js';

export const client = {
  name: 'stops-at-success',
  about: 'Poll-only, with back-off, until Success or Failed, and never again after (2002.05 is reversed after 1 h); no webhook_url.',
  correct: false,
  expect: ['reversal-never-learnt'],
  async run({ sb }) {
    const it = await integration(sb, { webhooks: false });
    const { svc, clock, book } = it;
    for (const o of [order(sb, 'SAS-000001', 160), order(sb, 'SAS-000002', 2002.05)]) {
      const r = await svc.pay(o);
      assert(r.made, `${o.client_ref_id}: ${r.message}`);
    }
    for (const e of book.entries()) assert((await svc.untilFinal(e.clientRefId)) === 'Success', `${e.clientRefId} not Success`);
    await clock.sleep(3 * 60 * 60_000); // the day goes on; nobody looks at them again
  },
};
