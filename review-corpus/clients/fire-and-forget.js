// Wrong: payouts are sent and forgotten: no webhook endpoint, no status check. Whatever happened
// to them, the merchant never knows.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';

export const client = {
  name: 'fire-and-forget',
  about: 'Initializes payouts (one that fails, 2002.01) and never asks again: no webhook_url, no status check.',
  correct: false,
  expect: ['outcome-never-observed'],
  async run({ sb }) {
    const it = await integration(sb, { webhooks: false });
    const { api, clock } = it;
    for (const o of [order(sb, 'FAF-000001', 150), order(sb, 'FAF-000002', 2002.01, ANITA)]) {
      const r = await api.initialize(o);
      assert(r.kind === 'ok', `${o.client_ref_id}: ${r.message}`);
    }
    await clock.sleep(10 * 60_000); // the rest of the day's work
  },
};
