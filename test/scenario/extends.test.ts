import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { stringify } from 'yaml';
import { loadScenario } from '../../src/scenario/scenario.js';
import { initialize, payoutBody, testApp, useTempDir } from '../helpers.js';

/**
 * `extends`: a one-rule scenario keeps everything else of the one it extends (the magic amounts,
 * the default timeline); its rules come first, a rule of the same name replaces the base's.
 */

const dir = useTempDir();

function file(name: string, value: unknown): string {
  const path = join(dir(), name);
  writeFileSync(path, name.endsWith('.json') ? JSON.stringify(value) : stringify(value));
  return path;
}

test('a one-rule file that extends default keeps every magic amount and the default timeline', async () => {
  const mine = file('mine.yaml', {
    extends: 'default',
    name: 'mine',
    payouts: { rules: [{ name: 'slow-neft', match: { payment_method: '1002' }, timeline: [{ after: '30m', status: 'Success' }] }] },
  });
  const s = await loadScenario(mine);
  expect(s.name).toBe('mine');
  expect(s.payouts.rules[0].name).toBe('slow-neft');
  expect(s.payouts.rules.map((r) => r.name)).toEqual(expect.arrayContaining(['1001.01', '2002.05', '3003.01']));
  const app = await testApp({ scenario: mine });
  const rejected = await initialize(app, payoutBody({ amount: 1001.02 }));
  expect(rejected.body).toMatchObject({ error: { code: 'INSUFFICIENT_BALANCE' } });
  const neft = await initialize(app, payoutBody({ payment_method: '1002' }));
  expect(neft.headers['x-sandbox-rule']).toBe('slow-neft');
  expect((await initialize(app, payoutBody())).headers['x-sandbox-rule']).toBe('default');
});

test('a rule named as a base rule replaces it; a chain of files resolves; objects merge key by key', async () => {
  file('middle.json', { extends: 'default', name: 'middle', limits: { status_check: { limit: 5, window: '1m' } } });
  const top = file('top.yaml', {
    extends: './middle.json',
    name: 'top',
    payouts: { rules: [{ name: '1001.01', match: { amount: 1001.01 }, reject: { code: 'INVALID_BENEFICIARY' } }] },
    limits: { balance_check: { limit: 2, window: '1m' } },
  });
  const s = await loadScenario(top);
  const r = s.payouts.rules.filter((x) => x.name === '1001.01');
  expect(r).toHaveLength(1);
  expect(r[0].outcome).toMatchObject({ kind: 'reject', code: 'INVALID_BENEFICIARY' });
  expect(s.limits.status_check.limit).toBe(5);
  expect(s.limits.balance_check.limit).toBe(2);
});

test('a cycle, a missing base and a wrong value are refused naming the file and the rule', async () => {
  const a = file('a.json', { extends: './b.json', name: 'a' });
  file('b.json', { extends: './a.json', name: 'b' });
  await expect(loadScenario(a)).rejects.toThrow(/\/extends: a cycle \(.*a\.json → .*b\.json → .*a\.json\)/);
  const missing = file('missing.json', { extends: 'no-such-scenario', name: 'm' });
  await expect(loadScenario(missing)).rejects.toThrow(/missing\.json: \/extends: .*no-such-scenario\.json: cannot read the scenario file \(ENOENT\)/);
  const typo = file('typo.yaml', {
    extends: 'default',
    name: 't',
    payouts: { rules: [{ name: 'x', match: { amount: 5 }, timeline: [{ after: '5s', status: 'Sucess' }] }] },
  });
  await expect(loadScenario(typo)).rejects.toThrow('must be one of NEW, Pending, Success, Failed, Unknown');
});

test('the control API takes an inline scenario that extends a shipped one', async () => {
  const app = await testApp();
  const res = await request(app)
    .put('/__sandbox/scenario')
    .send({
      scenario: {
        extends: 'default',
        name: 'inline-one',
        payouts: { rules: [{ name: 'hdfc-fails', match: { ifsc_code: 'HDFC0001234' }, timeline: [{ after: '5s', status: 'Failed' }] }] },
      },
    });
  expect(res.body).toEqual({ name: 'inline-one', source: 'inline' });
  expect((await initialize(app, payoutBody())).headers['x-sandbox-rule']).toBe('hdfc-fails');
  expect((await initialize(app, payoutBody({ amount: 1001.01, ifsc_code: 'SBIN0001234' }))).body.error.code).toBe('TRANSACTION_LIMIT_EXCEEDED');
});
