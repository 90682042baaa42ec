// The dashboard around its views: tenant picker, balance and clock, the views' tabs, and which
// view the route shows. Everything it shows refreshes when the change stream says state changed.
import { html, useCallback, useEffect, useRef, useState } from '/__sandbox/ui/vendor/preact-htm.js';
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
import * as story from './views/story.js';
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
  ['demo', 'Stories', demos],
  ['failures', 'Outages & chaos', failures],
  ['sandbox', 'Sandbox', snapshots],
];
const known = (tab) => tab === 'story' || TABS.some(([id]) => id === tab);
/** The views that only change things: not shown over a trace (show-trace: read-only). */
const WRITING = new Set(['demo', 'story', 'failures', 'sandbox']);
const viewOf = (route) =>
  route.tab === 'payouts' && route.ref ? payout : route.tab === 'story' ? story : (TABS.find(([id]) => id === route.tab)?.[2] ?? payouts);
/** The view's name, for the page's title. */
const titleOf = (route) =>
  route.tab === 'payouts' && route.ref
    ? `Payout ${route.ref}`
    : route.tab === 'story'
      ? `Story ${route.ref ?? ''}`
      : (TABS.find(([id]) => id === route.tab)?.[1] ?? 'Payouts');

const THEME_KEY = 'payout-sandbox-theme';
const PRESENTER_KEY = 'payout-sandbox-presenter';

/** A stored choice of the page's look; `apply(value)` puts it on <html>. */
function useLook(key, initial, apply) {
  const [value, setValue] = useState(() => localStorage.getItem(key) ?? initial);
  useEffect(() => apply(value), [value, apply]);
  return [
    value,
    (next) => {
      localStorage.setItem(key, next);
      setValue(next);
    },
  ];
}

/** Whether a media query holds, following it. */
function useMedia(query) {
  const [matches, setMatches] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const on = () => setMatches(list.matches);
    list.addEventListener('change', on);
    return () => list.removeEventListener('change', on);
  }, [query]);
  return matches;
}

/** Dark mode (following the system until switched) and presenter type (large), beside the header. */
function Looks() {
  const systemDark = useMedia('(prefers-color-scheme: dark)');
  // data-theme is always set: the choice, else the system's (style.css has one dark rule).
  const applyTheme = useCallback((t) => document.documentElement.setAttribute('data-theme', t === '' ? (systemDark ? 'dark' : 'light') : t), [systemDark]);
  const applyPresenter = useCallback(
    (p) => (p === 'on' ? document.documentElement.setAttribute('data-presenter', 'on') : document.documentElement.removeAttribute('data-presenter')),
    [],
  );
  const [theme, setTheme] = useLook(THEME_KEY, '', applyTheme);
  const [presenter, setPresenter] = useLook(PRESENTER_KEY, '', applyPresenter);
  const dark = theme === '' ? systemDark : theme === 'dark';
  return html`<span class="looks">
    <button type="button" aria-pressed=${dark} data-testid="theme" onClick=${() => setTheme(dark ? 'light' : 'dark')} title="Dark mode (follows the system until switched)">${dark ? '☾' : '☀'}<span class="look-text"> Dark mode</span></button>
    <button type="button" aria-pressed=${presenter === 'on'} data-testid="presenter" onClick=${() => setPresenter(presenter === 'on' ? '' : 'on')} title="Large type for a projector">A<span class="look-text"> Presenter</span></button>
  </span>`;
}

function Balance({ merchant }) {
  const total = merchant.accounts.reduce((sum, a) => sum + a.balance, 0);
  const each = merchant.accounts.map((a) => `${a.account_no} ${money(a.balance)}`).join(' · ');
  return html`<span title=${each}>Balance <strong data-testid="balance">${money(Math.round(total * 100) / 100)}</strong>${merchant.accounts.length > 1 && html` <span class="muted">(${merchant.accounts.length} VANs)</span>`}</span>`;
}

/** The page's title: it names the view (a screen reader and the tab strip say where you are). */
function Title({ text }) {
  useEffect(() => {
    document.title = text;
  }, [text]);
  return null;
}

/** The dashboard once the admin token (if any) is known; `onLocked` when the control API refuses it. */
export function Dashboard({ client, token, onLocked }) {
  const narrow = useMedia('(max-width: 640px)');
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
  const askedFor = useRef(null);
  useEffect(() => {
    if (!merchants?.length) return;
    // A tenant made a moment ago (a story's merchant) is not in the list yet: ask again once before giving up on it.
    if (!merchant && route.tenant && askedFor.current !== route.tenant) {
      askedFor.current = route.tenant;
      refresh();
      return;
    }
    // A known view is kept for the first tenant too (#/stories opens the stories); a deep link only for its own tenant.
    const tab = known(route.tab) && !(readonly && WRITING.has(route.tab)) && (merchant || route.tab !== 'story') ? route.tab : 'payouts';
    const deep = merchant && (tab === 'payouts' || tab === 'story');
    const canonical = { tenant: merchant ? route.tenant : merchants[0].merchant_id, tab, ref: deep ? route.ref : null, at: deep ? route.at : null };
    const same = canonical.tenant === route.tenant && canonical.tab === route.tab && canonical.ref === route.ref && canonical.at === route.at;
    if (!same || !location.hash) go(canonical, { replace: true });
  }, [merchants, route, readonly]);

  // A 401 is the token prompt's to show.
  if (!merchants)
    return answer.error && answer.error.status !== 401
      ? html`<${Waiting} what="the tenants" error=${answer.error} />`
      : html`<p class="muted">Loading the dashboard…</p>`;
  const View = viewOf(route).View;
  const badge =
    readonly &&
    html`<strong class="readonly-badge" data-testid="readonly" title=${health.data.trace?.file ?? ''}>Read-only trace${health.data.trace?.file ? `: ${health.data.trace.file.split(/[\\/]/).pop()}` : ''}</strong>`;
  // On a phone the header is one line: balance, clock (and a trace's badge) behind a button.
  const status = html`${merchant && html`<${Balance} merchant=${merchant} /><${ClockBar} client=${client} merchant=${merchant} refresh=${refresh} onError=${onError} readonly=${readonly} />`}${narrow ? badge : ''}`;
  return html`<a class="skip" href="#main" onClick=${(e) => {
    e.preventDefault();
    document.getElementById('main')?.focus();
  }}>Skip to the view</a>
    <${Title} text=${`${titleOf(route)}${merchant ? ` · ${merchant.name}` : ''} · payout-sandbox`} />
    <header class=${narrow ? 'narrow' : ''}>
      <h1>payout-sandbox</h1>
      <label><span class="label-text">Tenant</span> <select data-testid="tenant" value=${route.tenant} onChange=${(e) => go({ tenant: e.target.value, tab: route.tab === 'story' ? 'demo' : route.tab, ref: null })}>
        ${merchants.map((m) => html`<option value=${m.merchant_id}>${m.name} (${m.merchant_id})</option>`)}</select></label>
      ${narrow ? html`<details class="header-more"><summary>Clock</summary>${status}</details>` : status}
      <${Looks} />
      ${narrow ? '' : badge}
    </header>
    <main id="main" tabindex="-1">
      ${error && html`<p class="error card" role="alert">${error} <button onClick=${() => setError(null)}>Dismiss</button></p>`}
      <nav aria-label="Views">${TABS.filter(([id]) => !(readonly && WRITING.has(id))).map(
        ([id, label]) =>
          html`<a href=${href({ tenant: route.tenant, tab: id })} aria-current=${(route.tab === id || (id === 'demo' && route.tab === 'story')) && !(id === 'payouts' && route.ref) ? 'page' : undefined}>${label}</a>`,
      )}</nav>
      ${merchant && html`<${View} key=${href(route)} client=${client} route=${route} go=${go} merchant=${merchant} version=${version} refresh=${refresh} onError=${onError} readonly=${readonly} />`}
      ${merchants.length === 0 && html`<p class="muted">No merchants: create one through the control API (POST /__sandbox/merchants).</p>`}
    </main>`;
}
