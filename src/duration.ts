import { Duration } from 'luxon';
import ms from 'ms';
import { RequestError } from './errors.js';

/**
 * The durations the sandbox reads, everywhere one is taken (CLI, control API, scenario files,
 * `sbx:` directives, in-process): one grammar, one parser, one message.
 * - a number and a unit: `500ms`, `5s`, `1.5m`, `30m`, `24h`, `1d`;
 * - several of them in a row, added up (as Go and systemd write them): `1h30m`, `2h1m`, `1m30s500ms`;
 * - ISO 8601 (days, hours, minutes, seconds; or weeks): `PT1H30M`, `P1DT12H`, `PT0.5S`, `P2W`.
 */
const PART = '[0-9]+(\\.[0-9]+)?(ms|s|m|h|d)';
const ISO_NUMBER = '[0-9]+([.,][0-9]+)?';
const ISO = `P(?!$)(${ISO_NUMBER}W|(${ISO_NUMBER}D)?(T(?=[0-9])(${ISO_NUMBER}H)?(${ISO_NUMBER}M)?(${ISO_NUMBER}S)?)?)`;

/** The grammar as a JSON Schema pattern: the scenario and control-API schemas use it. */
export const DURATION_PATTERN = `^((${PART})+|${ISO})$`;
const DURATION_RE = new RegExp(DURATION_PATTERN);
const PART_RE = new RegExp(PART, 'g');

/** The accepted forms, in words: every refusal of a duration says them. */
export const DURATION_FORMS = 'a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M';

/** The longest duration taken (ten years): beyond it times leave what a date can hold. */
export const MAX_DURATION_MS = 3650 * 86_400_000;
/** Longer text is no duration the bound above allows, and is not worth matching. */
const MAX_LENGTH = 64;

/** Milliseconds of a duration string, or null when it is not one (a unit is required; at most ten years). */
export function parseDuration(text: string): number | null {
  if (typeof text !== 'string' || text.length > MAX_LENGTH || !DURATION_RE.test(text)) return null;
  let value: number;
  if (text.startsWith('P')) {
    value = Duration.fromISO(text.replace(/,/g, '.')).as('milliseconds');
  } else {
    value = 0;
    for (const [part] of text.matchAll(PART_RE)) value += ms(part as ms.StringValue);
  }
  return Number.isFinite(value) && value <= MAX_DURATION_MS ? Math.round(value) : null;
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

/** A duration (`'24h'`, `'1h30m'`, `'PT1H30M'`) or milliseconds, checked: a RequestError 400 otherwise. */
export function durationMs(by: string | number): number {
  const value = typeof by === 'number' ? by : parseDuration(by);
  if (value === null || !(value >= 0) || !Number.isFinite(value))
    throw new RequestError(400, `not a duration: ${String(by)} (use ${DURATION_FORMS}; at most 3650d)`);
  return value;
}
