// The dashboard around its views: tenant picker, balance and clock, the views' tabs, and which
// view the route shows. Everything it shows refreshes when the change stream says state changed.
import { html, useCallback, useEffect, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { useChanges, useGet } from './api.js';
import { money, Waiting } from './format.js';
import { href, useRoute } from './route.js';
import * as accounts from './views/accounts.js';
import * as beneficiaries from './views/beneficiaries.js';
import * as checkout from './views/checkout.js';
import { ClockBar } from './views/clock.js';
import * as demos from './views/demos.js';
import * as failures from './views/failures.js';
import * as journal from './views/journal.js';
import * as payout from './views/payout.js';
import * as payouts from './views/payouts.js';
import * as refused from './views/refused.js';
import * as review from './views/review.js';
import * as sequence from './views/sequence.js';
import * as snapshots from './views/snapshots.js';
import * as verifications from './views/verifications.js';
import * as webhooks from './views/webhooks.js';

const TABS = [
  ['payouts', 'Payouts', payouts],
  ['refused', 'Refused', refused],
  ['review', 'Review', review],
  ['accounts', 'Accounts', accounts],
  ['beneficiaries', 'Beneficiaries', beneficiaries],
  ['verifications', 'Verifications', verifications],
  ['checkout', 'Checkout', checkout],
  ['webhooks', 'Webhooks', webhooks],
  ['requests', 'Requests', journal],
  ['sequence', 'Sequence', sequence],
  ['demo', 'Demo', demos],
  ['failures', 'Outages & chaos', failures],
  ['sandbox', 'Sandbox', snapshots],
];
const known = (tab) => TABS.some(([id]) => id === tab);
/** The views that only change things: not shown over a trace (show-trace: read-only). */
const WRITING = new Set(['demo', 'failures', 'sandbox']);
const viewOf = (route) => (route.tab === 'payouts' && route.ref ? payout : (TABS.find(([id]) => id === route.tab)?.[2] ?? payouts));

function Balance({ merchant }) {
  const total = merchant.accounts.reduce((sum, a) => sum + a.balance, 0);
  const each = merchant.accounts.map((a) => `${a.account_no} ${money(a.balance)}`).join(' · ');
  return html`<span title=${each}>Balance <strong data-testid="balance">${money(Math.round(total * 100) / 100)}</strong>${merchant.accounts.length > 1 && html` <span class="muted">(${merchant.accounts.length} VANs)</span>`}</span>`;
}

/** The dashboard once the admin token (if any) is known; `onLocked` when the control API refuses it. */
export function Dashboard({ client, token, onLocked }) {
  const [version, setVersion] = useState(0);
  const [error, setError] = useState(null);
  const onError = useCallback((e) => setError(e.message ?? String(e)), []);
  const refresh = useCallback(() => {
    client.discardPrefetched();
    setVersion((v) => v + 1);
  }, [client]);
  const answer = useGet(client, '/merchants', [version]);
  const merchants = answer.data?.merchants;
  // `payout-sandbox show-trace` answers health with readonly: a trace, nothing to change, no change stream.
  const health = useGet(client, '/health');
  const readonly = health.data?.readonly === true;
  useEffect(() => {
    if (answer.error?.status === 401) onLocked();
  }, [answer.error]);
  useChanges(token, merchants !== undefined && (health.data !== undefined || health.error !== null) && !readonly, refresh);
  // A view's data is asked for as the route moves, not once the view is on screen; at the start,
  // beside the tenant list rather than after it.
  const prefetch = (next) => {
    client.discardPrefetched();
    if (next.tenant)
      viewOf(next).prefetch?.(
        client,
        next,
        merchants?.find((m) => m.merchant_id === next.tenant),
      );
  };
  const [route, go] = useRoute(prefetch);
  useEffect(() => prefetch(route), []);
  const merchant = merchants?.find((m) => m.merchant_id === route.tenant);
  // A route naming no known tenant or view shows the first tenant's (the URL says so too).
  useEffect(() => {
    if (!merchants?.length) return;
    const tab = merchant && known(route.tab) && !(readonly && WRITING.has(route.tab)) ? route.tab : 'payouts';
    const canonical = { tenant: merchant ? route.tenant : merchants[0].merchant_id, tab, ref: merchant && tab === 'payouts' ? route.ref : null };
    const same = canonical.tenant === route.tenant && canonical.tab === route.tab && canonical.ref === route.ref;
    if (!same || !location.hash) go(canonical, { replace: true });
  }, [merchants, route, readonly]);

  // A 401 is the token prompt's to show.
  if (!merchants)
    return answer.error && answer.error.status !== 401
      ? html`<${Waiting} what="the tenants" error=${answer.error} />`
      : html`<p class="muted">Loading the dashboard…</p>`;
  const View = viewOf(route).View;
  return html`<header>
      <h1>payout-sandbox</h1>
      <label>Tenant <select data-testid="tenant" value=${route.tenant} onChange=${(e) => go({ tenant: e.target.value, tab: route.tab, ref: null })}>
        ${merchants.map((m) => html`<option value=${m.merchant_id}>${m.name} (${m.merchant_id})</option>`)}</select></label>
      ${merchant && html`<${Balance} merchant=${merchant} /><${ClockBar} client=${client} merchant=${merchant} refresh=${refresh} onError=${onError} readonly=${readonly} />`}
      ${readonly && html`<strong class="readonly-badge" data-testid="readonly" title=${health.data.trace?.file ?? ''}>Read-only trace${health.data.trace?.file ? `: ${health.data.trace.file.split(/[\\/]/).pop()}` : ''}</strong>`}
    </header>
    <main>
      ${error && html`<p class="error card" role="alert">${error} <button onClick=${() => setError(null)}>Dismiss</button></p>`}
      <nav aria-label="Views">${TABS.filter(([id]) => !(readonly && WRITING.has(id))).map(([id, label]) => html`<a href=${href({ tenant: route.tenant, tab: id })} aria-current=${route.tab === id && !route.ref ? 'page' : undefined}>${label}</a>`)}</nav>
      ${merchant && html`<${View} key=${href(route)} client=${client} route=${route} go=${go} merchant=${merchant} version=${version} refresh=${refresh} onError=${onError} readonly=${readonly} />`}
      ${merchants.length === 0 && html`<p class="muted">No merchants: create one through the control API (POST /__sandbox/merchants).</p>`}
    </main>`;
}
