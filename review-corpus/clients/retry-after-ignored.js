// Wrong: the team's generic retry helper backs off 1 s, 2 s, 4 s… on any 5xx, whatever the
// answer's Retry-After says. Initialize answered 503 with Retry-After: 30; the retry came a second
// later (the same client_ref_id, so nothing was paid twice).
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { order } from '../lib/orders.js';

export const client = {
  name: 'retry-after-ignored',
  about: 'Initialize answered 503 Retry-After: 30 (a fault rule, once); retried under the same client_ref_id after 1 s, its own back-off; careful otherwise.',
  correct: false,
  expect: ['retry-after-ignored'],
  options: {
    scenario: {
      extends: 'default',
      name: 'init-503-30s',
      faults: [{ name: 'init-503', operation: 'initializePayout', match: { client_ref_id: 'RAI-*' }, effect: 'unavailable_503', times: 1, retry_after: '30s' }],
    },
  },
  async run({ sb }) {
    const it = await integration(sb);
    const { api, clock, book, svc } = it;
    try {
      /** Retries 5xx and lost answers with exponential back-off from 1 s (the same request each time). */
      const withRetries = async (fn, attempts = 4) => {
        let r;
        for (let i = 0; i < attempts; i++) {
          r = await fn();
          if (r.kind !== 'unavailable' && r.kind !== 'no-answer') return r;
          await clock.sleep(1000 * 2 ** i);
        }
        return r;
      };
      const o = order(sb, 'RAI-000001', 1234);
      const entry = book.track(o.client_ref_id, o);
      const r = await withRetries(() => api.initialize(o));
      assert(r.kind === 'ok', `expected the retry to be accepted: ${JSON.stringify(r)}`);
      entry.refId = r.refId;
      await svc.untilFinal(o.client_ref_id);
      await it.finish();
    } finally {
      await it.close();
    }
  },
};
