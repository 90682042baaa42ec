// Where the dashboard is, kept in the URL hash (#/m/<merchant_id>/<tab>[/<ref>[/<at>]]) so Back
// and Forward move between views and a link (or a screenshot tool) opens one directly: `ref` a
// payout's ref_id (or a story's name), `at` a moment of it (an event of its sequence, a story's step).
import { useEffect, useRef, useState } from '/__sandbox/ui/vendor/preact-htm.js';

const TENANT_KEY = 'payout-sandbox-tenant';

export function href({ tenant, tab, ref, at }) {
  return `#/m/${encodeURIComponent(tenant)}/${tab}${ref ? `/${encodeURIComponent(ref)}${at !== undefined && at !== null ? `/${encodeURIComponent(at)}` : ''}` : ''}`;
}

/** The hash's route; a tenant it does not name is the one used last in this tab. */
function read() {
  const [, m, tenant, tab, ref, at] = location.hash.split('/').map(decodeURIComponent);
  if (m === 'm' && tenant) return { tenant, tab: tab || 'payouts', ref: ref || null, at: ref && at ? at : null };
  // #/stories: the first tenant's stories (what `payout-sandbox --demo` opens).
  return { tenant: sessionStorage.getItem(TENANT_KEY) ?? '', tab: m === 'stories' ? 'demo' : 'payouts', ref: null, at: null };
}

/**
 * The current route, and `go(route, { replace })` to move to another. `onMove(route)` is told of
 * every move as it happens, before anything renders (so the next view's data can be on its way).
 */
export function useRoute(onMove) {
  const [route, setRoute] = useState(read);
  const shown = useRef(href(route));
  const latest = useRef(onMove);
  latest.current = onMove;
  const follow = () => {
    const next = read();
    // Back and Forward fire both popstate and hashchange.
    if (href(next) === shown.current) return;
    shown.current = href(next);
    latest.current(next);
    setRoute(next);
  };
  const go = (next, { replace = false } = {}) => {
    history[replace ? 'replaceState' : 'pushState'](null, '', href(next));
    follow();
  };
  useEffect(() => {
    // A plain click on a link of the page moves at once, not when its hashchange comes (a frame
    // later); with a modifier key or another button the link is the browser's (a new tab, a copy).
    const click = (e) => {
      const link = e.target.closest?.('a[href^="#/"]');
      if (!link || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      history.pushState(null, '', link.getAttribute('href'));
      follow();
    };
    addEventListener('click', click);
    addEventListener('popstate', follow);
    addEventListener('hashchange', follow);
    return () => {
      removeEventListener('click', click);
      removeEventListener('popstate', follow);
      removeEventListener('hashchange', follow);
    };
  }, []);
  useEffect(() => {
    if (route.tenant) sessionStorage.setItem(TENANT_KEY, route.tenant);
  }, [route.tenant]);
  return [route, go];
}
