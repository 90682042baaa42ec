// The sequence view: a merchant's run (or one payout's life) as a sequence diagram, drawn from its
// trace (GET /__sandbox/merchants/{id}/trace): lanes for the merchant's code, the sandbox and the
// webhook receiver; an arrow for each request and its answer, each delivery attempt and its
// answer; the payout's timeline steps on the sandbox lane at their sandbox time; the clock's moves
// across all lanes; faults and review findings marked. Plain HTML and CSS (style.css, .seq-*).
import { html, useEffect, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { money, RealTime, Status, Waiting, When } from '../format.js';
import { href } from '../route.js';

export const tracePath = (tenant, ref) => `/merchants/${encodeURIComponent(tenant)}/trace${ref ? `?ref_id=${encodeURIComponent(ref)}` : ''}`;

/** How many events the run's view shows at first (the newest); "Show earlier" adds as many again. */
const PAGE = 150;
/** The run's view asks the control API for the newest `last` of each list only: a page, not the run. */
const pagePath = (tenant, last) => `/merchants/${encodeURIComponent(tenant)}/trace?last=${last}`;

export const prefetch = (client, route) => client.prefetch(pagePath(route.tenant, PAGE));
/** The payout page asks for its own sequence beside the payout. */
export const prefetchPayout = (client, route) => client.prefetch(tracePath(route.tenant, route.ref));

const ms = (iso) => Date.parse(iso);
const push = (map, key, value) => (map.get(key) ?? map.set(key, []).get(key)).push(value);

/** A fault: no answer, a 5xx, or an answer decided by chaos, an outage or a fault rule. */
const faulty = (r) => r.status === null || r.status >= 500 || /^(chaos|outage|fault):/.test(r.rule ?? '');

/**
 * The trace as events in the order they happened: by sandbox time; at one sandbox instant by real
 * time where both are known (a request, a status change, a clock move), else requests, then
 * status changes, then webhook attempts, then findings.
 */
export function eventsOf(trace) {
  const findingsOf = new Map();
  for (const f of trace.review?.findings ?? []) for (const e of f.evidence) push(findingsOf, e.id, f);
  const events = [];
  const changed = new Map();
  for (const p of trace.payouts) {
    p.timeline.taken.forEach((s, i) => {
      const real = s.real_at ? ms(s.real_at) : null;
      if (real !== null) changed.set(`${p.ref_id}/${s.status}`, real);
      events.push({ kind: 'step', at: ms(s.at), real, rank: 1, p, s, first: i === 0, findings: i === 0 ? (findingsOf.get(p.ref_id) ?? []) : [] });
    });
    for (const s of p.timeline.scheduled) events.push({ kind: 'scheduled', at: s.at ? ms(s.at) : Number.MAX_SAFE_INTEGER, real: null, rank: 1, p, s });
  }
  for (const r of trace.requests) {
    events.push({
      kind: 'request',
      at: ms(r.at),
      real: r.real_at ? ms(r.real_at) - r.latency_ms : null,
      rank: 0,
      r,
      findings: findingsOf.get(r.request_id) ?? [],
    });
  }
  for (const d of trace.deliveries) {
    const after = changed.get(`${d.ref_id}/${d.event_status}`);
    for (const a of d.attempts) {
      const real = after !== undefined && ms(a.at) === ms(d.created_at) ? after + a.n / 1000 : null;
      events.push({ kind: 'attempt', at: ms(a.at), real, rank: 2, d, a, findings: findingsOf.get(d.delivery_id) ?? [] });
    }
  }
  for (const run of trace.probes ?? []) for (const c of run.checks) events.push({ kind: 'probe', at: ms(run.at), real: null, rank: 2, run, c });
  for (const m of trace.clock_moves) events.push({ kind: 'clock', at: ms(m.from), real: ms(m.real_at), rank: 0, m });
  // A finding comes right after the last request it names.
  const ended = new Map(trace.requests.map((r) => [r.request_id, r.real_at ? ms(r.real_at) : null]));
  for (const f of trace.review?.findings ?? []) {
    const reals = f.evidence.map((e) => ended.get(e.id)).filter((t) => typeof t === 'number');
    events.push({ kind: 'finding', at: ms(f.at), real: reals.length > 0 ? Math.max(...reals) + 0.5 : null, rank: 3, f });
  }
  events.forEach((e, i) => {
    e.i = i;
  });
  return events.sort((x, y) => x.at - y.at || (x.real !== null && y.real !== null && x.real !== y.real ? x.real - y.real : x.rank - y.rank || x.i - y.i));
}

function Findings({ list }) {
  return list.map((f) => html` <span class=${`tag ${f.severity === 'low' ? '' : 'bad'}`} title=${f.detail}>⚠ ${f.rule}</span>`);
}

function Arrow({ from, to, bad, dashed, children }) {
  const dir = to > from ? 'right' : 'left';
  return html`<div class=${`seq-arrow seq-${Math.min(from, to)}${Math.max(from, to)} seq-${dir}${bad ? ' bad' : ''}${dashed ? ' dashed' : ''}`}><span class="seq-label">${children}</span></div>`;
}

/** A body as sent: pretty when it is JSON. */
function pretty(body) {
  if (body === null) return '(none)';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** One side of an exchange as text: its first line, headers, and body. */
function messageText(first, m) {
  const headers = Object.entries(m.headers).map(([k, v]) => `${k}: ${v}`);
  const more = m.body_truncated ? `\n… (${m.body_size} bytes in all)` : '';
  return [first, ...headers, '', pretty(m.body)].join('\n') + more;
}

const quote = (text) => `'${text.replace(/'/g, "'\\''")}'`;
const CREDENTIALS = {
  'x-merchant-email': '$MERCHANT_EMAIL',
  'x-api-key': '$API_KEY',
  'x-api-secret': '$API_SECRET',
  MerchantId: '$MERCHANT_ID',
  AccessToken: '$ACCESS_TOKEN',
};

/**
 * The request as a curl command line: the merchant's credentials as shell variables
 * ($MERCHANT_EMAIL, $API_KEY, $API_SECRET) unless `headers` (the real ones) are given.
 */
export function curlOf(r, headers = null) {
  const checkout = /\/api\/v1\/payment\/transaction\//.test(r.url);
  const names = checkout ? ['MerchantId', 'AccessToken'] : ['x-merchant-email', 'x-api-key', 'x-api-secret'];
  const lines = [`curl -sS -X ${r.method} ${quote(new URL(r.url, location.origin).href)}`];
  for (const name of names) {
    const value = headers ? (headers[name] ?? headers[name.toLowerCase()]) : CREDENTIALS[name];
    lines.push(headers ? `-H ${quote(`${name}: ${value}`)}` : `-H "${name}: ${value}"`);
  }
  const type = Object.entries(r.request.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  if (r.request.body !== null && r.request.body !== '') {
    if (type) lines.push(`-H ${quote(`content-type: ${type}`)}`);
    lines.push(`--data-raw ${quote(r.request.body)}`);
  }
  return lines.join(' \\\n  ');
}

function CopyCurl({ r, headers }) {
  const [withCredentials, setWith] = useState(false);
  const [copied, setCopied] = useState(false);
  // Open or closed as the user left it, whatever re-renders the sequence meanwhile (the change stream).
  const [open, setOpen] = useState(false);
  const text = curlOf(r, withCredentials ? headers : null);
  return html`<details class="seq-more curl" open=${open} onToggle=${(e) => setOpen(e.currentTarget.open)}><summary>copy as curl</summary>
    <label><input type="checkbox" checked=${withCredentials} disabled=${!headers} onChange=${(e) => setWith(e.target.checked)} /> with this merchant's credentials</label>
    <button type="button" onClick=${() =>
      navigator.clipboard?.writeText(text).then(
        () => setCopied(true),
        () => setCopied(false),
      )}>Copy</button>${copied ? html` <span role="status">copied</span>` : ''}
    <pre data-testid="curl">${text}</pre></details>`;
}

function Exchange({ r, findings, route, tenant, headers }) {
  let amount = null;
  try {
    amount = r.request.body ? JSON.parse(r.request.body).amount : null;
  } catch {
    // Not JSON.
  }
  const fault = faulty(r);
  const code = r.error ? (r.error.code ?? r.error.message) : null;
  return html`<div class="seq-ex" data-testid="seq-request" data-request=${r.request_id}>
    <${Arrow} from=${0} to=${1}><${When} at=${r.at} /> <strong>${r.method}</strong> ${r.url}${typeof amount === 'number' ? html` <strong>${money(amount)}</strong>` : ''}<//>
    <${Arrow} from=${1} to=${0} bad=${fault || (r.status ?? 500) >= 400} dashed=${r.status === null}>
      ${r.status === null ? 'no answer (connection closed)' : html`<strong>${r.status}</strong>`}${code ? ` ${code}` : ''}${r.rule ? html` · rule <strong>${r.rule}</strong>` : ''}${
        r.ref_id && !route.ref ? html` · <a class="link" href=${href({ tenant, tab: 'payouts', ref: r.ref_id })}>payout ${r.ref_id}</a>` : ''
      } · ${r.latency_ms} ms${fault ? html` <span class="tag bad">⚡ fault</span>` : ''}${r.refused_transitions.length ? html` <span class="tag bad">transition refused</span>` : ''}<${Findings} list=${findings} />
    <//>
    <${CopyCurl} r=${r} headers=${headers} />
    <details class="seq-more"><summary>request and answer</summary><pre>${messageText(`${r.method} ${r.url}`, r.request)}</pre><pre>${messageText(String(r.status ?? 'no answer'), r.response)}${
      r.bodies_dropped ? '\n(bodies dropped: the journal kept newer ones)' : ''
    }</pre></details>
  </div>`;
}

function Attempt({ d, a, findings, many }) {
  const kind = a.kind ?? 'genuine';
  const failed = a.status === null || a.status < 200 || a.status >= 300;
  return html`<div class="seq-ex" data-testid="seq-delivery">
    <${Arrow} from=${1} to=${2} bad=${!a.signature_valid}><${When} at=${a.at} /> webhook <${Status} s=${d.event_status} />${many ? ` payout ${d.ref_id}` : ''} · ${d.delivery_id} #${a.n}${
      kind === 'genuine' ? '' : html` <span class="tag bad">${kind}</span>`
    }<//>
    <${Arrow} from=${2} to=${1} bad=${failed} dashed=${a.status === null}>${a.status === null ? `✕ ${a.error ?? 'no answer'}` : html`<strong>${a.status}</strong>`} · ${a.latency_ms} ms${
      // A finding of the delivery (an endpoint that kept failing) is shown on its failed attempts, not on the one acknowledged.
      failed ? html`<${Findings} list=${findings} />` : ''
    }<//>
  </div>`;
}

function Row({ e, route, tenant, many, headers }) {
  if (e.kind === 'request') return html`<${Exchange} r=${e.r} findings=${e.findings} route=${route} tenant=${tenant} headers=${headers} />`;
  if (e.kind === 'attempt') return html`<${Attempt} d=${e.d} a=${e.a} findings=${e.findings} many=${many} />`;
  if (e.kind === 'step') {
    const { p, s } = e;
    return html`<div class="seq-note" data-testid="seq-step"><${When} at=${s.at} /> ${e.first || many ? html`payout <a class="link" href=${href({ tenant, tab: 'payouts', ref: p.ref_id })}>${p.ref_id}</a> ` : ''}<${Status} s=${s.status} />${
      s.bank_res_msg ? html` <span class="muted">${s.bank_res_msg}</span>` : ''
    }${e.first && p.initialize_fault ? html` <span class="tag bad">⚡ initialize answered with a fault</span>` : ''}${!e.first && s.status === 'Failed' && p.reversed ? html` <span class="tag bad">reversed</span>` : ''}<${Findings} list=${e.findings} /></div>`;
  }
  if (e.kind === 'scheduled') {
    const { s } = e;
    return html`<div class="seq-note scheduled" data-testid="seq-scheduled">next for payout <a class="link" href=${href({ tenant, tab: 'payouts', ref: e.p.ref_id })}>${e.p.ref_id}</a>: <${Status} s=${s.status} /> ${
      s.at ? html`at <${When} at=${s.at} />` : `on status check ${s.after_polls}`
    } <span class="muted">(scheduled)</span></div>`;
  }
  if (e.kind === 'probe') {
    const { c } = e;
    return html`<div class="seq-ex" data-testid="seq-probe">
      <${Arrow} from=${1} to=${2}><${When} at=${e.run.at} /> probe <strong>${c.check}</strong><//>
      <${Arrow} from=${2} to=${1} bad=${!c.passed}>${c.got} · ${c.passed ? 'pass' : 'FAIL'}<//>
    </div>`;
  }
  if (e.kind === 'clock') {
    const { m } = e;
    return html`<div class="seq-span seq-clock" data-testid="seq-clock"><strong>${m.clock === 'sandbox' ? 'Sandbox clock' : "Merchant's clock"}</strong> advanced ${duration(m.by_ms)}: <${When} at=${m.from} /> → <${When} at=${m.to} /></div>`;
  }
  const { f } = e;
  return html`<div class=${`seq-span seq-finding ${f.severity}`} data-testid="seq-finding"><span class=${`tag ${f.severity === 'low' ? '' : 'bad'}`}>⚠ ${f.severity}</span> <strong>${f.rule}</strong> <${When} at=${f.at} />: ${f.detail}</div>`;
}

/** A row's identity across refreshes (an open "copy as curl" stays open as events arrive). */
function keyOf(e) {
  switch (e.kind) {
    case 'request':
      return `r:${e.r.request_id}`;
    case 'attempt':
      return `a:${e.d.delivery_id}:${e.a.n}`;
    case 'step':
      return `s:${e.p.ref_id}:${e.s.status}:${e.s.at}`;
    case 'scheduled':
      return `n:${e.p.ref_id}:${e.s.status}:${e.s.at ?? e.s.after_polls}`;
    case 'probe':
      return `p:${e.run.at}:${e.c.check}`;
    case 'clock':
      return `c:${e.m.from}:${e.m.to}`;
    default:
      return `f:${e.f.rule}:${e.f.at}:${e.f.payment ?? ''}`;
  }
}

const count = (n, what) => `${n} ${what}${n === 1 ? '' : 's'}`;

function duration(ms) {
  const parts = [];
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1000],
  ]) {
    if (ms >= size) {
      parts.push(`${Math.floor(ms / size)} ${unit}`);
      ms %= size;
    }
  }
  return parts.join(' ') || `${ms} ms`;
}

/**
 * The diagram of a trace. `onEarlier`: the trace is a page of the run (`?last=`), and this asks
 * for a longer one. On a payout's page or a story, each event has a link that opens the page at it.
 */
export function Sequence({ trace, route, onEarlier = null, headers = null }) {
  const events = eventsOf(trace);
  const from = 0;
  const tenant = trace.merchant.merchant_id;
  const linked = route.ref !== null && route.ref !== undefined;
  const target = /^e(\d+)$/.exec(route.at ?? '')?.[1];
  useEffect(() => {
    if (target !== undefined) document.getElementById(`ev-${target}`)?.scrollIntoView({ block: 'center' });
  }, [target]);
  const earlier = trace.cut.filter((c) => /\(last=\d+\)$/.test(c.why)).reduce((n, c) => Math.max(n, c.left_out), 0);
  const attempts = trace.deliveries.reduce((n, d) => n + d.attempts.length, 0);
  return html`<div class="seq" data-testid="sequence">
    <p class="muted">${count(trace.requests.length, 'request')} · ${count(trace.payouts.length, 'payout')} · ${count(attempts, 'webhook attempt')}${
      trace.review ? ` · ${count(trace.review.findings.length, 'finding')}` : ''
    } · made at <${RealTime} at=${trace.generated_at} /> <span class="muted">(the times below are sandbox times)</span></p>
    ${trace.cut.filter((c) => !/\(last=\d+\)$/.test(c.why)).map((c) => html`<p class="muted" role="note">Not in this trace: ${c.left_out} ${c.part} (${c.why}).</p>`)}
    ${onEarlier && earlier > 0 && html`<p><button onClick=${onEarlier}>Show earlier</button> <span class="muted">${earlier} earlier requests or deliveries not loaded</span></p>`}
    <div class="seq-lanes" aria-hidden="true"><span>Merchant (your code)</span><span>Sandbox</span><span>Webhook receiver</span></div>
    <div class="seq-body">
      ${events.length === 0 && html`<p class="seq-note">Nothing yet: no request, payout or delivery in the trace.</p>`}
      ${events
        .slice(from)
        .map(
          (e, n) =>
            html`<div key=${keyOf(e)} id=${`ev-${from + n}`} class=${`seq-event${target === String(from + n) ? ' target' : ''}`}>${
              linked
                ? html`<a class="moment" href=${href({ ...route, at: `e${from + n}` })} title="A link that opens the page at this event" aria-label=${`Link to event ${from + n + 1}`}>#</a>`
                : ''
            }<${Row} e=${e} route=${route} tenant=${tenant} many=${trace.payouts.length > 1} headers=${headers} /></div>`,
        )}
    </div>
  </div>`;
}

/** One payout's sequence, on its page. */
export function PayoutSequence({ client, route, version, headers = null }) {
  const answer = useGet(client, tracePath(route.tenant, route.ref), [version]);
  if (!answer.data) {
    return answer.error?.status === 404
      ? html`<p class="muted">Not in the trace (the journal no longer holds its requests, or the trace was cut).</p>`
      : html`<${Waiting} what="the sequence" error=${answer.error} />`;
  }
  return html`<${Sequence} trace=${answer.data} route=${route} headers=${headers} />`;
}

/** The whole run of the tenant: its newest events, a page at a time from the control API (`?last=`). */
export function View({ client, route, version, merchant }) {
  const [last, setLast] = useState(PAGE);
  const answer = useGet(client, pagePath(route.tenant, last), [version]);
  if (!answer.data) return html`<${Waiting} what="the run's sequence" error=${answer.error} />`;
  return html`<section class="card" aria-label="Sequence">
    <h2>Sequence of ${answer.data.merchant.name}'s run</h2>
    <${Sequence} trace=${answer.data} route=${route} onEarlier=${() => setLast(last + PAGE)} headers=${merchant?.headers ?? null} />
  </section>`;
}
