import { DateTime } from 'luxon';
import { formatDisplayTime, formatTransactionDate, INDIA_ZONE, toIso } from '../src/time.js';

/** The fixed-offset IST formatters agree with a time-zone database (luxon) on every instant tried. */
test('IST formatting from the fixed offset equals the tz database for 1970–2100', () => {
  let x = 12345;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const instants = [0, Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-06-30T18:29:59.999Z'), Date.parse('2026-06-30T18:30:00Z')];
  for (let i = 0; i < 20_000; i++) instants.push(Math.floor(next() * 4.1e12));
  for (const ms of instants) {
    const d = DateTime.fromMillis(ms, { zone: INDIA_ZONE, locale: 'en-US' });
    expect([formatDisplayTime(ms), formatTransactionDate(ms), toIso(ms)]).toEqual([
      d.toFormat('dd/MM/yyyy hh:mm:ss a'),
      d.toFormat('yyyy-MM-dd HH:mm:ss'),
      d.toISO(),
    ]);
  }
});
