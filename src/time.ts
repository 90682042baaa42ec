import { DateTime } from 'luxon';

/** Every timestamp the reference shows is in India time. */
export const INDIA_ZONE = 'Asia/Kolkata';

function inIndia(ms: number): DateTime {
  return DateTime.fromMillis(ms, { zone: INDIA_ZONE, locale: 'en-US' });
}

/** `DD/MM/YYYY hh:mm:ss AM`: payout `created_at`, beneficiary `timestamp`. */
export function formatDisplayTime(ms: number): string {
  return inIndia(ms).toFormat('dd/MM/yyyy hh:mm:ss a');
}

/** `YYYY-MM-DD HH:MM:SS` (24-hour): payout `transaction_date`. */
export function formatTransactionDate(ms: number): string {
  return inIndia(ms).toFormat('yyyy-MM-dd HH:mm:ss');
}

export function toIso(ms: number): string {
  return inIndia(ms).toISO() ?? new Date(ms).toISOString();
}
