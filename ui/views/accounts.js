// The tenant's VANs: each balance and its ledger statement, and whether the two agree.
import { html } from '/__sandbox/ui/vendor/preact-htm.js';
import { useData } from '../api.js';
import { money, Waiting, When } from '../format.js';

const SHOWN = 100;
const ledgerPath = (van) => `/accounts/${van}/ledger`;

export function prefetch(client, _route, merchant) {
  for (const a of merchant?.accounts ?? []) client.prefetch(ledgerPath(a.account_no));
}

function Ledger({ l }) {
  return html`<p class=${l.balanced ? 'ok' : 'bad'}>Ledger sum ${money(l.ledger_sum)}: ${l.balanced ? 'agrees with the balance' : 'DISAGREES with the balance'}</p>
    <div class="scroll"><table><thead><tr><th>#</th><th>at</th><th>type</th><th class="num">amount</th><th class="num">balance</th><th>ref</th><th>note</th></tr></thead><tbody>
      ${l.entries
        .slice(-SHOWN)
        .reverse()
        .map(
          (e) =>
            html`<tr><td>${e.seq}</td><td><${When} at=${e.at} /></td><td>${e.type}</td><td class="num">${money(e.amount)}</td><td class="num">${money(e.balance_after)}</td><td>${e.ref ?? ''}</td><td>${e.note}</td></tr>`,
        )}
    </tbody></table></div>
    ${l.entries.length > SHOWN && html`<p class="muted">The newest ${SHOWN} of ${l.entries.length} entries.</p>`}`;
}

export function View({ client, merchant, version }) {
  const vans = merchant.accounts.map((a) => a.account_no);
  const ledgers = useData(() => Promise.all(vans.map((van) => client.get(ledgerPath(van)))), [vans.join(), version]);
  return html`<div>${merchant.accounts.map((a) => {
    const l = ledgers.data?.find((x) => x.account_no === a.account_no);
    return html`<section class="card" aria-label=${`Account ${a.account_no}`}>
      <h2>${a.account_no} <span class="muted">${a.status}</span> · ${money(l?.balance ?? a.balance)}</h2>
      ${l ? html`<${Ledger} l=${l} />` : html`<${Waiting} what="the ledger" error=${ledgers.error} />`}
    </section>`;
  })}</div>`;
}
