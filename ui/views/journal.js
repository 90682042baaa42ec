// The request journal: each request, the rule that fired, and the transitions refused (those are
// control-API requests, listed with the dashboard's own when asked for).
import { html, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { Waiting, When } from '../format.js';
import { href } from '../route.js';

const journalPath = (control) => `/requests?limit=100${control ? '&include=control' : ''}`;

export const prefetch = (client) => client.prefetch(journalPath(false));

export function View({ client, route, version }) {
  const [control, setControl] = useState(false);
  const answer = useGet(client, journalPath(control), [version]);
  const rows = answer.data?.requests;
  if (!rows) return html`<${Waiting} what="the request journal" error=${answer.error} />`;
  return html`<section class="card" aria-label="Requests">
    <div class="bar"><h2>Recent requests</h2>
      <label><input type="checkbox" checked=${control} onChange=${(e) => setControl(e.target.checked)} /> the control API's too</label></div>
    <div class="scroll"><table>
    <thead><tr><th>at</th><th>request</th><th>merchant</th><th>status</th><th>rule</th><th>payout</th><th class="num">latency</th></tr></thead>
    <tbody>${rows.map(
      (
        r,
      ) => html`<tr><td><${When} at=${r.at} /></td><td>${r.method} ${r.path}</td><td>${r.merchant_id ?? ''}</td><td>${r.status ?? 'no answer'}</td><td>${r.rule ?? ''}${r.refused_transitions.length ? html` <span class="bad">refused: ${r.refused_transitions.map((t) => t.reason).join('; ')}</span>` : ''}</td>
      <td>${r.ref_id && html`<a class="link" href=${href({ tenant: r.merchant_id ?? route.tenant, tab: 'payouts', ref: r.ref_id })}>${r.ref_id}</a>`}</td><td class="num">${r.latency_ms} ms</td></tr>`,
    )}</tbody>
  </table></div></section>`;
}
