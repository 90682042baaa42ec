import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { stringify } from 'yaml';
import { loadScenario } from '../../src/scenario/scenario.js';
import { killAll, runCli, startCli } from '../cli-helpers.js';
import { advanceBy, balanceOf, initialize, payoutBody, record, testApp, useTempDir } from '../helpers.js';

const dir = useTempDir(killAll);

test('a restart in the middle of a timeline (file store) completes it at the original due time', async () => {
  const data = join(dir(), 'db.json');
  const first = await testApp({ data, rateLimits: false });
  const before = await balanceOf(first);
  const ref = (await initialize(first, payoutBody({ amount: 2002.04 }))).body.data.ref_id;
  await advanceBy(first, '5s');
  expect((await record(first, ref)).status).toBe('Unknown');
  await first.sandbox.close();

  const second = await testApp({ data, rateLimits: false });
  // The manual clock resumes where it stopped; the Failed step is still due at +1 h 5 s.
  expect((await record(second, ref)).status).toBe('Unknown');
  await advanceBy(second, '3599s');
  expect((await record(second, ref)).status).toBe('Unknown');
  await advanceBy(second, '1s');
  const t = await record(second, ref);
  expect(t.status).toBe('Failed');
  expect(t.transaction_date).toBe('2026-01-01 10:00:05');
  expect(await balanceOf(second)).toBe(before);
  await second.sandbox.close();
});

test('a transition already past when the sandbox starts happens at once', async () => {
  const data = join(dir(), 'db.json');
  const first = await testApp({ data, rateLimits: false });
  const ref = (await initialize(first, payoutBody({ amount: 2002.02 }))).body.data.ref_id;
  await first.sandbox.close();
  const later = await testApp({ data, rateLimits: false, clockStart: Date.parse('2026-01-01T12:00:00+05:30') });
  const t = await record(later, ref);
  expect(t.status).toBe('Success');
  expect(t.transaction_date).toBe('2026-01-01 12:00:00');
  await later.sandbox.close();
});

test('--speed: the real clock sped up 1000 times settles a 5 s timeline in 5 ms of (fake) real time', async () => {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  try {
    const app = await testApp({ clock: 'real', speed: 1000, rateLimits: false });
    const ref = (await initialize(app, payoutBody())).body.data.ref_id;
    await jest.advanceTimersByTimeAsync(4);
    expect((await record(app, ref)).status).toBe('Pending');
    await jest.advanceTimersByTimeAsync(2);
    expect((await record(app, ref)).status).toBe('Success');
    await app.sandbox.close();
  } finally {
    jest.useRealTimers();
  }
});

test('YAML and JSON scenario files load the same', async () => {
  const json = JSON.parse(readFileSync('scenarios/default.json', 'utf8'));
  const yamlFile = join(dir(), 'default.yaml');
  writeFileSync(yamlFile, stringify(json));
  const fromJson = await loadScenario('scenarios/default.json');
  const fromYaml = await loadScenario(yamlFile);
  expect({ ...fromYaml, source: null }).toEqual({ ...fromJson, source: null });
});

test('an invalid scenario file exits 2 naming the file, the path and the rule', async () => {
  const bad = JSON.parse(readFileSync('scenarios/default.json', 'utf8'));
  bad.payouts.rules[8].timeline[0].after = 'five seconds';
  const file = join(dir(), 'bad.json');
  writeFileSync(file, JSON.stringify(bad));
  const r = await runCli(['--data', join(dir(), 'db.json'), '--scenario', file]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('bad.json: /payouts/rules/8/timeline/0/after: must match pattern');
});

test('a rule with two outcomes, or YAML that does not parse, exits 2', async () => {
  const two = join(dir(), 'two.yaml');
  writeFileSync(
    two,
    stringify({ name: 'x', payouts: { default_timeline: [], rules: [{ name: 'a', match: {}, reject: { code: 'GENERIC_EXCEPTION' }, timeline: [] }] } }),
  );
  const r1 = await runCli(['--data', 'memory', '--scenario', two]);
  expect(r1.code).toBe(2);
  expect(r1.stderr).toContain('two.yaml: /payouts/rules/0: must have exactly one of reject, timeline or fault');
  const broken = join(dir(), 'broken.yml');
  writeFileSync(broken, 'name: [unclosed');
  const r2 = await runCli(['--data', 'memory', '--scenario', broken]);
  expect(r2.code).toBe(2);
  expect(r2.stderr).toContain('broken.yml: not valid YAML');
});

test('the CLI takes --scenario and a held response finishes on SIGTERM', async () => {
  const running = await startCli([
    '--port',
    '0',
    '--data',
    'memory',
    '--clock',
    'manual',
    '--scenario',
    'scenarios/realistic.json',
    '--no-rate-limits',
    '--log-level',
    'silent',
  ]);
  expect(running.output()).toContain('Scenario:      realistic');
  const headers = {
    'x-merchant-email': 'demo@payout-sandbox.test',
    'x-api-key': 'sbx_key_demo_0001',
    'x-api-secret': 'sbx_secret_demo_0001',
    'content-type': 'application/json',
  };
  const body = payoutBody({ amount: 3003.02 });
  const held = fetch(`${running.url}/api/v1/public/payment/transfer`, { method: 'POST', headers, body: JSON.stringify(body) });
  // Wait until the payout exists: the request is then in flight, its answer held for 35 s.
  let found = false;
  for (let i = 0; i < 200 && !found; i++) {
    const s = await fetch(`${running.url}/api/v1/public/payment/transfer/status?client_ref_id=${body.client_ref_id}`, { headers });
    found = s.status === 200;
    await s.text();
  }
  expect(found).toBe(true);
  const exit = running.stop('SIGTERM');
  const res = await held;
  expect(res.status).toBe(200);
  expect(await exit).toBe(0);
});
