/**
 * Every timestamp the reference shows is in India time. IST is a fixed UTC+05:30 with no daylight
 * saving (since 1945), so it is computed from the offset rather than looked up in a time-zone
 * database on every call: the formatters below are on the hot path of every status check.
 */
export const INDIA_ZONE = 'Asia/Kolkata';
const IST_OFFSET_MS = (5 * 60 + 30) * 60_000;

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));

/** The wall-clock fields of `ms` in IST. */
function ist(ms: number): Date {
  return new Date(ms + IST_OFFSET_MS);
}

function datePart(d: Date, sep: string, dayFirst: boolean): string {
  const y = String(d.getUTCFullYear());
  const m = pad2(d.getUTCMonth() + 1);
  const day = pad2(d.getUTCDate());
  return dayFirst ? `${day}${sep}${m}${sep}${y}` : `${y}${sep}${m}${sep}${day}`;
}

/** `DD/MM/YYYY hh:mm:ss AM`: payout `created_at`, beneficiary `timestamp`. */
export function formatDisplayTime(ms: number): string {
  const d = ist(ms);
  const h = d.getUTCHours();
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${datePart(d, '/', true)} ${pad2(h12)}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} ${h < 12 ? 'AM' : 'PM'}`;
}

/** `YYYY-MM-DD HH:MM:SS` (24-hour): payout `transaction_date`. */
export function formatTransactionDate(ms: number): string {
  const d = ist(ms);
  return `${datePart(d, '-', false)} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
}

/** ISO 8601 with milliseconds and the IST offset: `2026-01-01T09:00:00.000+05:30`. */
export function toIso(ms: number): string {
  const d = ist(ms);
  const time = `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${pad3(d.getUTCMilliseconds())}`;
  return `${datePart(d, '-', false)}T${time}+05:30`;
}
