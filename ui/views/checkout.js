// The tenant's checkout transactions.
import { html } from '/__sandbox/ui/vendor/preact-htm.js';
import { money, Status, When } from '../format.js';
import { recordsView } from './records.js';

export const { View, prefetch } = recordsView({
  kind: 'checkout',
  key: 'transactions',
  title: 'Checkout',
  columns: [
    ['payment_id', (t) => t.payment_id],
    ['status', (t) => html`<${Status} s=${t.status} />`],
    ['amount', (t) => money(t.order.gross_amount)],
    ['mode', (t) => t.payment_mode ?? ''],
    ['date', (t) => html`<${When} at=${t.date} />`],
  ],
});
