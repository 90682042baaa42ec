import request from 'supertest';
import type { SandboxApp } from '../../src/app.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';
import { advanceBy, balanceOf, DEMO, demoHeaders, initialize, payoutBody, record, status, testApp } from '../helpers.js';

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp({ rateLimits: false });
});

describe('inline timelines in remarks', () => {
  test('sbx:Unknown@5s>Success@1h', async () => {
    const res = await initialize(app, payoutBody({ remarks: 'sbx:Unknown@5s>Success@1h' }));
    expect(res.headers['x-sandbox-rule']).toBe('inline');
    const ref = res.body.data.ref_id;
    await advanceBy(app, '5s');
    expect((await record(app, ref)).status).toBe('Unknown');
    await advanceBy(app, '1h');
    expect((await record(app, ref)).status).toBe('Success');
  });

  test('sbx:Success@2s>Failed@1d: a reversal a day later, refunded', async () => {
    const before = await balanceOf(app);
    const ref = (await initialize(app, payoutBody({ remarks: 'sbx:Success@2s>Failed@1d' }))).body.data.ref_id;
    await advanceBy(app, '2s');
    expect((await record(app, ref)).status).toBe('Success');
    await advanceBy(app, '23h');
    expect((await record(app, ref)).status).toBe('Success');
    await advanceBy(app, '1h');
    expect((await record(app, ref)).status).toBe('Failed');
    expect(await balanceOf(app)).toBe(before);
  });

  test('a first step at 0 sets the initial status; case does not matter', async () => {
    const res = await initialize(app, payoutBody({ remarks: 'SBX:new@0s>pending@1m>success@1m' }));
    expect(res.body.data.status).toBe('NEW');
    await advanceBy(app, '1m');
    expect((await record(app, res.body.data.ref_id)).status).toBe('Pending');
    await advanceBy(app, '1m');
    expect((await record(app, res.body.data.ref_id)).status).toBe('Success');
  });

  test('the directive wins over a magic timeline amount', async () => {
    const ref = (await initialize(app, payoutBody({ amount: 2002.07, remarks: 'sbx:Failed@1s' }))).body.data.ref_id;
    await advanceBy(app, '1s');
    expect((await record(app, ref)).status).toBe('Failed');
  });

  test('a transition a payout cannot make is refused and the timeline stops there', async () => {
    const ref = (await initialize(app, payoutBody({ remarks: 'sbx:Failed@1s>Success@1s' }))).body.data.ref_id;
    await advanceBy(app, '1m');
    expect((await record(app, ref)).status).toBe('Failed');
  });

  test.each([
    ['sbx:', 'no steps'],
    ['sbx:Sucess@5s', 'step 1 "Sucess@5s" has the unknown status "Sucess"'],
    ['sbx:Unknown@5s>Success@soon', 'step 2 "Success@soon" has the invalid duration "soon"'],
    ['sbx:Unknown@5', 'step 1 "Unknown@5" has the invalid duration "5"'],
    ['sbx:Unknown 5s', 'step 1 "Unknown 5s" is not STATUS@DURATION'],
  ])('malformed %j: envelope A 400 naming the problem, nothing created', async (remarks, problem) => {
    const before = await balanceOf(app);
    const res = await initialize(app, payoutBody({ remarks }));
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain(`The remarks field has an invalid sandbox directive: ${problem}`);
    expect(await balanceOf(app)).toBe(before);
  });

  test('remarks that do not start with sbx: are plain remarks', async () => {
    const ref = (await initialize(app, payoutBody({ remarks: 'pay sbx:Unknown@5s' }))).body.data.ref_id;
    await advanceBy(app, '5s');
    expect((await record(app, ref)).status).toBe('Success');
  });
});

function scenario(rules: ScenarioFile['payouts']['rules'], extra: Partial<ScenarioFile> = {}): ScenarioFile {
  return {
    name: 'test',
    payouts: { default_timeline: [{ after: '5s', status: 'Success' }], rules },
    ...extra,
  };
}

describe('scenario rules match each key', () => {
  const failIn = (ms: string) => [{ after: ms, status: 'Failed' as const, bank_res_msg: 'matched' }];
  test.each([
    ['payment_method', { payment_method: '1002' as const }, { payment_method: '1002' }, { payment_method: '1001' }],
    ['payment_method list', { payment_method: ['1002' as const, '1003' as const] }, { payment_method: '1002' }, { payment_method: '1001' }],
    ['account_number', { account_number: '111122223333' }, { account_number: '111122223333' }, { account_number: '111122223334' }],
    ['ifsc_code', { ifsc_code: 'YESB0000001' }, { ifsc_code: 'YESB0000001' }, { ifsc_code: 'YESB0000002' }],
    ['beneficiary_name (any case)', { beneficiary_name: 'Closed Account' }, { beneficiary_name: 'CLOSED ACCOUNT' }, { beneficiary_name: 'Open Account' }],
    ['client_ref_id_prefix', { client_ref_id_prefix: 'FAILME' }, { client_ref_id: 'FAILME-0001' }, { client_ref_id: 'OKAY-00001' }],
    ['amount range', { amount: { min: 5000, max: 6000 } }, { amount: 5500.5 }, { amount: 6000.01 }],
  ])('%s', async (_name, match, hit, miss) => {
    const a = await testApp({ rateLimits: false, scenario: scenario([{ name: 'r', match, timeline: failIn('1s') }]) });
    const matched = await initialize(a, payoutBody(hit));
    const other = await initialize(a, payoutBody(miss));
    expect(matched.headers['x-sandbox-rule']).toBe('r');
    expect(other.headers['x-sandbox-rule']).toBe('default');
    await advanceBy(a, '5s');
    expect((await record(a, matched.body.data.ref_id)).bank_res_msg).toBe('matched');
    expect((await record(a, other.body.data.ref_id)).status).toBe('Success');
  });

  test('a rule matches a registered beneficiary by its stored account number', async () => {
    const a = await testApp({
      rateLimits: false,
      scenario: scenario([{ name: 'ravi', match: { account_number: '50100012345678' }, reject: { code: 'INVALID_BENEFICIARY', message: 'Account frozen' } }]),
    });
    const body = payoutBody({ beneficiary_id: DEMO.activeBene });
    const res = await initialize(a, body);
    expect(res.body.error).toEqual({ code: 'INVALID_BENEFICIARY', message: 'Account frozen' });
  });

  test('the first matching rule in file order wins', async () => {
    const a = await testApp({
      scenario: scenario([
        { name: 'first', match: { payment_method: '1001' }, reject: { code: 'INVALID_TRANSFER_ID' } },
        { name: 'second', match: { payment_method: '1001' }, reject: { code: 'GENERIC_EXCEPTION' } },
      ]),
    });
    const res = await initialize(a, payoutBody());
    expect(res.body.error.code).toBe('INVALID_TRANSFER_ID');
    expect(res.headers['x-sandbox-rule']).toBe('first');
  });

  test('share: with a seed, a repeatable share of payouts matches', async () => {
    const run = async () => {
      const a = await testApp({ seed: 7, scenario: scenario([{ name: 'some', match: { share: 0.5 }, reject: { code: 'GENERIC_EXCEPTION' } }]) });
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await initialize(a, payoutBody({ amount: 1 }))).status);
      return out;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    const rejected = first.filter((s) => s === 400).length;
    expect(rejected).toBeGreaterThan(8);
    expect(rejected).toBeLessThan(32);
  });

  test('the scenario sets the rate limits', async () => {
    const a = await testApp({ scenario: scenario([], { limits: { status_check: { limit: 5, window: '10s' } } }) });
    const ref = (await initialize(a, payoutBody())).body.data.ref_id;
    for (let i = 0; i < 5; i++) expect((await status(a, { ref_id: ref })).status).toBe(200);
    const limited = await status(a, { ref_id: ref });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('10');
    await advanceBy(a, '10s');
    expect((await status(a, { ref_id: ref })).status).toBe(200);
  });
});

describe('beneficiary activation', () => {
  const create = (target: SandboxApp, account: string) =>
    request(target).post('/api/v1/public/beneficiary/create').set(demoHeaders).send({
      transfer_type: 'BANK',
      beneficiary_name: 'New Payee',
      beneficiary_email: 'new.payee@example.com',
      beneficiary_mobile: '9000000000',
      account_number: account,
      ifsc_code: 'HDFC0000001',
    });
  const get = (target: SandboxApp, id: string) => request(target).post('/api/v1/public/beneficiary/get').set(demoHeaders).send({ beneficiary_id: id });
  const payTo = (target: SandboxApp, id: string) => {
    const body = payoutBody({ beneficiary_id: id });
    for (const k of ['beneficiary_email', 'beneficiary_name', 'beneficiary_mobile', 'account_number', 'ifsc_code']) delete body[k];
    return initialize(target, body);
  };

  test('Pending → Active 10 s after creation, not before; a payout is accepted from that moment', async () => {
    const id = (await create(app, '123123123123')).body.data.beneficiary_id;
    await advanceBy(app, '9999ms');
    expect((await get(app, id)).body.data.status).toBe('Pending');
    expect((await payTo(app, id)).body.error.code).toBe('INVALID_BENEFICIARY');
    await advanceBy(app, '1ms');
    expect((await get(app, id)).body.data.status).toBe('Active');
    const res = await payTo(app, id);
    expect(res.status).toBe(200);
    expect((await record(app, res.body.data.ref_id)).beneficiary.id).toBe(id);
  });

  test('account number 9999999999 stays Pending', async () => {
    const id = (await create(app, '9999999999')).body.data.beneficiary_id;
    await advanceBy(app, '30d');
    expect((await get(app, id)).body.data.status).toBe('Pending');
  });

  test('realistic scenario: 24 h', async () => {
    const real = await testApp({ scenario: 'scenarios/realistic.json' });
    const id = (await create(real, '123123123123')).body.data.beneficiary_id;
    await advanceBy(real, '23h');
    expect((await get(real, id)).body.data.status).toBe('Pending');
    await advanceBy(real, '1h');
    expect((await get(real, id)).body.data.status).toBe('Active');
  });
});

describe('checkout timelines', () => {
  const createTxn = (amount: number) =>
    request(app).post('/__sandbox/checkout/transactions').send({ merchant_id: 'SBXDEMO0001', amount, product_name: 'Test' });
  const lookup = (id: string) =>
    request(app).get(`/api/v1/payment/transaction/${id}/status`).set({ MerchantId: 'SBXDEMO0001', AccessToken: 'sbx_token_demo_0001' });

  test.each([
    [250, 'default', '30s', 'Success', 1],
    [4004.01, '4004.01', '30s', 'Failed', 0],
    [4004.02, '4004.02', '15m', 'Dropped', 0],
  ])('amount %s (%s): Initialized → %s after %s', async (amount, rule, after, final, flag) => {
    const created = await createTxn(amount);
    expect(created.status).toBe(201);
    expect(created.headers['x-sandbox-rule']).toBe(rule);
    expect(created.body.status).toBe('Initialized');
    const id = created.body.payment_id;
    expect(id).toMatch(/^PAY[A-Z0-9]{14}$/);
    expect((await lookup(id)).body.data.status).toBe('Initialized');
    const ms = after === '30s' ? 30_000 : 900_000;
    await advanceBy(app, `${ms - 1}ms`);
    expect((await lookup(id)).body.data.status).toBe('Initialized');
    await advanceBy(app, '1ms');
    const d = (await lookup(id)).body.data;
    expect([d.status, d.status_flag]).toEqual([final, flag]);
    if (final === 'Success') expect(d.rrn).toMatch(/^[0-9]{12}$/);
  });

  test('4004.03 stays Initialized', async () => {
    const id = (await createTxn(4004.03)).body.payment_id;
    await advanceBy(app, '30d');
    expect((await lookup(id)).body.data.status).toBe('Initialized');
  });

  test('bad input and an unknown merchant', async () => {
    expect((await request(app).post('/__sandbox/checkout/transactions').send({ merchant_id: 'SBXDEMO0001' })).body).toEqual({
      error: 'The amount field is required.',
    });
    const unknown = await request(app).post('/__sandbox/checkout/transactions').send({ merchant_id: 'NOPE', amount: 1 });
    expect(unknown.status).toBe(404);
  });
});

describe('the clock', () => {
  test('GET /__sandbox/clock shows the time in India, the mode and the speed', async () => {
    const res = await request(app).get('/__sandbox/clock');
    expect(res.body).toEqual({ now: '2026-01-01T09:00:00.000+05:30', mode: 'manual', speed: 0 });
    await advanceBy(app, '1d');
    expect((await request(app).get('/__sandbox/clock')).body.now).toBe('2026-01-02T09:00:00.000+05:30');
  });

  test('advance needs a duration, and a manual clock', async () => {
    expect((await request(app).post('/__sandbox/clock/advance').send({ by: 'soon' })).body).toEqual({
      error: 'The by field must be a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M.',
    });
    const realApp = await testApp({ clock: 'real' });
    try {
      const res = await request(realApp).post('/__sandbox/clock/advance').send({ by: '1s' });
      expect(res.status).toBe(409);
    } finally {
      await realApp.sandbox.close();
    }
  });
});
