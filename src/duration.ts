import ms from 'ms';
import { RequestError } from './errors.js';

/** A duration with its unit: `500ms`, `5s`, `1.5m`, `30m`, `24h`, `1d`. */
export const DURATION_PATTERN = '^[0-9]+(\\.[0-9]+)?(ms|s|m|h|d)$';
const DURATION_RE = new RegExp(DURATION_PATTERN);

/** Milliseconds of a duration string, or null when it is not one (a unit is required). */
export function parseDuration(text: string): number | null {
  if (!DURATION_RE.test(text)) return null;
  const value = ms(text as ms.StringValue);
  return typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : null;
}

export function formatDuration(milliseconds: number): string {
  return ms(milliseconds, { long: false });
}

/** A duration (`'24h'`) or milliseconds, checked: a RequestError 400 otherwise. */
export function durationMs(by: string | number): number {
  const value = typeof by === 'number' ? by : parseDuration(by);
  if (value === null || !(value >= 0) || !Number.isFinite(value))
    throw new RequestError(400, `not a duration: ${String(by)} (use e.g. 500ms, 5s, 30m, 24h or 1d)`);
  return value;
}
