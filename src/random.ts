import type { Faker } from '@faker-js/faker';
import { newFaker } from './faker.js';

const DIGITS = '0123456789';
const NON_ZERO = '123456789';
const UPPER_ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const MAX_8 = { max: 8 };
const MAX_9 = { max: 9 };
const MAX_35 = { max: 35 };

/**
 * The sandbox's only source of randomness. With a seed, two runs making the same calls get the
 * same ids and generated data (SPEC 1.3); without one, a random seed is drawn.
 */
export class SandboxRandom {
  readonly faker: Faker;
  readonly seed: number;

  constructor(seed?: number) {
    this.seed = seed ?? Math.floor(Math.random() * 2 ** 31);
    this.faker = newFaker();
    this.faker.seed(this.seed);
  }

  /**
   * `n` digits, the first non-zero (ref_id, UTR): what `faker.string.numeric({ length: n,
   * allowLeadingZeros: false })` gives, drawn the way it draws (one `number.int` per character)
   * without its arrays and option objects per call (an initialize makes two or three ids; the
   * profile showed faker's string helpers at 3.5 % of it). test/unit/random.test.ts holds the two
   * equal, seed by seed.
   */
  digits(n: number): string {
    if (n <= 0) return '';
    const int = this.faker.number;
    const chars = new Array<string>(n);
    chars[0] = NON_ZERO[int.int(MAX_8)];
    for (let i = 1; i < n; i++) chars[i] = DIGITS[int.int(MAX_9)];
    return chars.join('');
  }

  /**
   * `n` upper-case letters and digits (beneficiary_id and other opaque ids): `faker.string.alphanumeric({ length: n, casing: 'upper' })`, drawn as it draws.
   * Joined rather than added up: `s +=` past 12 characters makes one V8 string object per
   * character (a chain of concatenations), and ids are kept as long as their records: a heap
   * snapshot after about 21,000 initializes held 168,000 of those, 15 % of every object the garbage
   * collector marks (docs/performance.md).
   */
  alphanumeric(n: number): string {
    if (n <= 0) return '';
    const int = this.faker.number;
    const chars = new Array<string>(n);
    for (let i = 0; i < n; i++) chars[i] = UPPER_ALPHANUMERIC[int.int(MAX_35)];
    return chars.join('');
  }

  /** True for about `share` (0 to 1) of calls; draws nothing when the share is 0. */
  chance(share: number): boolean {
    return share > 0 && this.faker.number.float({ min: 0, max: 1 }) < share;
  }

  /** Draws ids until `taken` says one is free; ids are long enough that this ends at once. */
  unique(draw: () => string, taken: (id: string) => boolean): string {
    for (;;) {
      const id = draw();
      if (!taken(id)) return id;
    }
  }
}
