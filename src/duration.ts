import ms from 'ms';
import { RequestError } from './errors.js';

/** A duration with its unit: `500ms`, `5s`, `1.5m`, `30m`, `24h`, `1d`. */
export const DURATION_PATTERN = '^[0-9]+(\\.[0-9]+)?(ms|s|m|h|d)$';
const DURATION_RE = new RegExp(DURATION_PATTERN);

/** The longest duration taken (ten years): beyond it times leave what a date can hold. */
export const MAX_DURATION_MS = 3650 * 86_400_000;

/** Milliseconds of a duration string, or null when it is not one (a unit is required; at most ten years). */
export function parseDuration(text: string): number | null {
  if (text.length > 32 || !DURATION_RE.test(text)) return null;
  const value = ms(text as ms.StringValue);
  return typeof value === 'number' && Number.isFinite(value) && value <= MAX_DURATION_MS ? Math.round(value) : null;
}

const UNITS: Array<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
];

/** A duration as the largest unit that holds it exactly: 90 000 → `90s`, 1 500 → `1500ms`, 86 400 000 → `1d`. */
export function formatDuration(milliseconds: number): string {
  const unit = UNITS.find(([, size]) => milliseconds !== 0 && milliseconds % size === 0);
  return unit ? `${milliseconds / unit[1]}${unit[0]}` : `${milliseconds}ms`;
}

/** A duration (`'24h'`) or milliseconds, checked: a RequestError 400 otherwise. */
export function durationMs(by: string | number): number {
  const value = typeof by === 'number' ? by : parseDuration(by);
  if (value === null || !(value >= 0) || !Number.isFinite(value))
    throw new RequestError(400, `not a duration: ${String(by)} (use e.g. 500ms, 5s, 30m, 24h or 1d; at most 3650d)`);
  return value;
}
