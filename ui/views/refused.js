// The tenant's refused requests (answered 400 and up): what a client of the emulated API was told.
import { html } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { Waiting, When } from '../format.js';
import { href } from '../route.js';

const refusedPath = (tenant) => `/requests?${new URLSearchParams({ merchant_id: tenant, refused: 'true', limit: '100' })}`;

// A refusal without an envelope-B code is envelope A, but for the checkout API's own
// { status: false, message } (an unknown transaction, a fault): its credential failures (401) are envelope A.
const CHECKOUT_PATH = /^\/api\/v1\/payment\/transaction\//;
const envelopeOf = (r) => (CHECKOUT_PATH.test(r.path) && r.status !== 401 ? 'checkout envelope' : 'envelope A');

export const prefetch = (client, route) => client.prefetch(refusedPath(route.tenant));

export function View({ client, route, version }) {
  const answer = useGet(client, refusedPath(route.tenant), [version]);
  const rows = answer.data?.requests;
  if (!rows) return html`<${Waiting} what="the refused requests" error=${answer.error} />`;
  return html`<section class="card" aria-label="Refused requests">
    <h2>Refused requests <span class="muted">(${rows.length} shown, newest first)</span></h2>
    ${
      rows.length === 0
        ? html`<p class="muted">None: every request of this tenant was answered below 400.</p>`
        : html`<div class="scroll"><table>
      <thead><tr><th>at</th><th>request</th><th>HTTP</th><th>error code</th><th>message</th><th>payout</th></tr></thead>
      <tbody>${rows.map(
        (r) => html`<tr data-testid="refused">
        <td><${When} at=${r.at} /></td><td>${r.method} ${r.path}</td><td class="bad">${r.status ?? 'no answer'}</td>
        <td>${r.error?.code ?? (r.error ? html`<span class="muted">${envelopeOf(r)}</span>` : '')}</td><td class="wrap">${r.error?.message ?? ''}</td>
        <td>${r.ref_id && html`<a class="link" href=${href({ ...route, ref: r.ref_id, tab: 'payouts' })}>${r.ref_id}</a>`}</td></tr>`,
      )}</tbody>
    </table></div>`
    }
  </section>`;
}
