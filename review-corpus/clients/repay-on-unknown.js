// Wrong: the poller treats Unknown as a failure ("the bank could not say: it did not go") and pays
// the order again under a new client_ref_id. Unknown resolves — here to Success: paid twice.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { order, VIKRAM } from '../lib/orders.js';

const FAILED = new Set(['Failed', 'Unknown']); // the bug: Unknown is not a failure

export const client = {
  name: 'repay-on-unknown',
  about: 'Polls with back-off; Unknown (2002.03) counted as failed, so the order is paid again under a new client_ref_id (at most twice); careful otherwise.',
  correct: false,
  expect: ['double-payout-while-unresolved'],
  async run({ sb }) {
    const it = await integration(sb);
    const { api, svc, book } = it;
    try {
      /** Pays an order, polling each attempt to an outcome; a failed attempt is paid again (new id). */
      const payUntilPaid = async (o, attempts = 2) => {
        for (let attempt = 1; attempt <= attempts; attempt++) {
          const ref = attempt === 1 ? o.client_ref_id : `${o.client_ref_id}-A${attempt}`;
          const entry = book.track(ref, { ...o, client_ref_id: ref });
          const r = await api.initialize({ ...o, client_ref_id: ref });
          if (r.kind !== 'ok') throw new Error(`${ref}: ${r.message}`);
          entry.refId = r.refId;
          let status = r.status;
          for (let wait = 10_000; !FAILED.has(status) && status !== 'Success'; wait = Math.min(wait * 2, 600_000)) {
            await it.clock.sleep(wait);
            const c = await svc.check({ client_ref_id: ref });
            status = c.transaction?.status ?? status;
          }
          if (status === 'Success') return ref;
        }
        return null;
      };
      assert((await payUntilPaid(order(sb, 'PAYOUT-7781', 1850, VIKRAM))) === 'PAYOUT-7781', 'a plain payout did not succeed at once');
      assert((await payUntilPaid(order(sb, 'PAYOUT-7782', 2002.03))) === null, 'expected both attempts to be seen Unknown');
      await it.finish();
    } finally {
      await it.close();
    }
  },
};
