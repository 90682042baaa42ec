/** Money is kept in paise (integers) inside the sandbox; rupees appear only at the HTTP edges. */
export type Paise = number;

export function toPaise(rupees: number): Paise {
  // 1.005 × 100 is 100.49999… in binary: round what the decimal says, not its binary shadow.
  return Math.round(Number((rupees * 100).toFixed(6)));
}

export function toRupees(paise: Paise): number {
  return paise / 100;
}

/** Tax on a charge, rounded to the nearest paisa. */
export function taxOn(charge: Paise, ratePercent: number): Paise {
  return Math.round((charge * ratePercent) / 100);
}
