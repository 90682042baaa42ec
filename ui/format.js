// How the dashboard shows values: money in ₹ with Indian digit grouping, every time one way
// (DD/MM/YYYY HH:MM:SS IST, the wall time the API gives), statuses coloured by kind.
import { html } from '/__sandbox/ui/vendor/preact-htm.js';

const rupees = new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', minimumFractionDigits: 2 });
export const money = (n) => (typeof n === 'number' ? rupees.format(n) : '');

export const MODES = { 1001: 'IMPS', 1002: 'NEFT', 1003: 'RTGS' };
export const STATUSES = ['NEW', 'Pending', 'Unknown', 'Success', 'Failed'];

/**
 * The control API's ISO instants (`2026-01-01T09:00:00.000+05:30`) and the payout record's
 * `transaction_date` (`2026-01-01 09:00:00`) are both IST wall time with the same field positions,
 * so one slicing shows either without a time-zone conversion.
 */
const wall = (t) => `${t.slice(8, 10)}/${t.slice(5, 7)}/${t.slice(0, 4)} ${t.slice(11, 19)} IST`;
const instant = (t) => (t.includes('T') ? t : `${t.replace(' ', 'T')}+05:30`);

export function When({ at }) {
  return at ? html`<time datetime=${instant(at)} title="Sandbox time (the merchant's clock)">${wall(at)}</time>` : '';
}

/**
 * A real (wall-clock) instant, as opposed to the sandbox's times: labelled, and in another format
 * (your machine's clock and time zone), so the two are never mistaken for each other.
 */
export function RealTime({ at }) {
  if (!at) return '';
  const shown = new Date(at).toLocaleString('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return html`<span class="real-time">real time <time class="real" datetime=${at} title="Your machine's clock, not the sandbox's">${shown}</time></span>`;
}

export function Status({ s }) {
  return html`<span class=${`status status-${s}`}>${s}</span>`;
}

/** A scenario description without its Markdown marks. */
export const plain = (text) => text.replace(/[`*]/g, '');

/** A view before its first answer: loading, or why it could not load. */
export function Waiting({ what, error }) {
  return error ? html`<p class="error" role="alert">Could not load ${what}: ${error.message}</p>` : html`<p class="muted">Loading ${what}…</p>`;
}
