// Whole-sandbox snapshot, restore and reset.
import { html, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { useGet } from '../api.js';
import { When } from '../format.js';

export const prefetch = (client) => client.prefetch('/snapshots');

export function View({ client, version, refresh, onError }) {
  const [name, setName] = useState('demo');
  const snaps = useGet(client, '/snapshots', [version]);
  const act = (promise) => promise.then(refresh, onError);
  return html`<section class="card" aria-label="Snapshots"><h2>Snapshots and reset (whole sandbox)</h2>
    <form class="bar" onSubmit=${(e) => {
      e.preventDefault();
      act(client.post('/snapshots', { name }));
    }}>
      <label for="snap-name">Name</label><input id="snap-name" value=${name} onInput=${(e) => setName(e.target.value)} /><button type="submit">Snapshot</button>
      <button type="button" onClick=${() => confirm('Reset the whole sandbox to its fixtures?') && act(client.post('/reset'))}>Reset</button>
    </form>
    <ul>${(snaps.data?.snapshots ?? []).map((s) => html`<li>${s.name} <span class="muted"><${When} at=${s.at} /></span> <button onClick=${() => act(client.post(`/snapshots/${s.name}/restore`))}>Restore ${s.name}</button></li>`)}</ul>
  </section>`;
}
