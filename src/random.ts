import type { Faker } from '@faker-js/faker';
import { newFaker } from './faker.js';

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

  /** `n` digits, the first non-zero (ref_id, UTR). */
  digits(n: number): string {
    return this.faker.string.numeric({ length: n, allowLeadingZeros: false });
  }

  /** `n` upper-case letters and digits (beneficiary_id and other opaque ids). */
  alphanumeric(n: number): string {
    return this.faker.string.alphanumeric({ length: n, casing: 'upper' });
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
