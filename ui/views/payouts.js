// The tenant's payouts, newest first, filtered, 50 at a time.
import { html, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { MODES, money, STATUSES, Status, Waiting, When } from '../format.js';
import { href } from '../route.js';

const NO_FILTER = { status: '', mode: '', van: '' };

function pagePath(tenant, filter, cursor = null) {
  const q = new URLSearchParams({ limit: '50' });
  for (const [k, v] of Object.entries(filter)) if (v) q.set(k, v);
  if (cursor !== null) q.set('cursor', String(cursor));
  return `/merchants/${tenant}/payouts?${q}`;
}

export const prefetch = (client, route) => client.prefetch(pagePath(route.tenant, NO_FILTER));

export function View({ client, route, merchant, version, onError }) {
  const [filter, setFilter] = useState(NO_FILTER);
  const first = useGet(client, pagePath(route.tenant, filter), [version]);
  // Pages after the first, for as long as the first page they follow is the one on screen.
  const [later, setLater] = useState({ after: null, rows: [], next: null });
  if (!first.data) return html`<${Waiting} what="payouts" error=${first.error} />`;
  const more = later.after === first.data ? later : { after: first.data, rows: [], next: first.data.next };
  const rows = [...first.data.payouts, ...more.rows];
  const loadMore = () =>
    client.get(pagePath(route.tenant, filter, more.next)).then((r) => setLater({ ...more, rows: [...more.rows, ...r.payouts], next: r.next }), onError);
  const pick = (k) => (e) => setFilter({ ...filter, [k]: e.target.value });
  return html`<section class="card" aria-label="Payouts">
    <h2>Payouts <span class="muted">(${first.data.total} in all, newest first)</span></h2>
    <div class="bar">
      <label>Status <select value=${filter.status} onChange=${pick('status')}><option value="">any</option>${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}</select></label>
      <label>Mode <select value=${filter.mode} onChange=${pick('mode')}><option value="">any</option>${Object.entries(MODES).map(([k, v]) => html`<option value=${k}>${v}</option>`)}</select></label>
      <label>VAN <select value=${filter.van} onChange=${pick('van')}><option value="">any</option>${merchant.accounts.map((a) => html`<option value=${a.account_no}>${a.account_no}</option>`)}</select></label>
    </div>
    <div class="scroll"><table>
      <thead><tr><th>ref_id</th><th>client_ref_id</th><th>status</th><th class="num">amount</th><th>mode</th><th>VAN</th><th>rule</th><th>updated</th></tr></thead>
      <tbody>${rows.map(
        (p) => html`<tr>
        <td><a class="link" href=${href({ ...route, ref: String(p.ref_id) })}>${p.ref_id}</a></td>
        <td>${p.client_ref_id}</td><td><${Status} s=${p.status} /></td><td class="num">${money(p.amount)}</td>
        <td>${MODES[p.payment_method]}</td><td>${p.debit_from}</td><td>${p.rule}</td><td><${When} at=${p.transaction_date} /></td></tr>`,
      )}</tbody>
    </table></div>
    ${rows.length === 0 && html`<p class="muted">No payouts${Object.values(filter).some(Boolean) ? ' match' : ' yet: try the Stories tab'}.</p>`}
    ${more.next !== null && html`<button onClick=${loadMore}>More</button>`}
  </section>`;
}
