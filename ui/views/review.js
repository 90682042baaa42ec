// The tenant's integration review: the verdict, each rule failed, passed or not proven (with how
// to exercise it), and the findings grouped by rule then payment, a page at a time, each with what
// a correct client does and its evidence linked to the payout, request or delivery it names.
import { html, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { Waiting, When } from '../format.js';
import { href } from '../route.js';

/** Findings per page: the review answers them a page at a time, so a run of thousands of payouts stays light. */
const PAGE = 50;
const reviewPath = (tenant, offset) =>
  `/merchants/${encodeURIComponent(tenant)}/review?${new URLSearchParams({ limit: String(PAGE), offset: String(offset) })}`;

export const prefetch = (client, route) => {
  client.prefetch(reviewPath(route.tenant, 0));
};

/** A piece of evidence as a link: a payout (or a delivery's payout) opens in the dashboard; a request or a probe run in the control API. */
function Evidence({ e, route }) {
  if (e.kind === 'payout') return html`<a class="link" href=${href({ ...route, tab: 'payouts', ref: e.id })}>payout ${e.id}</a>`;
  if (e.kind === 'delivery') {
    const what = `delivery ${e.id}${e.delivery_kind ? ` (${e.delivery_kind}${e.timestamp_age_s ? `, ${e.timestamp_age_s} s old` : ''})` : ''}`;
    return e.ref_id ? html`<a class="link" href=${href({ ...route, tab: 'payouts', ref: e.ref_id })}>${what}</a>` : html`<span>${what}</span>`;
  }
  const url = e.url ?? (e.kind === 'request' ? `/__sandbox/requests/${encodeURIComponent(e.id)}` : null);
  const label = e.kind === 'request' ? `request ${e.id.slice(-8)}` : `${e.kind} ${e.id}`;
  return url ? html`<a class="link" href=${url} target="_blank" rel="noopener">${label}</a>` : html`<span>${label}</span>`;
}

const VERDICT = { ready: 'ok', 'not-ready': 'bad', unproven: '' };

/** The findings of a page, grouped by rule (in the order they come), each rule's findings by payment. */
function byRule(findings) {
  const groups = new Map();
  for (const f of findings) {
    if (!groups.has(f.rule)) groups.set(f.rule, []);
    groups.get(f.rule).push(f);
  }
  return [...groups.values()];
}

function Finding({ f, route }) {
  return html`<div class=${`finding ${f.severity}`} data-testid="finding">
    <div class="bar"><strong>${f.payment}</strong> <span class="tag">${f.occurrences}×</span> <span class="muted"><${When} at=${f.at} /></span></div>
    <p>${f.detail}</p>
    <p>${f.evidence.map((e, i) => html`${i > 0 ? ' · ' : ''}<${Evidence} e=${e} route=${route} />`)}${f.more_evidence > 0 ? html` <span class="muted">and ${f.more_evidence} more</span>` : ''}</p>
  </div>`;
}

export function View({ client, route, version }) {
  const [offset, setOffset] = useState(0);
  const answer = useGet(client, reviewPath(route.tenant, offset), [version]);
  const r = answer.data;
  if (!r) return html`<${Waiting} what="the review" error=${answer.error} />`;
  const s = r.summary;
  const outcome = new Map(r.rules.map((x) => [x.rule, x]));
  const unproven = r.rules.filter((x) => x.result === 'unproven');
  return html`<section class="card" aria-label="Integration review">
    <h2>Integration review <span class=${`tag ${VERDICT[s.verdict] ?? ''}`} data-testid="review-verdict">${s.verdict}</span></h2>
    <p class="muted">${s.rules.failed} rules failed · ${s.rules.passed} passed · ${s.rules.unproven} not proven — findings: ${s.high} high · ${s.medium} medium · ${s.low} low</p>
    ${
      r.findings_total === 0
        ? html`<p data-testid="review-clean">No finding.${unproven.length > 0 ? ` ${unproven.length} of the ${r.rules.length} rules were not proven: their situations never arose (below, with how to make them).` : ` Every one of the ${r.rules.length} rules passed.`}</p>`
        : byRule(r.findings).map((group) => {
            const rule = outcome.get(group[0].rule);
            return html`<div class=${`card rule-group ${group[0].severity}`} data-testid="rule-group">
              <div class="bar"><span class=${`tag ${group[0].severity === 'low' ? '' : 'bad'}`}>${group[0].severity}</span> <strong>${group[0].rule}</strong> <span class="muted">${rule ? `${rule.findings} payment${rule.findings === 1 ? '' : 's'}, ${rule.occurrences} time${rule.occurrences === 1 ? '' : 's'}` : ''}</span></div>
              <p class="muted">${group[0].title}. ${group[0].advice}</p>
              ${group.map((f) => html`<${Finding} f=${f} route=${route} />`)}
            </div>`;
          })
    }
    ${
      r.findings_total > PAGE
        ? html`<nav class="bar" aria-label="Pages of findings">
          <button disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>Previous</button>
          <span class="muted" data-testid="review-page">findings ${offset + 1}–${Math.min(offset + PAGE, r.findings_total)} of ${r.findings_total}</span>
          <button disabled=${offset + PAGE >= r.findings_total} onClick=${() => setOffset(offset + PAGE)}>Next</button>
        </nav>`
        : ''
    }
    ${
      unproven.length > 0
        ? html`<details open=${r.findings_total === 0}><summary>Not proven (${unproven.length}): how to make each arise</summary><ul>${unproven.map(
            (x) => html`<li data-testid="unproven"><strong>${x.rule}</strong> (${x.severity}): ${x.how_to_exercise}</li>`,
          )}</ul></details>`
        : ''
    }
    <details><summary>The ${r.rules.length} rules</summary><ul>${r.rules.map((x) => html`<li><strong>${x.rule}</strong> (${x.severity}, ${x.result}): ${x.title}</li>`)}</ul></details>
  </section>`;
}
