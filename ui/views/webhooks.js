// The tenant's webhook endpoint: enabled or disabled (auto-disable), what it never acknowledged,
// the replay that sends it, and the receiver probe with its last run.
import { html } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { Waiting, When } from '../format.js';

const base = (route) => `/merchants/${route.tenant}/webhooks`;

export const prefetch = (client, route) => {
  client.prefetch(`${base(route)}/endpoint`);
  client.prefetch(`${base(route)}/probes`);
};

export function View({ client, route, version, refresh, onError, readonly = false }) {
  const endpoint = useGet(client, `${base(route)}/endpoint`, [version]);
  const probes = useGet(client, `${base(route)}/probes`, [version]);
  const act = (promise) => promise.then(refresh, onError);
  const e = endpoint.data;
  if (!e) return html`<${Waiting} what="the webhook endpoint" error=${endpoint.error} />`;
  const last = probes.data?.probes[0];
  return html`<section class="card" aria-label="Webhook endpoint"><h2>Webhook endpoint</h2>
    <p><span class=${`status status-${e.state === 'enabled' ? 'Success' : 'Failed'}`} data-testid="endpoint-state">${e.state}</span> <span class="muted">${e.url ?? 'no webhook URL'}</span></p>
    ${e.failing_since && html`<p>Failing since <${When} at=${e.failing_since} /></p>`}
    ${e.disabled_at && html`<p>Disabled at <${When} at=${e.disabled_at} /></p>`}
    ${
      !readonly &&
      html`<div class="bar">
      <button onClick=${() => act(client.post(`${base(route)}/replay`, {}))}>Replay ${e.unacknowledged} unacknowledged</button>
      <button disabled=${!e.url} onClick=${() => act(client.post(`${base(route)}/probe`, {}))}>Probe the receiver</button>
    </div>`
    }
    ${
      last &&
      html`<h3>Last probe: ${last.ok ? 'every check passed' : 'failed'} <span class="muted"><${When} at=${last.at} /> · ${last.url}</span></h3>
      <div class="scroll"><table><thead><tr><th>Check</th><th>Result</th><th>Expected</th><th>Got</th><th>Detail</th></tr></thead>
        <tbody>${last.checks.map((c) => html`<tr data-testid="probe-check"><td>${c.check}</td><td>${c.passed ? 'pass' : 'FAIL'}</td><td>${c.expected}</td><td>${c.got}</td><td>${c.detail}</td></tr>`)}</tbody></table></div>`
    }
  </section>`;
}
