// The payout-sandbox dashboard: Preact + htm (vendored by the build, no bundler), talking only to
// the control API (/__sandbox) and its event stream, plus the emulated API with a tenant's own
// credentials when a demo creates a payout. Money in ₹ with Indian digit grouping, times in IST.
import { html, render, useCallback, useEffect, useMemo, useRef, useState } from '/__sandbox/ui/vendor/preact-htm.js';

const C = '/__sandbox';
const TOKEN_KEY = 'payout-sandbox-admin-token';
const rupees = new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', minimumFractionDigits: 2 });
const money = (n) => (typeof n === 'number' ? rupees.format(n) : '');
/** An ISO instant with +05:30 (as the control API gives them) shown as IST wall time. */
const ist = (iso) => (iso ? `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)} ${iso.slice(11, 19)} IST` : '');
const MODES = { 1001: 'IMPS', 1002: 'NEFT', 1003: 'RTGS' };
const STATUSES = ['NEW', 'Pending', 'Unknown', 'Success', 'Failed'];

class HttpError extends Error {
  constructor(status, body) {
    super(body?.error ?? body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

function api(token) {
  const headers = (extra = {}) => ({ ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra });
  const call = async (method, path, body) => {
    const res = await fetch(`${C}${path}`, { method, headers: headers(body ? { 'content-type': 'application/json' } : {}), body: body ? JSON.stringify(body) : undefined });
    const json = await res.json().catch(() => null);
    if (!res.ok) throw new HttpError(res.status, json);
    return json;
  };
  return {
    get: (path) => call('GET', path),
    post: (path, body = {}) => call('POST', path, body),
    headers,
  };
}

/** The change stream, read with fetch (EventSource cannot send the admin token); calls `onChange` per event. */
function useChanges(token, onChange) {
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    let stopped = false;
    const controller = new AbortController();
    (async () => {
      while (!stopped) {
        try {
          const res = await fetch(`${C}/events`, { headers: token ? { Authorization: `Bearer ${token}` } : {}, signal: controller.signal });
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            let cut;
            while ((cut = buffer.indexOf('\n\n')) >= 0) {
              const chunk = buffer.slice(0, cut);
              buffer = buffer.slice(cut + 2);
              if (chunk.includes('event: change')) latest.current(JSON.parse(chunk.split('data: ')[1] ?? '{}'));
            }
          }
        } catch {
          // reconnect below
        }
        if (!stopped) await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    return () => {
      stopped = true;
      controller.abort();
    };
  }, [token]);
}

function Status({ s }) {
  return html`<span class=${`status status-${s}`}>${s}</span>`;
}

function TokenPrompt({ onToken, failed }) {
  const [value, setValue] = useState('');
  return html`<form class="card prompt" onSubmit=${(e) => { e.preventDefault(); onToken(value); }}>
    <h2>Admin token</h2>
    <p class="muted">This sandbox was started with <code>--admin-token</code>. Enter it to see the dashboard.</p>
    ${failed && html`<p class="error" role="alert">That token was refused.</p>`}
    <div class="bar"><label for="token">Token</label>
      <input id="token" type="password" autocomplete="off" value=${value} onInput=${(e) => setValue(e.target.value)} />
      <button type="submit">Open</button></div>
  </form>`;
}

function ClockBar({ client, tenant, clock, refresh, onError }) {
  const [free, setFree] = useState('30m');
  const own = clock && !clock.follows_sandbox_clock;
  const base = own ? `/merchants/${tenant}/clock` : '/clock';
  const go = (path, body) => client.post(`${base}${path}`, body).then(refresh, onError);
  if (!clock) return null;
  return html`<div class="bar clock" aria-label="Clock">
    <span>Sandbox time <strong data-testid="clock-now">${ist(clock.now)}</strong> <span class="muted">(${clock.mode}${own ? ', own clock' : ''})</span></span>
    ${clock.mode === 'manual' && html`
      <button onClick=${() => go('/advance', { by: '1m' })}>+1 min</button>
      <button onClick=${() => go('/advance', { by: '1h' })}>+1 h</button>
      <button onClick=${() => go('/advance', { by: '1d' })}>+1 day</button>
      <form class="bar" onSubmit=${(e) => { e.preventDefault(); go('/advance', { by: free }); }}>
        <label for="advance-by" class="muted">by</label>
        <input id="advance-by" size="6" value=${free} onInput=${(e) => setFree(e.target.value)} />
        <button type="submit">Advance</button>
      </form>
      <button onClick=${() => go('/next')}>Next event</button>`}
  </div>`;
}

function PayoutsView({ client, tenant, accounts, version, open }) {
  const [filter, setFilter] = useState({ status: '', mode: '', van: '' });
  const [rows, setRows] = useState([]);
  const [next, setNext] = useState(null);
  const [total, setTotal] = useState(0);
  const query = (cursor) => {
    const q = new URLSearchParams({ limit: '50' });
    for (const [k, v] of Object.entries(filter)) if (v) q.set(k, v);
    if (cursor !== undefined && cursor !== null) q.set('cursor', String(cursor));
    return client.get(`/merchants/${tenant}/payouts?${q}`);
  };
  useEffect(() => {
    query().then((r) => { setRows(r.payouts); setNext(r.next); setTotal(r.total); });
  }, [tenant, filter, version]);
  const more = () => query(next).then((r) => { setRows([...rows, ...r.payouts]); setNext(r.next); });
  const pick = (k) => (e) => setFilter({ ...filter, [k]: e.target.value });
  return html`<section class="card" aria-label="Payouts">
    <h2>Payouts <span class="muted">(${total} in all, newest first)</span></h2>
    <div class="bar">
      <label>Status <select value=${filter.status} onChange=${pick('status')}><option value="">any</option>${STATUSES.map((s) => html`<option>${s}</option>`)}</select></label>
      <label>Mode <select value=${filter.mode} onChange=${pick('mode')}><option value="">any</option>${Object.entries(MODES).map(([k, v]) => html`<option value=${k}>${v}</option>`)}</select></label>
      <label>VAN <select value=${filter.van} onChange=${pick('van')}><option value="">any</option>${accounts.map((a) => html`<option>${a.account_no}</option>`)}</select></label>
    </div>
    <div class="scroll"><table>
      <thead><tr><th>ref_id</th><th>client_ref_id</th><th>status</th><th class="num">amount</th><th>mode</th><th>VAN</th><th>rule</th><th>updated</th></tr></thead>
      <tbody>${rows.map((p) => html`<tr>
        <td><button class="link" onClick=${() => open(String(p.ref_id))}>${p.ref_id}</button></td>
        <td>${p.client_ref_id}</td><td><${Status} s=${p.status} /></td><td class="num">${money(p.amount)}</td>
        <td>${MODES[p.payment_method]}</td><td>${p.debit_from}</td><td>${p.rule}</td><td>${p.transaction_date} IST</td></tr>`)}</tbody>
    </table></div>
    ${rows.length === 0 && html`<p class="muted">No payouts${Object.values(filter).some(Boolean) ? ' match' : ' yet: try the Demo tab'}.</p>`}
    ${next !== null && html`<button onClick=${more}>More</button>`}
  </section>`;
}

function PayoutDetail({ client, refId, version, back, onError }) {
  const [p, setP] = useState(null);
  const [force, setForce] = useState('Failed');
  const load = () => client.get(`/payouts/${refId}`).then(setP, onError);
  useEffect(load, [refId, version]);
  if (!p) return html`<p class="muted">Loading payout ${refId}…</p>`;
  const t = p.transaction;
  const act = (promise) => promise.then(load, onError);
  return html`<section class="card" aria-label="Payout detail">
    <div class="bar"><button onClick=${back}>← Payouts</button><h2>Payout ${t.ref_id} <${Status} s=${t.status} /></h2></div>
    <p>${money(t.amount)} by ${MODES[t.payment_method]} from ${p.debit_from} to ${t.beneficiary.name} · fee ${money(t.fees)} + tax ${money(t.tax)} · decided by rule <strong>${p.rule}</strong> · ${p.version.toUpperCase()}</p>
    <p class="muted">client_ref_id ${t.client_ref_id} · UTR ${t.bank_ref_number || '—'} · ${t.bank_res_msg || ''}</p>
    <div class="bar"><label>Force status <select onChange=${(e) => setForce(e.target.value)}>${STATUSES.map((s) => html`<option selected=${s === force}>${s}</option>`)}</select></label>
      <button onClick=${() => act(client.post(`/payouts/${refId}/status`, { status: force }))}>Force</button></div>
    <h3>Timeline</h3>
    <div class="scroll"><table><thead><tr><th>status</th><th>at</th><th>message</th><th></th></tr></thead><tbody>
      ${p.timeline.taken.map((s) => html`<tr><td><${Status} s=${s.status} /></td><td>${ist(s.at)}</td><td>${s.bank_res_msg}</td><td class="muted">taken</td></tr>`)}
      ${p.timeline.scheduled.map((s) => html`<tr><td><${Status} s=${s.status} /></td><td>${ist(s.at)}</td><td>${s.bank_res_msg ?? ''}</td><td class="muted">scheduled (${p.rule})</td></tr>`)}
    </tbody></table></div>
    <h3>Webhook deliveries</h3>
    ${p.deliveries.length === 0 && html`<p class="muted">None (no webhook URL, or no status change yet).</p>`}
    ${p.deliveries.map((d) => html`<div class="card" data-testid="delivery">
      <div class="bar"><strong>${d.delivery_id}</strong> <${Status} s=${d.state} /> <span class="muted">${d.event_status} · ${d.version} · ${d.target_url}</span>
        <button onClick=${() => act(client.post(`/webhooks/${d.delivery_id}/redeliver`))}>Redeliver</button></div>
      <div class="scroll"><table><thead><tr><th>#</th><th>at</th><th>HTTP</th><th>error</th><th class="num">latency</th><th>signature</th></tr></thead><tbody>
        ${d.attempts.map((a) => html`<tr data-testid="attempt"><td>${a.n}</td><td>${ist(a.at)}</td><td>${a.status ?? '—'}</td><td>${a.error ?? ''}</td><td class="num">${a.latency_ms} ms</td><td>${a.signature_valid ? 'valid' : 'wrong (chaos)'}</td></tr>`)}
      </tbody></table></div>
      ${d.next_attempt_at && html`<p class="muted">Next attempt ${ist(d.next_attempt_at)}</p>`}
      <details><summary>Body sent</summary><pre>${JSON.stringify(d.body, null, 2)}</pre></details>
    </div>`)}
  </section>`;
}

function AccountsView({ client, accounts, version }) {
  const [ledgers, setLedgers] = useState({});
  useEffect(() => {
    Promise.all(accounts.map((a) => client.get(`/accounts/${a.account_no}/ledger`))).then((all) => setLedgers(Object.fromEntries(all.map((l) => [l.account_no, l]))));
  }, [accounts.map((a) => a.account_no).join(), version]);
  return html`<div>${accounts.map((a) => {
    const l = ledgers[a.account_no];
    return html`<section class="card" aria-label=${`Account ${a.account_no}`}>
      <h2>${a.account_no} <span class="muted">${a.status}</span> · ${money(l?.balance ?? a.balance)}</h2>
      ${l && html`<p class=${l.balanced ? 'ok' : 'bad'}>Ledger sum ${money(l.ledger_sum)}: ${l.balanced ? 'agrees with the balance' : 'DISAGREES with the balance'}</p>
      <div class="scroll"><table><thead><tr><th>#</th><th>at</th><th>type</th><th class="num">amount</th><th class="num">balance</th><th>ref</th><th>note</th></tr></thead><tbody>
        ${l.entries.slice(-100).reverse().map((e) => html`<tr><td>${e.seq}</td><td>${ist(e.at)}</td><td>${e.type}</td><td class="num">${money(e.amount)}</td><td class="num">${money(e.balance_after)}</td><td>${e.ref ?? ''}</td><td>${e.note}</td></tr>`)}
      </tbody></table></div>${l.entries.length > 100 && html`<p class="muted">The newest 100 of ${l.entries.length} entries.</p>`}`}
    </section>`;
  })}</div>`;
}

function RecordsView({ client, tenant, version, kind }) {
  const [rows, setRows] = useState(null);
  const path = { beneficiaries: 'beneficiaries', verifications: 'verifications', checkout: 'checkout' }[kind];
  useEffect(() => { client.get(`/merchants/${tenant}/${path}`).then((r) => setRows(Object.values(r)[0])); }, [tenant, kind, version]);
  if (!rows) return html`<p class="muted">Loading…</p>`;
  const cols = {
    beneficiaries: (b) => [b.bene_id, html`<${Status} s=${b.status} />`, b.bene_name, b.bank_account_number, b.ifsc_code, b.status === 'Pending' ? (b.activates_at ? `Active at ${ist(b.activates_at)}` : 'waits for the control API') : `since ${ist(b.activates_at)}`],
    verifications: (v) => [v.verification_id, v.source_type, v.verification_status, v.verify_response?.valid === false ? html`<span class="bad">invalid</span>` : html`<span class="ok">valid</span>`, money(v.commission), ist(v.at)],
    checkout: (t) => [t.payment_id ?? t.order?.payment_id, html`<${Status} s=${t.status ?? t.order?.status} />`, money(t.order?.gross_amount ?? t.amount), t.payment_mode ?? ''],
  }[kind];
  return html`<section class="card" aria-label=${kind}><h2>${kind[0].toUpperCase() + kind.slice(1)} <span class="muted">(${rows.length})</span></h2>
    ${rows.length === 0 && html`<p class="muted">None yet.</p>`}
    <div class="scroll"><table><tbody>${rows.map((r) => html`<tr>${cols(r).map((c) => html`<td>${c}</td>`)}<td><details><summary>record</summary><pre>${JSON.stringify(r, null, 2)}</pre></details></td></tr>`)}</tbody></table></div>
  </section>`;
}

function RequestsView({ client, version, open }) {
  const [rows, setRows] = useState([]);
  useEffect(() => { client.get('/requests?limit=100').then((r) => setRows(r.requests)); }, [version]);
  return html`<section class="card" aria-label="Requests"><h2>Recent requests</h2><div class="scroll"><table>
    <thead><tr><th>at</th><th>request</th><th>merchant</th><th>status</th><th>rule</th><th>payout</th><th class="num">latency</th></tr></thead>
    <tbody>${rows.map((r) => html`<tr><td>${ist(r.at)}</td><td>${r.method} ${r.path}</td><td>${r.merchant_id ?? ''}</td><td>${r.status ?? 'no answer'}</td><td>${r.rule ?? ''}${r.refused_transitions.length ? html` <span class="bad">refused: ${r.refused_transitions.map((t) => t.reason).join('; ')}</span>` : ''}</td>
      <td>${r.ref_id && html`<button class="link" onClick=${() => open(r.ref_id)}>${r.ref_id}</button>`}</td><td class="num">${r.latency_ms} ms</td></tr>`)}</tbody>
  </table></div></section>`;
}

function DemoView({ client, merchant, open, onError }) {
  const [demos, setDemos] = useState(null);
  const [answer, setAnswer] = useState(null);
  useEffect(() => { client.get('/demos').then(setDemos, onError); }, []);
  const van = merchant.accounts.find((a) => a.status === 'ACTIVE')?.account_no;
  const run = async (demo) => {
    const body = {
      client_ref_id: `DEMO${Date.now()}`, transfer_type: 'BANK', amount: demo.amount, payment_method: demo.amount >= 200000 ? '1003' : '1001', debit_from: van,
      beneficiary_name: 'Demo Payee', beneficiary_email: 'payee@example.com', beneficiary_mobile: '9876543210', account_number: '123456789012', ifsc_code: 'HDFC0001234', purpose: 'VENDOR_PAYOUT', remarks: `demo ${demo.name}`,
    };
    const res = await fetch('/api/v2/public/payment/transfer', { method: 'POST', headers: { ...merchant.headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await res.json().catch(() => null);
    if (res.ok && json?.data?.ref_id) open(String(json.data.ref_id));
    else setAnswer({ demo: demo.name, status: res.status, json });
  };
  if (!demos) return html`<p class="muted">Loading the scenario's demos…</p>`;
  const groups = [...new Set(demos.demos.map((d) => d.group))];
  return html`<section aria-label="Demo an error flow">
    <p class="muted">Each creates a payout for ${merchant.name} from ${van} through the API (scenario ${demos.scenario}), then opens it.</p>
    ${answer && html`<div class="card" role="status"><h3>${answer.demo}: HTTP ${answer.status}</h3><pre>${JSON.stringify(answer.json, null, 2)}</pre></div>`}
    ${groups.map((g) => html`<div class="card"><h2>${g}</h2><div class="grid">
      ${demos.demos.filter((d) => d.group === g).map((d) => html`<div class="demo"><button onClick=${() => run(d).catch(onError)} data-testid=${`demo-${d.name}`}>${money(d.amount)}${d.name !== String(d.amount) ? ` · ${d.name}` : ''}</button><p class="muted">${d.description.replace(/`/g, '')}</p></div>`)}
    </div></div>`)}
  </section>`;
}

function SandboxTools({ client, onError, refresh }) {
  const [name, setName] = useState('demo');
  const [snaps, setSnaps] = useState([]);
  const load = () => client.get('/snapshots').then((r) => setSnaps(r.snapshots), onError);
  useEffect(load, []);
  const act = (p) => p.then(() => { load(); refresh(); }, onError);
  return html`<section class="card" aria-label="Snapshots"><h2>Snapshots and reset (whole sandbox)</h2>
    <form class="bar" onSubmit=${(e) => { e.preventDefault(); act(client.post('/snapshots', { name })); }}>
      <label for="snap-name">Name</label><input id="snap-name" value=${name} onInput=${(e) => setName(e.target.value)} /><button type="submit">Snapshot</button>
      <button type="button" onClick=${() => confirm('Reset the whole sandbox to its fixtures?') && act(client.post('/reset'))}>Reset</button>
    </form>
    <ul>${snaps.map((s) => html`<li>${s.name} <span class="muted">${ist(s.at)}</span> <button onClick=${() => act(client.post(`/snapshots/${s.name}/restore`))}>Restore ${s.name}</button></li>`)}</ul>
  </section>`;
}

const TABS = ['Payouts', 'Accounts', 'Beneficiaries', 'Verifications', 'Checkout', 'Requests', 'Demo', 'Sandbox'];

function Dashboard({ client, token }) {
  const [merchants, setMerchants] = useState(null);
  const [tenant, setTenant] = useState(sessionStorage.getItem('payout-sandbox-tenant') ?? '');
  const [tab, setTab] = useState('Payouts');
  const [detail, setDetail] = useState(null);
  const [version, setVersion] = useState(0);
  const [error, setError] = useState(null);
  const onError = useCallback((e) => setError(e.message ?? String(e)), []);
  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  useEffect(() => { client.get('/merchants').then((r) => { setMerchants(r.merchants); if (!r.merchants.some((m) => m.merchant_id === tenant)) setTenant(r.merchants[0]?.merchant_id ?? ''); }, onError); }, [version]);
  useChanges(token, refresh);
  const merchant = useMemo(() => merchants?.find((m) => m.merchant_id === tenant), [merchants, tenant]);
  const open = (refId) => { setDetail(refId); setTab('Payouts'); };
  if (!merchants) return html`<p class="muted">Loading…</p>`;
  const props = { client, tenant, version, onError, open };
  const view = !merchant ? null
    : detail ? html`<${PayoutDetail} ...${props} refId=${detail} back=${() => setDetail(null)} />`
    : tab === 'Payouts' ? html`<${PayoutsView} ...${props} accounts=${merchant.accounts} />`
    : tab === 'Accounts' ? html`<${AccountsView} ...${props} accounts=${merchant.accounts} />`
    : tab === 'Requests' ? html`<${RequestsView} ...${props} />`
    : tab === 'Demo' ? html`<${DemoView} ...${props} merchant=${merchant} />`
    : tab === 'Sandbox' ? html`<${SandboxTools} ...${props} refresh=${refresh} />`
    : html`<${RecordsView} ...${props} kind=${tab.toLowerCase()} />`;
  return html`<header>
      <h1>payout-sandbox</h1>
      <label>Tenant <select data-testid="tenant" value=${tenant} onChange=${(e) => { setTenant(e.target.value); sessionStorage.setItem('payout-sandbox-tenant', e.target.value); setDetail(null); }}>
        ${merchants.map((m) => html`<option value=${m.merchant_id}>${m.name} (${m.merchant_id})</option>`)}</select></label>
      <${ClockBar} client=${client} tenant=${tenant} clock=${merchant?.clock} refresh=${refresh} onError=${onError} />
    </header>
    <main>
      ${error && html`<p class="error card" role="alert">${error} <button onClick=${() => setError(null)}>Dismiss</button></p>`}
      <nav aria-label="Views">${TABS.map((t) => html`<button aria-current=${tab === t && !detail ? 'page' : undefined} onClick=${() => { setTab(t); setDetail(null); }}>${t}</button>`)}</nav>
      ${view}
    </main>`;
}

function App() {
  const [token, setToken] = useState(sessionStorage.getItem(TOKEN_KEY) ?? '');
  const [state, setState] = useState('checking');
  useEffect(() => {
    api(token).get('/health').then(() => setState('open'), (e) => setState(e.status === 401 ? (token ? 'refused' : 'token') : 'down'));
  }, [token]);
  const use = (t) => { sessionStorage.setItem(TOKEN_KEY, t); setToken(t); };
  if (state === 'checking') return html`<p class="muted">Connecting…</p>`;
  if (state === 'token' || state === 'refused') return html`<${TokenPrompt} onToken=${use} failed=${state === 'refused'} />`;
  if (state === 'down') return html`<p class="error">The sandbox does not answer.</p>`;
  return html`<${Dashboard} client=${api(token)} token=${token} />`;
}

render(html`<${App} />`, document.getElementById('app'));
