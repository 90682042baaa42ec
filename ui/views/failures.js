// Failure on purpose: bank outage windows (list, create, end) and the tenant's seeded chaos.
import { html, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { When } from '../format.js';

export const prefetch = (client, route) => {
  client.prefetch('/outages');
  client.prefetch(`/merchants/${encodeURIComponent(route.tenant)}/chaos`);
};

const EFFECTS = ['reject', 'hold', 'unknown'];
const METHODS = [
  ['', 'any method'],
  ['1001', 'IMPS'],
  ['1002', 'NEFT'],
  ['1003', 'RTGS'],
];
const MODES = ['error_500', 'unavailable_503', 'drop', 'delay'];

function NewOutage({ onCreate }) {
  const [bank, setBank] = useState('HDFC');
  const [method, setMethod] = useState('');
  const [effect, setEffect] = useState('reject');
  const [span, setSpan] = useState('2h');
  return html`<form class="bar" aria-label="New outage" onSubmit=${(e) => {
    e.preventDefault();
    onCreate({ bank: bank.toUpperCase(), effect, for: span, ...(method ? { payment_method: method } : {}) });
  }}>
    <label>Bank (IFSC prefix) <input value=${bank} size="5" maxlength="4" onInput=${(e) => setBank(e.target.value)} /></label>
    <label>Method <select value=${method} onChange=${(e) => setMethod(e.target.value)}>${METHODS.map(([v, t]) => html`<option value=${v}>${t}</option>`)}</select></label>
    <label>Effect <select value=${effect} onChange=${(e) => setEffect(e.target.value)}>${EFFECTS.map((x) => html`<option value=${x}>${x}</option>`)}</select></label>
    <label>For <input value=${span} size="5" onInput=${(e) => setSpan(e.target.value)} /></label>
    <button type="submit">Start outage</button></form>`;
}

function Chaos({ client, tenant, version, act }) {
  const path = `/merchants/${encodeURIComponent(tenant)}/chaos`;
  const chaos = useGet(client, path, [version, tenant]);
  const [percent, setPercent] = useState(20);
  const [seed, setSeed] = useState(7);
  const c = chaos.data;
  return html`<div class="card" aria-label="Chaos"><h3>Chaos for ${tenant}</h3>
    <p data-testid="chaos">${!c ? '…' : c.source === 'none' ? 'off' : `${c.percent} % of ${c.operations.join(', ')} fail with ${c.modes.join(', ')} (seed ${c.seed}; ${c.source === 'scenario' ? "the scenario's" : 'its own'})`}</p>
    <form class="bar" onSubmit=${(e) => {
      e.preventDefault();
      act(client.put(path, { percent: Number(percent), seed: Number(seed), modes: MODES }));
    }}>
      <label>Percent <input type="number" min="0" max="100" value=${percent} onInput=${(e) => setPercent(e.target.value)} /></label>
      <label>Seed <input type="number" min="0" value=${seed} onInput=${(e) => setSeed(e.target.value)} /></label>
      <button type="submit">Turn on</button>
      <button type="button" disabled=${c?.source !== 'merchant'} onClick=${() => act(client.delete(path))}>Turn off</button>
    </form></div>`;
}

export function View({ client, route, version, refresh, onError }) {
  const outages = useGet(client, '/outages', [version]);
  const act = (promise) => promise.then(refresh, onError);
  return html`<section class="card" aria-label="Outages and chaos"><h2>Bank outages</h2>
    <${NewOutage} onCreate=${(body) => act(client.post('/outages', body))} />
    <div class="scroll"><table><thead><tr><th>bank</th><th>method</th><th>effect</th><th>from</th><th>to</th><th>now</th><th></th></tr></thead><tbody>
      ${(outages.data?.outages ?? []).map(
        (
          o,
        ) => html`<tr data-testid="outage"><td>${o.bank}</td><td>${o.payment_method ?? 'any'}</td><td>${o.effect}</td><td>${o.from ? html`<${When} at=${o.from} />` : '—'}</td><td>${o.to ? html`<${When} at=${o.to} />` : '—'}</td><td>${o.active ? 'down' : ''}</td>
          <td>${o.source === 'control' && html`<button onClick=${() => act(client.delete(`/outages/${o.id}`))}>End</button>`}</td></tr>`,
      )}
    </tbody></table></div>
    <${Chaos} client=${client} tenant=${route.tenant} version=${version} act=${act} />
  </section>`;
}
