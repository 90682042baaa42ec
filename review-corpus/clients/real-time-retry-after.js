// A correct integration whose retry helper sleeps Retry-After in real time (as production code
// does), on a sandbox whose manual clock nobody advances meanwhile: the fault reopens after the
// real second has passed (docs/fidelity.md, rate limits; docs/review.md retry-after-ignored).
import { wallClock } from '../lib/clock.js';
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { order } from '../lib/orders.js';

export const client = {
  name: 'real-time-retry-after',
  about:
    'Initialize answered 503 with Retry-After: 1 (a fault rule); sleeps that second in real time (the manual clock does not move), then sends the same client_ref_id again.',
  correct: true,
  expect: [],
  options: {
    scenario: {
      extends: 'default',
      name: 'init-503-once',
      faults: [{ name: 'init-503', operation: 'initializePayout', match: { client_ref_id: 'RTRA-*' }, effect: 'unavailable_503', times: 1, retry_after: '1s' }],
    },
  },
  async run({ sb }) {
    const it = await integration(sb);
    const { api, svc, book } = it;
    try {
      const o = order(sb, 'RTRA-0001', 815);
      book.track(o.client_ref_id, o);
      let r = await api.initialize(o);
      assert(r.kind === 'unavailable' && r.http === 503 && r.retryAfter === 1, `expected a 503 with Retry-After 1, got ${JSON.stringify(r)}`);
      // 503: nothing was done; wait what it says (real time: 1 s), then the same request again
      await wallClock.sleep(r.retryAfter * 1000);
      r = await api.initialize(o);
      assert(r.kind === 'ok', `retry: ${JSON.stringify(r)}`);
      book.get(o.client_ref_id).refId = r.refId;
      await svc.untilFinal(o.client_ref_id);
      await it.finish();
    } finally {
      await it.close();
    }
  },
};
