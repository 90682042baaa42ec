// Wrong: right after initialize the client confirms the payout with a status check; "Unable to
// find transaction using provided ID" is read as "it was not created", and the payout is sent
// again under a new client_ref_id. It existed (read-after-write lag): paid twice.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';

export const client = {
  name: 'repay-on-not-found',
  about:
    'Confirms each payout by a status check right after initialize; on "not found" (2002.08, invisible for 5 s) sends it again under a new client_ref_id; careful otherwise.',
  correct: false,
  expect: ['double-payout-after-not-found'],
  async run({ sb }) {
    const it = await integration(sb);
    const { api, book, svc } = it;
    try {
      /** Initialize, then make sure the provider has it; if it does not, send it again. */
      const payConfirmed = async (o) => {
        for (let attempt = 1; attempt <= 2; attempt++) {
          const ref = attempt === 1 ? o.client_ref_id : `${o.client_ref_id}-${attempt}`;
          const entry = book.track(ref, { ...o, client_ref_id: ref });
          const r = await api.initialize({ ...o, client_ref_id: ref });
          if (r.kind !== 'ok') throw new Error(`${ref}: ${r.message}`);
          const check = await svc.check({ client_ref_id: ref });
          if (check.kind === 'found') {
            entry.refId = r.refId;
            return ref;
          }
          // not found: "the provider lost it"
          entry.lost = true;
        }
        return null;
      };
      assert((await payConfirmed(order(sb, 'CASHBK-1001', 320, ANITA))) === 'CASHBK-1001', 'a plain payout was not confirmed at once');
      const ref = await payConfirmed(order(sb, 'CASHBK-1002', 2002.08));
      assert(ref === null, `expected both attempts to be unconfirmed, got ${ref}`);
      // both are followed up later all the same (the reconciliation job finds them by id)
      for (const e of book.entries()) await svc.untilFinal(e.clientRefId);
      await it.finish();
    } finally {
      await it.close();
    }
  },
};
