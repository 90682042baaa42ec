// The tenant's verifications and what each answered.
import { html } from '/__sandbox/ui/vendor/preact-htm.js';
import { money, When } from '../format.js';
import { recordsView } from './records.js';

export const { View, prefetch } = recordsView({
  kind: 'verifications',
  title: 'Verifications',
  columns: [
    ['verification_id', (v) => v.verification_id],
    ['source', (v) => v.source_type],
    ['status', (v) => v.verification_status],
    ['result', (v) => (v.verify_response?.valid === false ? html`<span class="bad">invalid</span>` : html`<span class="ok">valid</span>`)],
    ['commission', (v) => money(v.commission)],
    ['at', (v) => html`<${When} at=${v.at} />`],
  ],
});
