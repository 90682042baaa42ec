import { formatDisplayTime, formatTransactionDate, INDIA_ZONE, toIso } from '../../src/time.js';

/** Every timestamp is shown in IST (UTC+05:30, no daylight saving) in the reference's two formats. */

const at = (iso: string) => Date.parse(iso);

/** [UTC instant, `DD/MM/YYYY hh:mm:ss AM`, `YYYY-MM-DD HH:MM:SS`, ISO with +05:30] */
const CASES: Array<[string, string, string, string]> = [
  ['1970-01-01T00:00:00.000Z', '01/01/1970 05:30:00 AM', '1970-01-01 05:30:00', '1970-01-01T05:30:00.000+05:30'],
  // Day boundary: 18:30 UTC is IST midnight.
  ['2026-03-14T18:29:59.999Z', '14/03/2026 11:59:59 PM', '2026-03-14 23:59:59', '2026-03-14T23:59:59.999+05:30'],
  ['2026-03-14T18:30:00.000Z', '15/03/2026 12:00:00 AM', '2026-03-15 00:00:00', '2026-03-15T00:00:00.000+05:30'],
  // Month boundaries, with and without a leap day.
  ['2026-01-31T18:30:00.000Z', '01/02/2026 12:00:00 AM', '2026-02-01 00:00:00', '2026-02-01T00:00:00.000+05:30'],
  ['2026-02-28T18:30:00.000Z', '01/03/2026 12:00:00 AM', '2026-03-01 00:00:00', '2026-03-01T00:00:00.000+05:30'],
  ['2024-02-28T18:30:00.000Z', '29/02/2024 12:00:00 AM', '2024-02-29 00:00:00', '2024-02-29T00:00:00.000+05:30'],
  ['2026-04-30T18:29:59.000Z', '30/04/2026 11:59:59 PM', '2026-04-30 23:59:59', '2026-04-30T23:59:59.000+05:30'],
  // Year boundary: the UTC date is still the old year.
  ['2025-12-31T18:29:59.000Z', '31/12/2025 11:59:59 PM', '2025-12-31 23:59:59', '2025-12-31T23:59:59.000+05:30'],
  ['2025-12-31T18:30:00.000Z', '01/01/2026 12:00:00 AM', '2026-01-01 00:00:00', '2026-01-01T00:00:00.000+05:30'],
  ['2025-12-31T23:59:59.000Z', '01/01/2026 05:29:59 AM', '2026-01-01 05:29:59', '2026-01-01T05:29:59.000+05:30'],
  // Noon and around it: 12 PM, not 00 PM; 11 AM; 1 PM as 01.
  ['2026-01-01T06:29:59.000Z', '01/01/2026 11:59:59 AM', '2026-01-01 11:59:59', '2026-01-01T11:59:59.000+05:30'],
  ['2026-01-01T06:30:00.000Z', '01/01/2026 12:00:00 PM', '2026-01-01 12:00:00', '2026-01-01T12:00:00.000+05:30'],
  ['2026-01-01T07:30:00.000Z', '01/01/2026 01:00:00 PM', '2026-01-01 13:00:00', '2026-01-01T13:00:00.000+05:30'],
  ['2026-01-01T03:30:00.000Z', '01/01/2026 09:00:00 AM', '2026-01-01 09:00:00', '2026-01-01T09:00:00.000+05:30'],
  // Single digits padded everywhere.
  ['2026-01-05T21:35:07.000Z', '06/01/2026 03:05:07 AM', '2026-01-06 03:05:07', '2026-01-06T03:05:07.000+05:30'],
  // Before 1970 (negative milliseconds).
  ['1969-12-31T23:59:59.999Z', '01/01/1970 05:29:59 AM', '1970-01-01 05:29:59', '1970-01-01T05:29:59.999+05:30'],
];

test('the zone is India time', () => {
  expect(INDIA_ZONE).toBe('Asia/Kolkata');
});

test.each(CASES)('%s is %s / %s / %s', (utc, display, transaction, iso) => {
  const ms = at(utc);
  expect(formatDisplayTime(ms)).toBe(display);
  expect(formatTransactionDate(ms)).toBe(transaction);
  expect(toIso(ms)).toBe(iso);
});

test('the two reference formats drop the milliseconds (truncated, never rounded up to the next second)', () => {
  const ms = at('2026-01-01T03:30:59.999Z');
  expect(formatDisplayTime(ms)).toBe('01/01/2026 09:00:59 AM');
  expect(formatTransactionDate(ms)).toBe('2026-01-01 09:00:59');
  expect(toIso(ms)).toBe('2026-01-01T09:00:59.999+05:30');
});

test.each([
  [0, '000'],
  [7, '007'],
  [70, '070'],
  [700, '700'],
  [99, '099'],
])('toIso pads %p ms to three digits', (millis, text) => {
  expect(toIso(at('2026-01-01T03:30:00.000Z') + millis)).toBe(`2026-01-01T09:00:00.${text}+05:30`);
});

test('every hour of an IST day maps to its 12-hour clock and AM/PM', () => {
  const midnight = at('2026-07-09T18:30:00.000Z'); // 10/07/2026 00:00 IST
  const got = Array.from({ length: 24 }, (_, h) => formatDisplayTime(midnight + h * 3_600_000).slice(11));
  expect(got).toEqual([
    '12:00:00 AM',
    '01:00:00 AM',
    '02:00:00 AM',
    '03:00:00 AM',
    '04:00:00 AM',
    '05:00:00 AM',
    '06:00:00 AM',
    '07:00:00 AM',
    '08:00:00 AM',
    '09:00:00 AM',
    '10:00:00 AM',
    '11:00:00 AM',
    '12:00:00 PM',
    '01:00:00 PM',
    '02:00:00 PM',
    '03:00:00 PM',
    '04:00:00 PM',
    '05:00:00 PM',
    '06:00:00 PM',
    '07:00:00 PM',
    '08:00:00 PM',
    '09:00:00 PM',
    '10:00:00 PM',
    '11:00:00 PM',
  ]);
  const hours24 = Array.from({ length: 24 }, (_, h) => formatTransactionDate(midnight + h * 3_600_000).slice(11, 13));
  expect(hours24).toEqual(Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')));
  // The whole day is the same IST date.
  expect(new Set(Array.from({ length: 24 }, (_, h) => formatTransactionDate(midnight + h * 3_600_000).slice(0, 10)))).toEqual(new Set(['2026-07-10']));
});

test('the formats have fixed widths', () => {
  const ms = at('2026-11-22T10:11:12.013Z');
  expect(formatDisplayTime(ms)).toMatch(/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} (AM|PM)$/);
  expect(formatTransactionDate(ms)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  expect(toIso(ms)).toBe('2026-11-22T15:41:12.013+05:30');
});
