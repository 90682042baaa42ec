import { DURATION_PATTERN, durationMs, formatDuration, parseDuration } from '../../src/duration.js';
import { RequestError } from '../../src/errors.js';

describe('parseDuration', () => {
  test.each([
    ['0s', 0],
    ['0ms', 0],
    ['500ms', 500],
    ['1s', 1_000],
    ['5s', 5_000],
    ['1.5m', 90_000],
    ['30m', 1_800_000],
    ['1h', 3_600_000],
    ['24h', 86_400_000],
    ['1d', 86_400_000],
    ['7d', 604_800_000],
    ['0.25s', 250],
    ['010s', 10_000],
    ['1h30m', 5_400_000],
    ['2h1m', 7_260_000],
    ['1m30s500ms', 90_500],
    ['1d12h', 129_600_000],
    ['1h1h', 7_200_000],
    ['PT1H30M', 5_400_000],
    ['PT2H1M', 7_260_000],
    ['P1DT12H', 129_600_000],
    ['PT0.5S', 500],
    ['PT1,5S', 1_500],
    ['PT1,5H2,5M', 5_550_000],
    ['P1D', 86_400_000],
    ['P2W', 1_209_600_000],
    ['PT90M', 5_400_000],
  ])('%s is %p ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  test('a fraction of a millisecond is rounded to a whole one (half up)', () => {
    expect(parseDuration('0.4ms')).toBe(0);
    expect(parseDuration('0.5ms')).toBe(1);
    expect(parseDuration('1.5ms')).toBe(2);
    expect(parseDuration('2.5ms')).toBe(3);
    expect(parseDuration('0.0001ms')).toBe(0);
    expect(Number.isInteger(parseDuration('1.0005s'))).toBe(true);
  });

  test.each([
    ['5', 'no unit'],
    ['', 'empty'],
    [' 5s', 'leading space (not trimmed)'],
    ['5s ', 'trailing space'],
    ['5 s', 'space before the unit'],
    ['5S', 'upper-case unit'],
    ['5MS', 'upper-case unit'],
    ['-5s', 'negative'],
    ['+5s', 'signed'],
    ['.5s', 'no digit before the point'],
    ['5.s', 'no digit after the point'],
    ['1e3ms', 'exponent'],
    ['1w', 'weeks are not a unit here'],
    ['1y', 'years are not a unit here'],
    ['5sec', 'long unit'],
    ['5 minutes', 'long unit'],
    ['1h 30m', 'space inside a compound'],
    ['1h30', 'compound ending without a unit'],
    ['h30m', 'compound starting without a number'],
    ['P', 'ISO without a part'],
    ['PT', 'ISO without a time part'],
    ['P1DT', 'ISO T without a part'],
    ['P1Y', 'ISO years (not a fixed length)'],
    ['P1M', 'ISO months (not a fixed length)'],
    ['pt1h', 'ISO in lower case'],
    ['-PT1H', 'negative ISO'],
    ['PT1H30', 'ISO part without a designator'],
    ['s', 'no number'],
    ['Infinityms', 'not digits'],
  ])('%p is no duration (%s)', (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  test('over 64 characters is refused (no duration that long is one a date can take)', () => {
    expect(parseDuration(`${'0'.repeat(62)}1s`)).toBe(1000);
    expect(parseDuration(`${'0'.repeat(63)}1s`)).toBeNull();
    expect(parseDuration(`${'9'.repeat(400)}d`)).toBeNull();
  });

  test('DURATION_PATTERN is the grammar the scenario and control schemas use', () => {
    const re = new RegExp(DURATION_PATTERN);
    expect(['500ms', '5s', '1.5m', '24h', '1d', '1h30m', 'PT1H30M'].every((t) => re.test(t))).toBe(true);
    expect(['5', '5 s', '-5s', '1w', '.5s', '5S', 'P', 'PT', '1h 30m'].some((t) => re.test(t))).toBe(false);
  });
});

describe('formatDuration', () => {
  test.each([
    [0, '0ms'],
    [1, '1ms'],
    [500, '500ms'],
    [999, '999ms'],
    [1_000, '1s'],
    [5_000, '5s'],
    [60_000, '1m'],
    [1_800_000, '30m'],
    [3_600_000, '1h'],
    [86_400_000, '1d'],
    [172_800_000, '2d'],
  ])('%p ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  test('whole units round-trip through parseDuration', () => {
    for (const text of ['250ms', '10s', '5m', '2h', '3d']) expect(formatDuration(parseDuration(text)!)).toBe(text);
  });
});

describe('durationMs', () => {
  test('a duration string, or milliseconds as they are', () => {
    expect(durationMs('24h')).toBe(86_400_000);
    expect(durationMs('500ms')).toBe(500);
    expect(durationMs('0s')).toBe(0);
    expect(durationMs('1h30m')).toBe(5_400_000);
    expect(durationMs('PT1H30M')).toBe(5_400_000);
    expect(durationMs(0)).toBe(0);
    expect(durationMs(1_500)).toBe(1_500);
  });

  test.each<[string | number, string]>([
    ['', 'not a duration:  (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M; at most 3650d)'],
    ['24', 'not a duration: 24 (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M; at most 3650d)'],
    ['soon', 'not a duration: soon (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M; at most 3650d)'],
    ['-1s', 'not a duration: -1s (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M; at most 3650d)'],
    [-1, 'not a duration: -1 (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M; at most 3650d)'],
    [
      Number.NaN,
      'not a duration: NaN (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M; at most 3650d)',
    ],
    [
      Number.POSITIVE_INFINITY,
      'not a duration: Infinity (use a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M; at most 3650d)',
    ],
  ])('%p is refused with a 400 saying what to use', (by, message) => {
    let thrown: unknown;
    try {
      durationMs(by);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(RequestError);
    expect((thrown as RequestError).httpCode).toBe(400);
    expect((thrown as RequestError).message).toBe(message);
  });
});

describe('bounds and exact formatting', () => {
  test('a duration over ten years is not one (times past it leave what a date holds)', async () => {
    const { parseDuration, durationMs, MAX_DURATION_MS } = await import('../../src/duration.js');
    expect(parseDuration('3650d')).toBe(MAX_DURATION_MS);
    expect(parseDuration('3651d')).toBeNull();
    expect(parseDuration('3650d1ms')).toBeNull();
    expect(parseDuration('P3651D')).toBeNull();
    expect(parseDuration('P522W')).toBeNull();
    expect(parseDuration('200000000d')).toBeNull();
    expect(parseDuration(`${'1'.repeat(99)}s`)).toBeNull();
    expect(() => durationMs('200000000d')).toThrow('not a duration: 200000000d');
  });

  test('formatDuration names the largest unit that holds the duration exactly', async () => {
    const { formatDuration } = await import('../../src/duration.js');
    expect([90_000, 1_500, 86_400_000, 3_600_000, 600_000, 5_000, 0].map(formatDuration)).toEqual(['90s', '1500ms', '1d', '1h', '10m', '5s', '0ms']);
  });
});
