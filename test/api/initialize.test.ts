import request from 'supertest';
import type { SandboxApp } from '../../src/app.js';
import { balance, DEMO, defaultFixtures, demoHeaders, initialize, OTHER, otherHeaders, payoutBody, status, testApp } from '../helpers.js';

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp();
});

function expectEnvelopeA(res: request.Response, httpCode: number, message: string) {
  expect(res.status).toBe(httpCode);
  expect(res.body).toEqual({ success: false, http_code: httpCode, message });
}

function expectEnvelopeB(res: request.Response, code: string, message?: string) {
  expect(res.status).toBe(400);
  expect(res.body.status).toBe(false);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.error.message).toBe(res.body.message);
  if (message !== undefined) expect(res.body.message).toBe(message);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'message', 'status']);
}

describe('initialize payout: success', () => {
  test.each(['v1', 'v2'] as const)('%s answers Pending with ref_id as a 10-digit string', async (version) => {
    const body = payoutBody();
    const res = await initialize(app, body, version);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      http_code: 200,
      message: 'Transaction is pending. Please check status after some time.',
      data: { ref_id: expect.stringMatching(/^[1-9][0-9]{9}$/), client_ref_id: body.client_ref_id, status: 'Pending' },
    });
  });

  test('the payout remembers which version created it', async () => {
    const v1 = await initialize(app, payoutBody(), 'v1');
    const v2 = await initialize(app, payoutBody(), 'v2');
    expect(app.sandbox.repo.state.payouts[v1.body.data.ref_id].version).toBe('v1');
    expect(app.sandbox.repo.state.payouts[v2.body.data.ref_id].version).toBe('v2');
  });

  test('debits amount + fee + tax (IMPS fee 5, tax 18 % = 0.90)', async () => {
    const before = (await balance(app, DEMO.van1)).body.data.current_balance;
    await initialize(app, payoutBody({ amount: 250.5 })).expect(200);
    const after = (await balance(app, DEMO.van1)).body.data.current_balance;
    expect(Math.round((before - after) * 100)).toBe(25050 + 500 + 90);
  });

  test('fees follow the payment method (NEFT 2.50, RTGS 25)', async () => {
    const neft = await initialize(app, payoutBody({ payment_method: '1002', amount: 10 }));
    const rtgs = await initialize(app, payoutBody({ payment_method: '1003', amount: 200000 }));
    const n = (await status(app, { ref_id: neft.body.data.ref_id })).body.data.transaction;
    const r = (await status(app, { ref_id: rtgs.body.data.ref_id })).body.data.transaction;
    expect([n.fees, n.tax]).toEqual([2.5, 0.45]);
    expect([r.fees, r.tax]).toEqual([25, 4.5]);
  });

  test('accepts application/x-www-form-urlencoded bodies', async () => {
    const body = payoutBody({ amount: '99.99' });
    const res = await request(app)
      .post('/api/v1/public/payment/transfer')
      .set(demoHeaders)
      .type('form')
      .send(body as Record<string, string>);
    expect(res.status).toBe(200);
    const t = (await status(app, { ref_id: res.body.data.ref_id })).body.data.transaction;
    expect(t.amount).toBe(99.99);
  });

  test('a payout by an Active beneficiary_id takes its details from the stored beneficiary', async () => {
    const body = payoutBody({ beneficiary_id: DEMO.activeBene });
    for (const k of ['beneficiary_email', 'beneficiary_name', 'beneficiary_mobile', 'account_number', 'ifsc_code']) delete body[k];
    const res = await initialize(app, body);
    expect(res.status).toBe(200);
    const t = (await status(app, { ref_id: res.body.data.ref_id })).body.data.transaction;
    expect(t.beneficiary).toEqual({
      id: DEMO.activeBene,
      name: 'Ravi Kumar',
      email_id: 'ravi.kumar@example.com',
      mobile_no: '9812345670',
    });
  });
});

describe('initialize payout: field rules (first failing field, Laravel wording)', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['missing client_ref_id', { client_ref_id: undefined }, 'The client ref id field is required.'],
    ['empty client_ref_id', { client_ref_id: '' }, 'The client ref id field is required.'],
    ['short client_ref_id', { client_ref_id: 'abcd' }, 'The client ref id field must be between 5 and 30 characters.'],
    ['long client_ref_id', { client_ref_id: 'x'.repeat(31) }, 'The client ref id field must be between 5 and 30 characters.'],
    ['client_ref_id not a string', { client_ref_id: { a: 1 } }, 'The client ref id field must be a string.'],
    ['missing transfer_type', { transfer_type: undefined }, 'The transfer type field is required.'],
    ['transfer_type not BANK', { transfer_type: 'UPI' }, 'The selected transfer type is invalid.'],
    ['missing amount', { amount: undefined }, 'The amount field is required.'],
    ['amount not a number', { amount: 'ten' }, 'The amount field must be a number.'],
    ['amount with 3 decimals', { amount: 10.123 }, 'The amount field must have 0-2 decimal places.'],
    ['amount string with 3 decimals', { amount: '10.125' }, 'The amount field must have 0-2 decimal places.'],
    ['missing payment_method', { payment_method: undefined }, 'The payment method field is required.'],
    ['unknown payment_method', { payment_method: '1004' }, 'The selected payment method is invalid.'],
    ['missing debit_from', { debit_from: undefined }, 'The debit from field is required.'],
    ['short debit_from', { debit_from: 'DEMOVAN' }, 'The debit from field must be 20 characters.'],
    ['beneficiary_id of 19', { beneficiary_id: 'B'.repeat(19) }, 'The beneficiary id field must be 20 characters.'],
    ['no beneficiary_id and no email', { beneficiary_email: undefined }, 'The beneficiary email field is required when beneficiary id is not present.'],
    ['bad email', { beneficiary_email: 'not-an-email' }, 'The beneficiary email field must be a valid email address.'],
    ['mobile of 9', { beneficiary_mobile: '987654321' }, 'The beneficiary mobile field must be 10 characters.'],
    ['no beneficiary_id and no name', { beneficiary_name: undefined }, 'The beneficiary name field is required when beneficiary id is not present.'],
    ['name not alphanumeric', { beneficiary_name: 'Ravi-Kumar!' }, 'The beneficiary name field must only contain letters, numbers and spaces.'],
    ['no beneficiary_id and no account_number', { account_number: undefined }, 'The account number field is required when beneficiary id is not present.'],
    ['no beneficiary_id and no ifsc_code', { ifsc_code: undefined }, 'The ifsc code field is required when beneficiary id is not present.'],
    ['missing purpose', { purpose: undefined }, 'The purpose field is required.'],
    ['unknown purpose', { purpose: 'GIFT' }, 'The selected purpose is invalid.'],
    ['missing remarks', { remarks: undefined }, 'The remarks field is required.'],
    ['long remarks', { remarks: 'r'.repeat(51) }, 'The remarks field must not be greater than 50 characters.'],
    // the first failing field in the reference's order wins
    ['two failures: client_ref_id before remarks', { client_ref_id: 'ab', remarks: undefined }, 'The client ref id field must be between 5 and 30 characters.'],
    ['two failures: amount before purpose', { amount: 'x', purpose: 'NOPE' }, 'The amount field must be a number.'],
  ];

  test.each(cases)('%s', async (_name, overrides, message) => {
    const body = payoutBody();
    for (const [k, v] of Object.entries(overrides)) {
      if (v === undefined) delete body[k];
      else body[k] = v;
    }
    const before = (await balance(app, DEMO.van1)).body.data.current_balance;
    const res = await initialize(app, body);
    expectEnvelopeA(res, 400, message);
    expect((await balance(app, DEMO.van1)).body.data.current_balance).toBe(before);
    expect(Object.keys(app.sandbox.repo.state.payouts)).toHaveLength(0);
  });

  test('the inline beneficiary fields are not needed with a beneficiary_id', async () => {
    const res = await initialize(app, {
      client_ref_id: 'BYID00001',
      transfer_type: 'BANK',
      amount: 10,
      payment_method: '1001',
      debit_from: DEMO.van1,
      beneficiary_id: DEMO.activeBene,
      purpose: 'SALARY',
      remarks: 'salary',
    });
    expect(res.status).toBe(200);
  });

  test('a body that is not an object is a 400', async () => {
    const res = await request(app).post('/api/v1/public/payment/transfer').set(demoHeaders).set('Content-Type', 'application/json').send('[1,2]');
    expectEnvelopeA(res, 400, 'The request body must be a JSON object or a form.');
  });
});

describe('initialize payout: the scenario\'s reading of "alphanumeric only" for beneficiary_name', () => {
  const STRICT = { extends: 'default', name: 'strict-names', validation: { beneficiary_name: 'alphanumeric' as const } };

  test('by default a name with a space is accepted', async () => {
    expect((await initialize(app, payoutBody({ beneficiary_name: 'Ravi Kumar' }))).status).toBe(200);
  });

  test('validation.beneficiary_name alphanumeric refuses it, naming the rule; letters and digits alone pass', async () => {
    const strict = await testApp({ scenario: STRICT });
    for (const version of ['v1', 'v2'] as const) {
      const res = await initialize(strict, payoutBody({ beneficiary_name: 'Ravi Kumar' }), version);
      expectEnvelopeA(res, 400, 'The beneficiary name field must only contain letters and numbers.');
    }
    expect(Object.keys(strict.sandbox.repo.state.payouts)).toHaveLength(0);
    expect((await initialize(strict, payoutBody({ beneficiary_name: 'RaviKumar2' }))).status).toBe(200);
  });

  test('under the strict rule too, the first failing field in the reference order is the one named', async () => {
    const strict = await testApp({ scenario: STRICT });
    const body = payoutBody({ beneficiary_name: 'Ravi Kumar' });
    delete body.account_number;
    delete body.remarks;
    expectEnvelopeA(await initialize(strict, body), 400, 'The beneficiary name field must only contain letters and numbers.');
    expectEnvelopeA(await initialize(app, body), 400, 'The account number field is required when beneficiary id is not present.');
  });

  test('a scenario put in force at run time applies to the next request', async () => {
    const put = await request(app).put('/__sandbox/scenario').send({ scenario: STRICT });
    expect(put.status).toBe(200);
    expectEnvelopeA(
      await initialize(app, payoutBody({ beneficiary_name: 'Ravi Kumar' })),
      400,
      'The beneficiary name field must only contain letters and numbers.',
    );
    await request(app).put('/__sandbox/scenario').send({ name: 'default' });
    expect((await initialize(app, payoutBody({ beneficiary_name: 'Ravi Kumar' }))).status).toBe(200);
  });
});

describe('initialize payout: business checks in SPEC order', () => {
  test('unknown debit_from', async () => {
    expectEnvelopeA(await initialize(app, payoutBody({ debit_from: 'NOSUCHVAN00000000000' })), 400, 'The selected debit from is invalid.');
  });

  test("another merchant's VAN answers as an unknown one", async () => {
    const foreign = await initialize(app, payoutBody({ debit_from: OTHER.van }));
    const unknown = await initialize(app, payoutBody({ debit_from: 'NOSUCHVAN00000000000' }));
    expect(foreign.status).toBe(unknown.status);
    expect(foreign.body).toEqual(unknown.body);
    expect((await balance(app, OTHER.van, otherHeaders)).body.data.current_balance).toBe(250000);
  });

  test('INACTIVE VAN: ACCOUNT_NOT_ACTIVE', async () => {
    expectEnvelopeB(await initialize(app, payoutBody({ debit_from: DEMO.inactiveVan })), 'ACCOUNT_NOT_ACTIVE');
  });

  test('ACCOUNT_NOT_ACTIVE comes before the duplicate check', async () => {
    await initialize(app, payoutBody({ client_ref_id: 'DUPE00001' })).expect(200);
    expectEnvelopeB(await initialize(app, payoutBody({ client_ref_id: 'DUPE00001', debit_from: DEMO.inactiveVan })), 'ACCOUNT_NOT_ACTIVE');
  });

  test('a repeated client_ref_id: GENERIC_EXCEPTION Duplicate Client Reference ID, nothing debited', async () => {
    await initialize(app, payoutBody({ client_ref_id: 'DUPE00002' })).expect(200);
    const before = (await balance(app, DEMO.van1)).body.data.current_balance;
    const res = await initialize(app, payoutBody({ client_ref_id: 'DUPE00002', debit_from: DEMO.van2 }));
    expectEnvelopeB(res, 'GENERIC_EXCEPTION', 'Duplicate Client Reference ID');
    expect((await balance(app, DEMO.van1)).body.data.current_balance).toBe(before);
  });

  test('the same client_ref_id is free for another merchant', async () => {
    await initialize(app, payoutBody({ client_ref_id: 'SHARED001' })).expect(200);
    await initialize(app, payoutBody({ client_ref_id: 'SHARED001', debit_from: OTHER.van }), 'v1', otherHeaders).expect(200);
  });

  test.each([
    ['1001', 0.5],
    ['1001', 200000.01],
    ['1002', 0.99],
    ['1003', 199999.99],
  ])('method %s rejects %s: TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE', async (method, amount) => {
    expectEnvelopeB(await initialize(app, payoutBody({ payment_method: method, amount })), 'TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE');
  });

  test.each([
    ['1001', 1],
    ['1001', 200000],
    ['1002', 1],
    ['1003', 200000],
  ])('method %s accepts the edge %s', async (method, amount) => {
    await initialize(app, payoutBody({ payment_method: method, amount })).expect(200);
  });

  test('above the per-transaction limit: TRANSACTION_LIMIT_EXCEEDED', async () => {
    const fx = defaultFixtures();
    fx.merchants[0].per_transaction_limit = 5000;
    const small = await testApp({ fixtures: fx });
    expectEnvelopeB(await initialize(small, payoutBody({ amount: 5000.01 })), 'TRANSACTION_LIMIT_EXCEEDED');
    await initialize(small, payoutBody({ amount: 5000 })).expect(200);
  });

  test('the default per-transaction limit is 1000000 (NEFT has no upper bound of its own)', async () => {
    expectEnvelopeB(await initialize(app, payoutBody({ payment_method: '1002', amount: 1000000.01, debit_from: DEMO.van2 })), 'TRANSACTION_LIMIT_EXCEEDED');
  });

  test.each([
    ['unknown', 'NOSUCHBENE0000000000'],
    ['Pending', DEMO.pendingBene],
    ["another merchant's", OTHER.bene],
  ])('%s beneficiary_id: INVALID_BENEFICIARY', async (_name, beneId) => {
    expectEnvelopeB(await initialize(app, payoutBody({ beneficiary_id: beneId })), 'INVALID_BENEFICIARY');
  });

  test('INSUFFICIENT_BALANCE counts fee and tax', async () => {
    const fx = defaultFixtures();
    fx.merchants[0].accounts[0].balance = 105.9; // exactly 100 + 5 fee + 0.90 tax
    const tight = await testApp({ fixtures: fx });
    expectEnvelopeB(await initialize(tight, payoutBody({ amount: 100.01 })), 'INSUFFICIENT_BALANCE');
    await initialize(tight, payoutBody({ amount: 100 })).expect(200);
    expect((await balance(tight, DEMO.van1)).body.data.current_balance).toBe(0);
    expectEnvelopeB(await initialize(tight, payoutBody({ amount: 1 })), 'INSUFFICIENT_BALANCE');
  });

  test('the range check comes before the limit, the limit before the beneficiary, the beneficiary before the balance', async () => {
    const fx = defaultFixtures();
    fx.merchants[0].per_transaction_limit = 100;
    fx.merchants[0].accounts[0].balance = 1;
    const a = await testApp({ fixtures: fx });
    expectEnvelopeB(
      await initialize(a, payoutBody({ amount: 0.5, beneficiary_id: 'NOSUCHBENE0000000000' })),
      'TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE',
    );
    expectEnvelopeB(await initialize(a, payoutBody({ amount: 101, beneficiary_id: 'NOSUCHBENE0000000000' })), 'TRANSACTION_LIMIT_EXCEEDED');
    expectEnvelopeB(await initialize(a, payoutBody({ amount: 50, beneficiary_id: 'NOSUCHBENE0000000000' })), 'INVALID_BENEFICIARY');
    expectEnvelopeB(await initialize(a, payoutBody({ amount: 50 })), 'INSUFFICIENT_BALANCE');
  });
});
