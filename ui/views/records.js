// A tenant's records of one kind as a table, each record's JSON a click away: what the
// beneficiaries, verifications and checkout views share.
import { html } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { Waiting } from '../format.js';

/** A records view: `kind` names the control route and the key of its answer's list; `columns` are [heading, cell of a record]. */
export function recordsView({ kind, key = kind, title, columns }) {
  const path = (tenant) => `/merchants/${tenant}/${kind}`;
  return {
    prefetch: (client, route) => client.prefetch(path(route.tenant)),
    View({ client, route, version }) {
      const answer = useGet(client, path(route.tenant), [version]);
      const rows = answer.data?.[key];
      if (!rows) return html`<${Waiting} what=${title.toLowerCase()} error=${answer.error} />`;
      return html`<section class="card" aria-label=${title}><h2>${title} <span class="muted">(${rows.length})</span></h2>
        ${
          rows.length === 0
            ? html`<p class="muted">None yet.</p>`
            : html`<div class="scroll"><table>
          <thead><tr>${columns.map(([heading]) => html`<th>${heading}</th>`)}<th></th></tr></thead>
          <tbody>${rows.map((r) => html`<tr>${columns.map(([, cell]) => html`<td>${cell(r)}</td>`)}<td><details><summary>record</summary><pre>${JSON.stringify(r, null, 2)}</pre></details></td></tr>`)}</tbody>
        </table></div>`
        }
      </section>`;
    },
  };
}
