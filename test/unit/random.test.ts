// The sandbox's ids are faker's, drawn without faker's per-call arrays (src/random.ts, issue 37):
// with a seed, the same ids as faker's own string helpers, character for character, so that a
// seeded run gives the ids it gave before.
import { newFaker } from '../../src/faker.js';
import { SandboxRandom } from '../../src/random.js';

describe('SandboxRandom draws as faker draws', () => {
  test.each([1, 7, 42, 2026, 123456789])('seed %i: digits and alphanumeric ids equal faker.string.numeric / alphanumeric, interleaved', (seed) => {
    const ours = new SandboxRandom(seed);
    const faker = newFaker();
    faker.seed(seed);
    for (let i = 0; i < 300; i++) {
      const n = [1, 10, 12, 20, 3][i % 5];
      if (i % 3 === 0) expect(ours.alphanumeric(n)).toBe(faker.string.alphanumeric({ length: n, casing: 'upper' }));
      else expect(ours.digits(n)).toBe(faker.string.numeric({ length: n, allowLeadingZeros: false }));
    }
  });

  test('the shapes: digits never start with 0, alphanumeric is upper case', () => {
    const r = new SandboxRandom(5);
    for (let i = 0; i < 200; i++) {
      expect(r.digits(10)).toMatch(/^[1-9][0-9]{9}$/);
      expect(r.alphanumeric(20)).toMatch(/^[0-9A-Z]{20}$/);
    }
    expect(r.digits(0)).toBe('');
    expect(r.alphanumeric(0)).toBe('');
  });
});
