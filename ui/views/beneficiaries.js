// The tenant's beneficiaries, with when a Pending one becomes Active.
import { html } from '/__sandbox/ui/vendor/preact-htm.js';
import { Status, When } from '../format.js';
import { recordsView } from './records.js';

function activation(b) {
  if (b.status !== 'Pending') return html`since <${When} at=${b.activates_at} />`;
  return b.activates_at ? html`Active at <${When} at=${b.activates_at} />` : 'waits for the control API';
}

export const { View, prefetch } = recordsView({
  kind: 'beneficiaries',
  title: 'Beneficiaries',
  columns: [
    ['bene_id', (b) => b.bene_id],
    ['status', (b) => html`<${Status} s=${b.status} />`],
    ['name', (b) => b.bene_name],
    ['account', (b) => b.bank_account_number],
    ['IFSC', (b) => b.ifsc_code],
    ['activation', activation],
  ],
});
