// Wrong: the merchant's webhook_url points at an endpoint that is down (the service moved and the
// URL was never updated), and nothing polls instead: the webhooks fail, and the outcomes are
// never learnt.
import { createServer } from 'node:http';
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order, VIKRAM } from '../lib/orders.js';
import { setWebhook } from '../lib/sandbox.js';

/** A port that was ours a moment ago and now has nothing listening on it. */
async function deadUrl() {
  const s = createServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return `http://127.0.0.1:${port}/hooks/payouts`;
}

export const client = {
  name: 'endpoint-down',
  about: 'webhook_url at a closed port (every genuine attempt fails) and no status checks: the outcomes are never learnt.',
  correct: false,
  expect: ['outcome-never-observed', 'webhook-unhealthy'],
  async run({ sb }) {
    const it = await integration(sb, { webhooks: false });
    await setWebhook(sb, await deadUrl());
    for (const o of [order(sb, 'EPD-000001', 170), order(sb, 'EPD-000002', 171, ANITA), order(sb, 'EPD-000003', 172, VIKRAM)]) {
      const r = await it.api.initialize(o);
      assert(r.kind === 'ok', `${o.client_ref_id}: ${r.message}`);
    }
    await it.clock.sleep(10 * 60_000); // the retries fail too
  },
};
