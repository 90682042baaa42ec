// The payout-sandbox dashboard: Preact + htm (vendored by the build, no bundler), talking only to
// the control API (/__sandbox) and its event stream, plus the emulated API with a tenant's own
// credentials when a demo creates a payout.
import { html, render, useMemo, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { api } from './api.js';
import { Dashboard } from './shell.js';

const TOKEN_KEY = 'payout-sandbox-admin-token';

// The look chosen before (or the system's), on <html> before the first paint: no flash of light in the dark.
const theme = localStorage.getItem('payout-sandbox-theme') || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
document.documentElement.setAttribute('data-theme', theme);
if (localStorage.getItem('payout-sandbox-presenter') === 'on') document.documentElement.setAttribute('data-presenter', 'on');

function TokenPrompt({ onToken, failed }) {
  const [value, setValue] = useState('');
  return html`<form class="card prompt" onSubmit=${(e) => {
    e.preventDefault();
    onToken(value);
  }}>
    <h2>Admin token</h2>
    <p class="muted">This sandbox was started with <code>--admin-token</code>. Enter it to see the dashboard.</p>
    ${failed && html`<p class="error" role="alert">That token was refused.</p>`}
    <div class="bar"><label for="token">Token</label>
      <input id="token" type="password" autocomplete="off" value=${value} onInput=${(e) => setValue(e.target.value)} />
      <button type="submit">Open</button></div>
  </form>`;
}

/** The dashboard's first request doubles as the token check: a 401 shows the prompt and nothing else. */
function App() {
  const [token, setToken] = useState(sessionStorage.getItem(TOKEN_KEY) ?? '');
  const [locked, setLocked] = useState(false);
  const client = useMemo(() => api(token), [token]);
  const use = (t) => {
    sessionStorage.setItem(TOKEN_KEY, t);
    setToken(t);
    setLocked(false);
  };
  if (locked) return html`<${TokenPrompt} onToken=${use} failed=${token !== ''} />`;
  return html`<${Dashboard} key=${token} client=${client} token=${token} onLocked=${() => setLocked(true)} />`;
}

render(html`<${App} />`, document.getElementById('app'));
