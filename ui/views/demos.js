// Stories: the scenario's demos (its magic amounts), each told as a story — a title, a summary and
// what to say at each moment, from the scenario file (`story`). One click runs one for a fresh
// story merchant on a manual clock of its own and opens the story view (story.js).
import { html, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { money, Waiting } from '../format.js';
import { href } from '../route.js';

export const prefetch = (client) => client.prefetch('/demos');

/** The initialize body of a story's payout, from the story merchant's first VAN. */
export function transfer(demo, van, clientRefId) {
  return {
    client_ref_id: clientRefId,
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
    remarks: `story ${demo.name}`,
  };
}

/** Initializes still waiting for their answer (a held one: 3003.02), by story merchant. */
export const inFlight = new Map();

/** Whether the demo's payout exists once its initialize is answered (not a rejection, not a fault that makes nothing). */
export const makesPayout = (demo) => demo.outcome.kind !== 'reject' && demo.outcome.fault?.create !== false;

/** The merchant's status check, as a careful client makes it: by its own client_ref_id. */
export function checkStatus(merchant, clientRefId) {
  return fetch(`/api/v1/public/payment/transfer/status?client_ref_id=${encodeURIComponent(clientRefId)}`, { headers: merchant.headers }).then((r) => r.status);
}

/**
 * Runs a story: a fresh merchant on a manual clock of its own (the sandbox's clock and every other
 * merchant untouched), its webhooks to the tenant's receiver if it has one; the payout made as
 * the demo says; a first status check at once (what a careful client does). Resolves to the merchant.
 */
export async function runStory(client, demo, tenant) {
  const merchant = await client.post('/merchants', {
    name: `Story ${demo.name}`,
    clock: { mode: 'manual' },
    ...(tenant?.webhook_url ? { webhook_url: tenant.webhook_url } : {}),
  });
  const clientRefId = `STORY${Date.now()}`;
  const answered = fetch('/api/v2/public/payment/transfer', {
    method: 'POST',
    headers: { ...merchant.headers, 'content-type': 'application/json' },
    body: JSON.stringify(transfer(demo, merchant.account_no, clientRefId)),
  })
    .then((r) => r.status)
    .catch(() => null);
  // A held answer (a delay fault) waits for the story's clock: the story view's Step releases it.
  if (demo.outcome.fault?.type === 'delay') inFlight.set(merchant.merchant_id, { answered, clientRefId });
  else await answered;
  if (makesPayout(demo) && !inFlight.has(merchant.merchant_id)) await checkStatus(merchant, clientRefId);
  return { merchant, clientRefId };
}

export function View({ client, route, go, merchant, onError }) {
  const demos = useGet(client, '/demos');
  const clock = useGet(client, '/clock');
  const [running, setRunning] = useState(null);
  const [answer, setAnswer] = useState(null);
  const van = merchant.accounts.find((a) => a.status === 'ACTIVE')?.account_no;
  // The same payout for the tenant itself (on its clock): its page, or the refusal with its envelope.
  const payFor = async (demo) => {
    const res = await fetch('/api/v2/public/payment/transfer', {
      method: 'POST',
      headers: { ...merchant.headers, 'content-type': 'application/json' },
      body: JSON.stringify(transfer(demo, van, `DEMO${Date.now()}`)),
    });
    const json = await res.json().catch(() => null);
    if (res.ok && json?.data?.ref_id) return go({ ...route, tab: 'payouts', ref: String(json.data.ref_id) });
    // A fault may answer an error after creating the payout: the journal knows which one.
    const journaled = await client.get(`/requests/${res.headers.get('x-request-id')}`).catch(() => null);
    setAnswer({ demo, status: res.status, json, ref: journaled?.ref_id ?? null });
  };
  const run = async (demo) => {
    setRunning(demo.name);
    try {
      const { merchant: m } = await runStory(client, demo, merchant);
      go({ tenant: m.merchant_id, tab: 'story', ref: demo.name });
    } finally {
      setRunning(null);
    }
  };
  if (!demos.data) return html`<${Waiting} what="the scenario's stories" error=${demos.error} />`;
  const list = demos.data.demos;
  const groups = [...new Set(list.map((d) => d.group))];
  return html`<section aria-label="Stories">
    <p class="muted">Each story runs for a fresh merchant on a <strong>demo clock of its own</strong> (manual: it moves only when you step or play),
      ${clock.data && (clock.data.mode === 'manual' ? ' beside the sandbox clock' : html` while the sandbox clock stays <strong>${clock.data.mode}</strong>`)}: nothing else changes.
      Scenario <strong>${demos.data.scenario}</strong>.</p>
    ${
      answer &&
      html`<div class="card" role="status"><h3>${answer.demo.name}: HTTP ${answer.status}</h3>
      <p><strong>${answer.demo.story.title}.</strong> ${answer.demo.story.steps?.answer ?? ''}</p>
      ${answer.ref && html`<p>The payout was created all the same: <a class="link" href=${href({ ...route, tab: 'payouts', ref: answer.ref })}>${answer.ref}</a></p>`}
      <pre class="envelope">${JSON.stringify(answer.json, null, 2)}</pre></div>`
    }
    ${groups.map(
      (g) => html`<div class="card"><h2>${g}</h2><div class="grid">
      ${list
        .filter((d) => d.group === g)
        .map(
          (d) => html`<div class="demo story-card">
            <button onClick=${() => run(d).catch(onError)} disabled=${running !== null} data-testid=${`story-${d.name}`}>${d.story.title}</button>
            <p class="muted">${d.story.summary ?? d.description.replace(/[`*]/g, '')}</p>
            <p><button class="small" onClick=${() => payFor(d).catch(onError)} data-testid=${`demo-${d.name}`} title=${`The same payout for ${merchant.name}, on its clock`}>${money(d.amount)} for ${merchant.name}</button></p>
            ${running === d.name && html`<p class="muted" role="status">Starting…</p>`}
          </div>`,
        )}
    </div></div>`,
    )}
    <p class="muted">Stories come from the scenario file (<code>story</code> of each rule): a scenario of yours brings its own. <a class="link" href=${href({ tenant: route.tenant, tab: 'payouts' })}>Payouts</a> lists what they made.</p>
  </section>`;
}
