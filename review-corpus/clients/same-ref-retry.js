// A correct integration that, after any fault on initialize (a 5xx, a dropped connection, its own
// time-out), sends the very same request again: the same client_ref_id cannot pay twice
// ("Duplicate Client Reference ID" means an earlier attempt made it). Then it polls.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';
import { untilPayoutExists } from '../lib/sandbox.js';

export const client = {
  name: 'same-ref-retry',
  about:
    'Retries a faulted initialize (3003.01 500, 3003.02 held past its 30 s time-out, 3003.04 dropped) at once under the SAME client_ref_id; a duplicate refusal means it exists; polls each to final.',
  correct: true,
  expect: [],
  async run({ sb }) {
    const it = await integration(sb);
    const { api, svc, book, clock } = it;
    try {
      const pay = async (o) => {
        book.track(o.client_ref_id, o);
        for (let attempt = 1; attempt <= 4; attempt++) {
          const r = await api.initialize(o);
          if (r.kind === 'ok') return (book.get(o.client_ref_id).refId = r.refId);
          if (r.kind === 'duplicate') return (book.get(o.client_ref_id).refId = 'made by an earlier attempt');
          if (r.kind === 'rejected' || r.kind === 'invalid') throw new Error(`${o.client_ref_id}: ${r.message}`);
          if (r.retryAfter) await clock.sleep(r.retryAfter * 1000);
        }
        throw new Error(`${o.client_ref_id}: still failing`);
      };
      await pay(order(sb, 'SRR-ONE', 330));
      await pay(order(sb, 'SRR-500', 3003.01));
      await pay(order(sb, 'SRR-DROP', 3003.04));
      const held = pay(order(sb, 'SRR-HOLD', 3003.02, ANITA));
      await untilPayoutExists(sb, 'SRR-HOLD');
      await clock.sleep(30_000); // our 30 s time-out passes first
      await held;
      for (const e of book.entries()) await svc.untilFinal(e.clientRefId);
      await it.finish();
      for (const e of book.entries()) assert(book.isFinal(e.clientRefId), `${e.clientRefId} not final`);
    } finally {
      await it.close();
    }
  },
};
