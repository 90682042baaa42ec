// The tenant's integration review: each finding with what a correct client does, and its
// evidence linked to the payout, request or delivery it names.
import { html } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { Waiting, When } from '../format.js';
import { href } from '../route.js';

const reviewPath = (tenant) => `/merchants/${encodeURIComponent(tenant)}/review`;
const deliveriesPath = (tenant) => `/webhooks?${new URLSearchParams({ merchant_id: tenant, limit: '1000' })}`;

export const prefetch = (client, route) => {
  client.prefetch(reviewPath(route.tenant));
  client.prefetch(deliveriesPath(route.tenant));
};

/** A piece of evidence as a link: a payout (or a delivery's payout) opens in the dashboard; a request or a probe run opens in the control API. */
function Evidence({ e, route, payoutOfDelivery }) {
  if (e.kind === 'payout') return html`<a class="link" href=${href({ ...route, tab: 'payouts', ref: e.id })}>payout ${e.id}</a>`;
  if (e.kind === 'delivery') {
    const ref = payoutOfDelivery.get(e.id);
    return ref ? html`<a class="link" href=${href({ ...route, tab: 'payouts', ref })}>delivery ${e.id}</a>` : html`<span>delivery ${e.id}</span>`;
  }
  if (e.kind === 'request')
    return html`<a class="link" href=${`/__sandbox/requests/${encodeURIComponent(e.id)}`} target="_blank" rel="noopener">request ${e.id.slice(-8)}</a>`;
  return html`<span>${e.kind} ${e.id}</span>`;
}

export function View({ client, route, version }) {
  const answer = useGet(client, reviewPath(route.tenant), [version]);
  const deliveries = useGet(client, deliveriesPath(route.tenant), [version]);
  const r = answer.data;
  if (!r) return html`<${Waiting} what="the review" error=${answer.error} />`;
  const payoutOfDelivery = new Map((deliveries.data?.deliveries ?? []).map((d) => [d.delivery_id, d.ref_id]));
  return html`<section class="card" aria-label="Integration review">
    <h2>Integration review <span class="muted">${r.summary.high} high · ${r.summary.medium} medium · ${r.summary.low} low</span></h2>
    ${
      r.findings.length === 0
        ? html`<p data-testid="review-clean">No finding: every one of the ${r.rules.length} rules passed for this tenant.</p>`
        : r.findings.map(
            (f) => html`<div class=${`card finding ${f.severity}`} data-testid="finding">
          <div class="bar"><span class=${`tag ${f.severity === 'low' ? '' : 'bad'}`}>${f.severity}</span> <strong>${f.rule}</strong> <span class="muted"><${When} at=${f.at} /></span></div>
          <p>${f.detail}</p>
          <p class="muted">${f.advice}</p>
          <p>${f.evidence.map((e, i) => html`${i > 0 ? ' · ' : ''}<${Evidence} e=${e} route=${route} payoutOfDelivery=${payoutOfDelivery} />`)}</p>
        </div>`,
          )
    }
    <details><summary>The ${r.rules.length} rules</summary><ul>${r.rules.map((x) => html`<li><strong>${x.rule}</strong> (${x.severity}): ${x.title}</li>`)}</ul></details>
  </section>`;
}
