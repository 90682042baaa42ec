// The tenant's clock: its time and mode, and moving it. It moves the clock the tenant runs on (its
// own, or the sandbox clock it follows), so it never takes a follower off the sandbox clock.
import { html, useState } from '/__sandbox/ui/vendor/preact-htm.js';
import { When } from '../format.js';

export function ClockBar({ client, merchant, refresh, onError, readonly = false }) {
  const [free, setFree] = useState('30m');
  const clock = merchant.clock;
  const own = !clock.follows_sandbox_clock;
  const base = own ? `/merchants/${merchant.merchant_id}/clock` : '/clock';
  const go = (path, body) => client.post(`${base}${path}`, body).then(refresh, onError);
  return html`<div class="bar clock" aria-label="Clock">
    <span>Sandbox time <strong data-testid="clock-now"><${When} at=${clock.now} /></strong> <span class="muted">(${clock.mode}${own ? ', own clock' : ''})</span></span>
    ${
      clock.mode === 'manual' &&
      !readonly &&
      html`
      <button onClick=${() => go('/advance', { by: '1m' })}>+1 min</button>
      <button onClick=${() => go('/advance', { by: '1h' })}>+1 h</button>
      <button onClick=${() => go('/advance', { by: '1d' })}>+1 day</button>
      <form class="bar" onSubmit=${(e) => {
        e.preventDefault();
        go('/advance', { by: free });
      }}>
        <label for="advance-by" class="muted">by</label>
        <input id="advance-by" size="6" value=${free} onInput=${(e) => setFree(e.target.value)} />
        <button type="submit">Advance</button>
      </form>
      <button onClick=${() => go('/next')}>Next event</button>`
    }
  </div>`;
}
