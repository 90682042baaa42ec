import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { killAll, startCli } from './cli-helpers.js';
import { advanceBy, payoutBody, testApp, useTempDir } from './helpers.js';
import { startReceiver } from './receiver.js';

/** Behaviour coverage: exactly what a merchant was shown, in three formats, across a restart. */

const dir = useTempDir(killAll);
const apps: SandboxApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.sandbox.close();
});

const EXPECTED = [
  'error.GENERIC_EXCEPTION',
  'error.INSUFFICIENT_BALANCE',
  'payout.duplicate_client_ref_id',
  'payout.status.Pending',
  'payout.status.Success',
  'verification.PAN.invalid',
  'webhook.v2',
];

/** Drives one new merchant through a few behaviours; returns its id. */
async function drive(app: SandboxApp, webhookUrl: string): Promise<string> {
  const m = (await request(app).post('/__sandbox/merchants').send({ webhook_url: webhookUrl, webhook_version: 'v2' })).body;
  const pay = (body: Record<string, unknown>) =>
    request(app)
      .post('/api/v2/public/payment/transfer')
      .set(m.headers)
      .send(payoutBody({ debit_from: m.account_no, ...body }));
  expect((await pay({ amount: 1001.02 })).body.error.code).toBe('INSUFFICIENT_BALANCE');
  expect((await pay({ client_ref_id: 'COVER00001' })).status).toBe(200);
  expect((await pay({ client_ref_id: 'COVER00001' })).body.message).toBe('Duplicate Client Reference ID');
  const pan = await request(app)
    .post('/api/v1/public/verification/')
    .set(m.headers)
    .send({ debit_from: m.account_no, verification_type: 'PAN', pan: { pan_number: 'ZZZZZ0000Z' } });
  expect(pan.body.data.verify_response.valid).toBe(false);
  await advanceBy(app, '1d');
  await request(app).post('/__sandbox/webhooks/settle').expect(200);
  return m.merchant_id;
}

const covered = (body: { items: Array<{ id: string; hits: number }> }) =>
  body.items
    .filter((i) => i.hits > 0)
    .map((i) => i.id)
    .sort();

test('exactly the behaviours a merchant was shown are covered, for it alone, in JSON, Markdown and JUnit', async () => {
  const receiver = await startReceiver();
  try {
    const app = await testApp({ rateLimits: false });
    apps.push(app);
    const id = await drive(app, receiver.url);
    const mine = (await request(app).get(`/__sandbox/merchants/${id}/coverage`)).body;
    expect(covered(mine)).toEqual(EXPECTED);
    expect(mine.summary.covered).toBe(EXPECTED.length);
    expect(mine.summary.total).toBe(mine.items.length);
    expect(mine.items.find((i: { id: string }) => i.id === 'error.TRANSACTION_LIMIT_EXCEEDED').how).toMatch(/amount 1001\.01/);
    expect(mine.items.find((i: { id: string }) => i.id === 'verification.PAN.invalid').hits).toBe(1);
    const demo = (await request(app).get('/__sandbox/merchants/SBXDEMO0001/coverage')).body;
    expect(demo.summary.covered).toBe(0);
    expect(covered((await request(app).get('/__sandbox/coverage')).body)).toEqual(EXPECTED);
    expect((await request(app).get('/__sandbox/merchants/NOPE/coverage')).status).toBe(404);

    const md = await request(app).get(`/__sandbox/merchants/${id}/coverage?format=markdown`);
    expect(md.headers['content-type']).toMatch(/text\/markdown/);
    expect(md.text).toContain(`: ${EXPECTED.length} of ${mine.summary.total}`);
    expect(md.text).toContain('| ✅ | business errors | `error.INSUFFICIENT_BALANCE` |');
    expect(md.text).toMatch(/\| ❌ \| payout statuses \| `payout.status.Unknown` \|.*sbx:Unknown@5s/);

    const failed = (await request(app).get(`/__sandbox/merchants/${id}/coverage?format=junit`)).text;
    const missing = mine.summary.total - EXPECTED.length;
    expect(failed).toContain(`tests="${mine.summary.total}" failures="${missing}" skipped="0"`);
    expect((failed.match(/<failure /g) ?? []).length).toBe(missing);
    const skipped = (await request(app).get(`/__sandbox/merchants/${id}/coverage?format=junit&uncovered=skipped`)).text;
    expect((skipped.match(/<skipped /g) ?? []).length).toBe(missing);
    expect((await request(app).get('/__sandbox/coverage?format=pdf')).status).toBe(400);

    await request(app).post('/__sandbox/reset').expect(200);
    expect((await request(app).get('/__sandbox/coverage')).body.summary.covered).toBe(0);
  } finally {
    await receiver.close();
  }
});

test('coverage is kept in the store: the same after a restart on the same file', async () => {
  const receiver = await startReceiver();
  try {
    const data = join(dir(), 'db.json');
    const first = await testApp({ rateLimits: false, data });
    const id = await drive(first, receiver.url);
    await first.sandbox.close();
    const second = await testApp({ rateLimits: false, data });
    try {
      const after = (await request(second).get(`/__sandbox/merchants/${id}/coverage`)).body;
      expect(covered(after)).toEqual(EXPECTED);
      const md = (await request(second).get(`/__sandbox/merchants/${id}/coverage?format=markdown`)).text;
      expect(md.match(/\| ✅ \|/g)).toHaveLength(EXPECTED.length);
      const junit = (await request(second).get(`/__sandbox/merchants/${id}/coverage?format=junit`)).text;
      expect((junit.match(/<failure /g) ?? []).length).toBe(after.summary.total - EXPECTED.length);
    } finally {
      await second.sandbox.close();
    }
  } finally {
    await receiver.close();
  }
});

test('--coverage-report writes the report on shutdown; --coverage-min fails the exit code when short', async () => {
  const report = join(dir(), 'out', 'coverage.xml');
  const gated = await startCli(['--port', '0', '--data', 'memory', '--log-level', 'silent', '--coverage-report', report, '--coverage-min', '50']);
  await fetch(`${gated.url}/api/v1/public/balance/check?account_no=X`, {
    headers: { 'x-merchant-email': 'demo@payout-sandbox.test', 'x-api-key': 'k', 'x-api-secret': 's' },
  });
  expect(await gated.stop()).toBe(3);
  expect(gated.output()).toMatch(/behaviour coverage \d+(\.\d)? % \(1 of \d+\) is below --coverage-min 50 %/);
  expect(existsSync(report)).toBe(true);
  expect(readFileSync(report, 'utf8')).toMatch(/<testsuites name="payout-sandbox behaviour coverage" tests="\d+" failures="\d+"/);
  const open = await startCli(['--port', '0', '--data', 'memory', '--log-level', 'silent', '--coverage-min', '0']);
  expect(await open.stop()).toBe(0);
});

test('auth failures and rate limits count for the merchant the request names', async () => {
  const app = await testApp({ rateLimits: true });
  apps.push(app);
  const m = (await request(app).post('/__sandbox/merchants').send({})).body;
  await request(app)
    .get('/api/v1/public/balance/check')
    .set({ ...m.headers, 'x-api-secret': 'wrong' })
    .query({ account_no: m.account_no })
    .expect(401);
  await request(app).get('/api/v1/payment/transaction/PAYX/status').set({ MerchantId: m.merchant_id, AccessToken: 'wrong' }).expect(401);
  const ref = (
    await request(app)
      .post('/api/v2/public/payment/transfer')
      .set(m.headers)
      .send(payoutBody({ debit_from: m.account_no }))
  ).body.data.ref_id;
  for (let i = 0; i < 3; i++) await request(app).get('/api/v1/public/payment/transfer/status').set(m.headers).query({ ref_id: ref }).expect(200);
  await request(app).get('/api/v1/public/payment/transfer/status').set(m.headers).query({ ref_id: ref }).expect(429);
  const hits = Object.fromEntries(
    (await request(app).get(`/__sandbox/merchants/${m.merchant_id}/coverage`)).body.items.map((i: { id: string; hits: number }) => [i.id, i.hits]),
  );
  expect([hits['auth.dashboard'], hits['auth.checkout'], hits['ratelimit.status_check'], hits['ratelimit.balance_check']]).toEqual([1, 1, 1, 0]);
});

describe('one typed behaviour channel: the catalogue is every behaviour id there is', () => {
  test.each(['default', 'realistic'])('scenarios/%s.json', async (name) => {
    const { loadScenario } = await import('../src/scenario/scenario.js');
    const { catalogue } = await import('../src/observe/catalogue.js');
    const { behaviourIds } = await import('../src/behaviours.js');
    const s = await loadScenario(join('scenarios', `${name}.json`));
    const faults = s.payouts.rules.filter((r) => r.outcome.kind === 'fault').map((r) => r.name);
    const ids = catalogue(s).map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...behaviourIds(faults)].sort());
  });

  test("rows name the scenario's limits and the OTP's lifetime, not fixed numbers", async () => {
    const { scenarioFromValue } = await import('../src/scenario/scenario.js');
    const { catalogue } = await import('../src/observe/catalogue.js');
    const file = JSON.parse(readFileSync('scenarios/default.json', 'utf8')) as Record<string, unknown>;
    const s = scenarioFromValue({ ...file, limits: { status_check: { limit: 1, window: '30s' }, balance_check: { limit: 21, window: '1h' } } }, null);
    const how = Object.fromEntries(catalogue(s).map((i) => [i.id, i.how]));
    expect(how['ratelimit.status_check']).toBe('a 2nd status check of one payout within 30s');
    expect(how['ratelimit.balance_check']).toBe('a 22nd balance check of one VAN within 1h');
    expect(how['verification.AADHAAR.otp_expired']).toBe('advance 10m between the two steps');
  });
});
