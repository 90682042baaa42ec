// The scenario's magic amounts: one click creates the payout for the tenant through the emulated
// API with the tenant's own credentials and opens it; a refusal shows the API's answer.
import { html, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { money, plain, Waiting } from '../format.js';
import { href } from '../route.js';

export const prefetch = (client) => client.prefetch('/demos');

function transfer(demo, van) {
  return {
    client_ref_id: `DEMO${Date.now()}`,
    transfer_type: 'BANK',
    amount: demo.amount,
    payment_method: demo.amount >= 200000 ? '1003' : '1001',
    debit_from: van,
    // Letters only: valid under either reading of "alphanumeric only" a scenario may take.
    beneficiary_name: 'DemoPayee',
    beneficiary_email: 'payee@example.com',
    beneficiary_mobile: '9876543210',
    account_number: '123456789012',
    ifsc_code: 'HDFC0001234',
    purpose: 'VENDOR_PAYOUT',
    remarks: `demo ${demo.name}`,
  };
}

export function View({ client, route, go, merchant, onError }) {
  const demos = useGet(client, '/demos');
  const [answer, setAnswer] = useState(null);
  const van = merchant.accounts.find((a) => a.status === 'ACTIVE')?.account_no;
  const open = (ref) => go({ ...route, tab: 'payouts', ref });
  const run = async (demo) => {
    const res = await fetch('/api/v2/public/payment/transfer', {
      method: 'POST',
      headers: { ...merchant.headers, 'content-type': 'application/json' },
      body: JSON.stringify(transfer(demo, van)),
    });
    const json = await res.json().catch(() => null);
    if (res.ok && json?.data?.ref_id) return open(String(json.data.ref_id));
    // A fault may answer an error after creating the payout: the journal knows which one.
    const journaled = await client.get(`/requests/${res.headers.get('x-request-id')}`).catch(() => null);
    setAnswer({ demo: demo.name, status: res.status, json, ref: journaled?.ref_id ?? null });
  };
  if (!demos.data) return html`<${Waiting} what="the scenario's demos" error=${demos.error} />`;
  const list = demos.data.demos;
  const groups = [...new Set(list.map((d) => d.group))];
  return html`<section aria-label="Demo an error flow">
    <p class="muted">Each creates a payout for ${merchant.name} from ${van} through the API (scenario ${demos.data.scenario}), then opens it.</p>
    ${
      answer &&
      html`<div class="card" role="status"><h3>${answer.demo}: HTTP ${answer.status}</h3>
      ${answer.ref && html`<p>The payout was created all the same: <a class="link" href=${href({ ...route, tab: 'payouts', ref: answer.ref })}>${answer.ref}</a></p>`}
      <pre>${JSON.stringify(answer.json, null, 2)}</pre></div>`
    }
    ${groups.map(
      (g) => html`<div class="card"><h2>${g}</h2><div class="grid">
      ${list.filter((d) => d.group === g).map((d) => html`<div class="demo"><button onClick=${() => run(d).catch(onError)} data-testid=${`demo-${d.name}`}>${money(d.amount)}${d.name !== String(d.amount) ? ` · ${d.name}` : ''}</button><p class="muted">${plain(d.description)}</p></div>`)}
    </div></div>`,
    )}
  </section>`;
}
