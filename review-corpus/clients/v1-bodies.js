// A correct integration on the V1 initialize endpoint, whose webhooks carry the V1 body
// ({ "transaction": … }); the receiver reads that body only, and the merchant's webhook_version
// says v1 so that every delivery (the probe's too) has it.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { ANITA, order } from '../lib/orders.js';
import { probe } from '../lib/sandbox.js';

export const client = {
  name: 'v1-bodies',
  about:
    'V1 initialize and V1 webhook bodies (webhook_version v1), a receiver that reads { transaction } only, checks the same 300 s timestamp and signature; polls too.',
  correct: true,
  expect: [],
  options: { scenario: { extends: 'default', name: 'v1-reorder', webhooks: { chaos: { reorder: true } } } },
  async run({ sb }) {
    const it = await integration(sb, { apiVersion: 'v1', webhookVersion: 'v1', receiver: { bodies: 'v1' } });
    const { svc, book } = it;
    try {
      const probed = await probe(sb);
      assert(probed.ok, `probe: ${JSON.stringify(probed.checks)}`);
      for (const o of [
        order(sb, 'V1-ONE', 640),
        order(sb, 'V1-F500', 3003.01),
        order(sb, 'V1-NEW1', 2002.06),
        order(sb, 'V1-UNK1', 2002.03),
        order(sb, 'V1-REV1', 2002.05, ANITA),
        order(sb, 'V1-FAIL1', 2002.01, ANITA),
      ]) {
        const r = await svc.pay(o);
        assert(r.made, `${o.client_ref_id}: ${r.message}`);
        await svc.check({ client_ref_id: o.client_ref_id });
      }
      await it.finish();
      assert(book.statusOf('V1-REV1') === 'Failed', 'the reversal was not learnt');
      assert(book.statusOf('V1-NEW1') === 'Success', 'a reordered Pending was believed');
      assert(
        it.receiver.log.some((l) => l.status === 204 && !l.probe),
        'no V1 delivery was handled',
      );
    } finally {
      await it.close();
    }
  },
};
