import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { advanceBy, initialize, payoutBody, status, testApp } from './helpers.js';

/**
 * The gates of the control API (docs/testing.md "Gates without Node"): `?fail_on=` on the review
 * and `?min=` on coverage answer 422 with the report when the gate fails, 200 when it holds, so
 * `curl --fail-with-body` is a CI's whole gate step; without them, the reports as before.
 */

let naive: SandboxApp;
let careful: SandboxApp;
let merchantId: string;

beforeAll(async () => {
  // The naive client: a payout answered 500 although made (3003.01), sent again under a new id.
  naive = await testApp();
  expect((await initialize(naive, payoutBody({ client_ref_id: 'NAIVE-1', amount: 3003.01 }))).status).toBe(500);
  expect((await initialize(naive, payoutBody({ client_ref_id: 'NAIVE-2', amount: 3003.01 }))).status).toBe(500);
  merchantId = (await request(naive).get('/__sandbox/merchants')).body.merchants[0].merchant_id;
  // The careful one: one payout, polled to its end.
  careful = await testApp();
  const made = await initialize(careful, payoutBody({ client_ref_id: 'CAREFUL-1', amount: 100 }));
  expect(made.status).toBe(200);
  await advanceBy(careful, '5s');
  expect((await status(careful, { client_ref_id: 'CAREFUL-1' })).body.data.transaction.status).toBe('Success');
});

test('a review gate that fails: 422, X-Sandbox-Gate failed with the reason, the report with gate { passed: false, reason }', async () => {
  for (const path of ['/__sandbox/review?fail_on=high', `/__sandbox/merchants/${merchantId}/review?fail_on=high`]) {
    const res = await request(naive).get(path);
    expect(res.status).toBe(422);
    expect(res.headers['x-sandbox-gate']).toBe('failed');
    expect(res.headers['x-sandbox-gate-reason']).toMatch(/^integration review: 1 finding of severity high or above \(double-payout-after-timeout\)/);
    expect(res.body.gate).toEqual({ passed: false, reason: res.headers['x-sandbox-gate-reason'] });
    expect(res.body.summary).toMatchObject({ verdict: 'not-ready', high: 1 });
    expect(res.body.findings.map((f: { rule: string }) => f.rule)).toEqual(['double-payout-after-timeout']);
  }
  const md = await request(naive).get('/__sandbox/review?fail_on=medium&format=markdown');
  expect(md.status).toBe(422);
  expect(md.headers['content-type']).toMatch(/^text\/markdown/);
  // The reason first, in the body too: `curl --fail-with-body` prints the body, not the headers.
  expect(md.text).toMatch(
    /^\*\*Gate failed\*\* \(review fail_on=medium\): integration review: 1 finding of severity medium or above \(double-payout-after-timeout\); see the review report\.\n\n### Integration review: \*\*not-ready\*\*/,
  );
  const xml = await request(naive).get('/__sandbox/review?fail_on=low&format=junit');
  expect(xml.status).toBe(422);
  // A JUnit view shows the gate as a failed test case of its own, counted in the totals.
  expect(xml.text).toMatch(
    /<testcase classname="payout-sandbox.gate" name="review fail_on=low"><failure message="integration review: 1 finding of severity low or above/,
  );
  const plain = await request(naive).get('/__sandbox/review?format=junit');
  const total = (t: string, a: string) => Number(new RegExp(`<testsuites[^>]*\\b${a}="(\\d+)"`).exec(t)?.[1]);
  expect(total(xml.text, 'tests')).toBe(total(plain.text, 'tests') + 1);
  expect(total(xml.text, 'failures')).toBe(total(plain.text, 'failures') + 1);
  expect(plain.text).not.toContain('payout-sandbox.gate');
});

test('a review gate that holds: 200, X-Sandbox-Gate passed, gate { passed: true, reason: null }; unproven asks more', async () => {
  const res = await request(careful).get('/__sandbox/review?fail_on=high');
  expect(res.status).toBe(200);
  expect(res.headers['x-sandbox-gate']).toBe('passed');
  expect(res.headers['x-sandbox-gate-reason']).toBeUndefined();
  expect(res.body.gate).toEqual({ passed: true, reason: null });
  // The careful run did not show every high rule handled: unproven fails it, naming them.
  const unproven = await request(careful).get('/__sandbox/review?fail_on=unproven&format=markdown');
  expect(unproven.status).toBe(422);
  expect(unproven.headers['x-sandbox-gate-reason']).toMatch(/high rules? not proven \(.*webhook-forged-accepted/);
});

test('without a gate the reports are as before: 200, no gate field, no header', async () => {
  const review = await request(naive).get('/__sandbox/review');
  expect(review.status).toBe(200);
  expect(review.body.gate).toBeUndefined();
  expect(review.headers['x-sandbox-gate']).toBeUndefined();
  const coverage = await request(naive).get('/__sandbox/coverage?format=junit&uncovered=skipped');
  expect(coverage.status).toBe(200);
  expect(coverage.headers['x-sandbox-gate']).toBeUndefined();
});

test('the coverage gate: min under the run passes, over it fails with 422 and the report in the asked format', async () => {
  const pass = await request(careful).get('/__sandbox/coverage?min=1');
  expect(pass.status).toBe(200);
  expect(pass.body.gate).toEqual({ passed: true, reason: null });
  const percent = pass.body.summary.percent as number;
  const id = (await request(careful).get('/__sandbox/merchants')).body.merchants[0].merchant_id;
  const fail = await request(careful).get(`/__sandbox/merchants/${id}/coverage?min=100&format=junit&uncovered=skipped`);
  expect(fail.status).toBe(422);
  expect(fail.headers['x-sandbox-gate-reason']).toBe(
    `behaviour coverage ${percent} % (${pass.body.summary.covered} of ${pass.body.summary.total}) is below min 100 %`,
  );
  expect(fail.text).toContain('<skipped');
  // Every uncovered behaviour skipped, yet the gate's own test case fails: the JUnit is not green.
  expect(fail.text).toMatch(/<testcase classname="payout-sandbox.gate" name="coverage min=100"><failure message="behaviour coverage/);
  const passed = await request(careful).get('/__sandbox/coverage?min=1&format=markdown');
  expect(passed.text).toMatch(/^\*\*Gate passed\*\* \(coverage min=1\)\.\n\n### Behaviour coverage/);
});

test('a gate asked wrongly is a 400 naming the field, and changes nothing', async () => {
  const bad = await request(careful).get('/__sandbox/review?fail_on=critical');
  expect(bad.status).toBe(400);
  expect(bad.body.error).toBe('The fail on field must be one of high, medium, low, unproven.');
  const over = await request(careful).get('/__sandbox/coverage?min=101');
  expect(over.status).toBe(400);
  expect(over.body.error).toMatch(/^The min field must be/);
  const word = await request(careful).get('/__sandbox/coverage?min=sixty');
  expect(word.status).toBe(400);
});
