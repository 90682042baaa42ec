import { taxOn, toPaise, toRupees } from '../../src/money.js';

/** Money is paise (integers) inside; rupees only at the edges. */

describe('toPaise', () => {
  test.each([
    [0, 0],
    [1, 100],
    [100, 10_000],
    [0.01, 1],
    [0.1, 10],
    [0.29, 29], // 0.29 * 100 is 28.999999999999996 in floating point: rounded, not truncated
    [1.1, 110], // 110.00000000000001
    [19.99, 1999],
    [1234.56, 123_456],
    [99_999_999.99, 9_999_999_999],
  ])('%p rupees are %p paise', (rupees, paise) => {
    expect(toPaise(rupees)).toBe(paise);
  });

  test('a fraction of a paisa rounds to the nearest paisa (half up)', () => {
    expect(toPaise(0.004)).toBe(0);
    expect(toPaise(0.006)).toBe(1);
    expect(toPaise(0.015)).toBe(2);
  });

  test('every two-decimal amount up to ₹1,000 converts exactly and back', () => {
    const wrong: string[] = [];
    for (let p = 0; p <= 100_000; p++) {
      const rupees = Number((p / 100).toFixed(2));
      if (toPaise(rupees) !== p || toRupees(toPaise(rupees)) !== rupees) wrong.push(`${rupees} → ${toPaise(rupees)}`);
    }
    expect(wrong).toEqual([]);
  });

  test('negative amounts (debits) keep their sign', () => {
    expect(toPaise(-1.5)).toBe(-150);
    expect(toPaise(-0.29)).toBe(-29);
  });
});

describe('toRupees', () => {
  test.each([
    [0, 0],
    [1, 0.01],
    [29, 0.29],
    [150, 1.5],
    [100, 1],
    [-150, -1.5],
    [9_999_999_999, 99_999_999.99],
  ])('%p paise are %p rupees', (paise, rupees) => {
    expect(toRupees(paise)).toBe(rupees);
  });
});

describe('taxOn', () => {
  test.each([
    // charge (paise), rate (%), tax (paise)
    [250, 18, 45],
    [1000, 18, 180],
    [0, 18, 0],
    [500, 0, 0],
    [25, 18, 5], // 4.5 → 5: half a paisa rounds up
    [75, 18, 14], // 13.5 → 14
    [24, 18, 4], // 4.32 → 4
    [1, 50, 1], // 0.5 → 1
    [3, 50, 2], // 1.5 → 2
    [1, 49, 0], // 0.49 → 0
    [1000, 100, 1000],
    [333, 12.5, 42], // 41.625 → 42
  ])('tax on %p paise at %p%% is %p paise', (charge, rate, tax) => {
    expect(taxOn(charge, rate)).toBe(tax);
  });

  test('the result is always a whole number of paise', () => {
    const fractional: string[] = [];
    for (let charge = 0; charge < 2000; charge += 7) {
      for (const rate of [0, 5, 12, 18, 28, 12.5]) if (!Number.isInteger(taxOn(charge, rate))) fractional.push(`${charge}@${rate}`);
    }
    expect(fractional).toEqual([]);
  });
});

test('amounts with a binary shadow round by their decimal value', async () => {
  const { toPaise } = await import('../../src/money.js');
  expect([1.005, 10.075, 2002.05, 0.1 + 0.2].map(toPaise)).toEqual([101, 1008, 200205, 30]);
});
