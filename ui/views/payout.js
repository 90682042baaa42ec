// One payout: what decided it (and how its initialize was answered), its timeline, force-status,
// and its webhook deliveries.
import { html, useEffect, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { MODES, money, STATUSES, Status, Waiting, When } from '../format.js';
import { href } from '../route.js';
import { PayoutSequence, prefetchPayout } from './sequence.js';

const payoutPath = (ref) => `/payouts/${encodeURIComponent(ref)}`;

export function prefetch(client, route) {
  client.prefetch(payoutPath(route.ref));
  prefetchPayout(client, route);
}

/** How initialize was answered, when a scripted fault answered it although the payout was made. */
function faultText(f) {
  if (f.type === 'error') return `HTTP ${f.http_code} (${f.message}): the client was told it failed, and the payout was made`;
  if (f.type === 'delay') return 'the answer was held past common client time-outs; the payout was made';
  return 'the connection was closed with no answer; the payout was made';
}

function ForceStatus({ onForce }) {
  const [to, setTo] = useState('');
  return html`<form class="bar" onSubmit=${(e) => {
    e.preventDefault();
    onForce(to).then(() => setTo(''));
  }}>
    <label>Force status <select value=${to} onChange=${(e) => setTo(e.target.value)}>
      <option value="">choose…</option>${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}</select></label>
    <button type="submit" disabled=${!to}>Force</button></form>`;
}

function Delivery({ d, onRedeliver, readonly }) {
  return html`<div class="card" data-testid="delivery">
    <div class="bar"><strong>${d.delivery_id}</strong> <${Status} s=${d.state} /> <span class="muted">${d.event_status} · ${d.version} · ${d.target_url}</span>
      ${!readonly && html`<button onClick=${onRedeliver}>Redeliver</button>`}</div>
    <div class="scroll"><table><thead><tr><th>#</th><th>at</th><th>HTTP</th><th>error</th><th class="num">latency</th><th>signature</th><th>kind</th></tr></thead><tbody>
      ${d.attempts.map((a) => html`<tr data-testid="attempt"><td>${a.n}</td><td><${When} at=${a.at} /></td><td>${a.status ?? '—'}</td><td>${a.error ?? ''}</td><td class="num">${a.latency_ms} ms</td><td>${a.signature_valid ? 'valid' : 'wrong (chaos)'}</td><td>${a.kind ?? 'genuine'}</td></tr>`)}
    </tbody></table></div>
    ${d.next_attempt_at && html`<p class="muted">Next attempt <${When} at=${d.next_attempt_at} /></p>`}
    <details><summary>Body sent</summary><pre>${JSON.stringify(d.body, null, 2)}</pre></details>
  </div>`;
}

export function View({ client, route, go, merchant, version, refresh, onError, readonly = false }) {
  const payout = useGet(client, payoutPath(route.ref), [version]);
  const p = payout.data;
  // A link from the request journal may name a payout of another tenant: show it under its own.
  useEffect(() => {
    if (p && p.merchant_id !== route.tenant) go({ ...route, tenant: p.merchant_id }, { replace: true });
  }, [p?.merchant_id]);
  if (!p) return html`<${Waiting} what=${`payout ${route.ref}`} error=${payout.error} />`;
  const t = p.transaction;
  const act = (promise) => promise.then(refresh, onError);
  const { initialize_fault: fault, refund, reversed } = p;
  return html`<section class="card" aria-label="Payout detail">
    <div class="bar"><a class="link" href=${href({ ...route, ref: null })}>← Payouts</a>
      <h2>Payout ${t.ref_id} <${Status} s=${t.status} />${reversed && html` <span class="tag bad">reversed</span>`}</h2></div>
    <p>${money(t.amount)} by ${MODES[t.payment_method]} from ${p.debit_from} to ${t.beneficiary.name} · fee ${money(t.fees)} + tax ${money(t.tax)} · decided by rule <strong>${p.rule}</strong> · ${p.version.toUpperCase()}</p>
    ${fault && html`<p class="card fault" role="note" data-testid="fault"><strong>Initialize answered with a fault</strong> (rule ${p.rule}): ${faultText(fault)}.</p>`}
    ${refund && html`<p data-testid="refund">${reversed ? 'Reversed' : 'Failed'} <${When} at=${refund.at} />: <strong>${money(refund.total)}</strong> refunded to ${p.debit_from} (amount ${money(refund.amount)} + fee ${money(refund.fees)} + tax ${money(refund.tax)}).</p>`}
    <p class="muted">client_ref_id ${t.client_ref_id} · UTR ${t.bank_ref_number || '—'} · ${t.bank_res_msg || ''}</p>
    ${!readonly && html`<${ForceStatus} onForce=${(status) => act(client.post(`${payoutPath(route.ref)}/status`, { status }))} />`}
    <h3>Timeline</h3>
    <div class="scroll"><table><thead><tr><th>status</th><th>at</th><th>message</th><th></th></tr></thead><tbody>
      ${p.timeline.taken.map((s) => html`<tr><td><${Status} s=${s.status} /></td><td><${When} at=${s.at} /></td><td>${s.bank_res_msg}</td><td class="muted">taken</td></tr>`)}
      ${p.timeline.scheduled.map(
        (s) =>
          html`<tr><td><${Status} s=${s.status} /></td><td>${s.at ? html`<${When} at=${s.at} />` : `on status check ${s.after_polls} (${s.polls} so far)`}</td><td>${s.bank_res_msg ?? ''}</td><td class="muted">scheduled (${p.rule})</td></tr>`,
      )}
    </tbody></table></div>
    <h3>Webhook deliveries</h3>
    ${p.deliveries.length === 0 && html`<p class="muted">None (no webhook URL, or no status change yet).</p>`}
    ${p.deliveries.map((d) => html`<${Delivery} d=${d} readonly=${readonly} onRedeliver=${() => act(client.post(`/webhooks/${d.delivery_id}/redeliver`))} />`)}
    <h3>Sequence</h3>
    <${PayoutSequence} client=${client} route=${route} version=${version} headers=${merchant?.headers ?? null} />
  </section>`;
}
