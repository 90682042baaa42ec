// Wrong: a payout to a beneficiary just registered is refused INVALID_BENEFICIARY (it is Pending
// for a while); the client treats that as a transient error and retries every 2 seconds until it
// goes through, instead of checking the beneficiary and waiting for it to be Active.
import { assert } from '../lib/debug.js';
import { integration } from '../lib/kit.js';
import { order, VIKRAM } from '../lib/orders.js';

export const client = {
  name: 'retries-pending-beneficiary',
  about:
    'Creates a beneficiary and pays it by beneficiary_id at once; on INVALID_BENEFICIARY retries (same client_ref_id) every 2 s while it is still Pending; careful otherwise.',
  correct: false,
  expect: ['payout-to-pending-beneficiary-repeated'],
  async run({ sb }) {
    const it = await integration(sb);
    const { api, clock, book, svc } = it;
    try {
      const bene = await api.createBeneficiary({ ...VIKRAM, beneficiary_mobile: '9876543210' });
      assert(bene.kind === 'ok', bene.message);
      const { beneficiary_name, beneficiary_email, account_number, ifsc_code, ...rest } = order(sb, 'RPB-000001', 2300);
      const o = { ...rest, beneficiary_id: bene.beneficiaryId };
      const entry = book.track(o.client_ref_id, o);
      let refused = 0;
      for (let i = 0; i < 10; i++) {
        const r = await api.initialize(o);
        if (r.kind === 'ok') {
          entry.refId = r.refId;
          break;
        }
        assert(r.code === 'INVALID_BENEFICIARY', `${r.code}: ${r.message}`);
        refused += 1;
        await clock.sleep(2000);
      }
      assert(entry.refId && refused >= 2, `expected repeated refusals then a payout, got ${refused} refusals`);
      await svc.untilFinal(o.client_ref_id);
      await it.finish();
    } finally {
      await it.close();
    }
  },
};
