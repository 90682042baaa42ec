// Wrong: a payout's status is polled every 2 seconds until it is final. The client does wait out
// each 429 for its Retry-After, then polls flat out again: the limit is hit every minute.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { order } from '../lib/orders.js';

export const client = {
  name: 'polling-storm',
  about: 'Polls a slow payout (2002.02, Pending 30 min) every 2 s; waits Retry-After after each 429 but never backs off, so it meets 429 again and again.',
  correct: false,
  expect: ['status-poll-over-limit'],
  async run({ sb }) {
    const it = await integration(sb, { webhooks: false });
    const { api, clock, book } = it;
    const o = order(sb, 'STORM-0001', 2002.02);
    const r = await api.initialize(o);
    assert(r.kind === 'ok', r.message);
    book.track(o.client_ref_id, o).refId = r.refId;
    let status = r.status;
    let limited = 0;
    while (status !== 'Success' && status !== 'Failed') {
      const c = await api.status({ client_ref_id: o.client_ref_id });
      if (c.kind === 'limited') {
        limited += 1;
        await clock.sleep((c.retryAfter ?? 60) * 1000);
        continue;
      }
      if (c.kind === 'found') status = c.transaction.status;
      await clock.sleep(2000);
    }
    assert(limited >= 3, `expected the limit to be hit 3 times or more, got ${limited}`);
  },
};
