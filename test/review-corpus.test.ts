// @ts-expect-error: the corpus is plain JavaScript, as merchants' clients are (review-corpus/README.md).
import { scoreCorpus } from '../review-corpus/harness.js';

/**
 * The integration review judged by the corpus of merchant clients (docs/review.md, "How well it
 * judges"): no false positive on any client, no miss of a rule a wrong client is known to break,
 * a rule of the review for every wrong client to break, and the careful client found ready.
 */

interface Run {
  client: string;
  correct: boolean;
  expected: string[];
  flagged: string[];
  falsePositives: string[];
  misses: string[];
  verdict: string | null;
  unprovenHigh: string[];
  wantsReady: boolean;
  error: string | null;
}

let runs: Run[];
let rules: Array<{ rule: string; clients: number; tp: number; fp: number; misses: number }>;

beforeAll(async () => {
  ({ runs, rules } = await scoreCorpus());
}, 120_000);

test('every client ran', () => {
  expect(runs.filter((r) => r.error !== null).map((r) => `${r.client}: ${r.error}`)).toEqual([]);
  expect(runs.filter((r) => r.correct).length).toBeGreaterThanOrEqual(4);
});

test('no false positive: nothing is flagged that a client does right', () => {
  expect(runs.filter((r) => r.falsePositives.length > 0).map((r) => [r.client, r.falsePositives])).toEqual([]);
});

test('no miss: every rule a wrong client breaks is flagged', () => {
  expect(runs.filter((r) => r.misses.length > 0).map((r) => [r.client, r.misses])).toEqual([]);
});

test('every rule of the review has at least one wrong client that breaks it', () => {
  expect(rules.filter((r) => r.clients === 0).map((r) => r.rule)).toEqual([]);
  expect(rules.length).toBeGreaterThanOrEqual(15);
});

test('the careful client is found ready: every high rule exercised and passed', () => {
  const ready = runs.filter((r) => r.wantsReady);
  expect(ready.length).toBeGreaterThanOrEqual(1);
  for (const r of ready) expect([r.client, r.verdict, r.unprovenHigh]).toEqual([r.client, 'ready', []]);
});
