import request from 'supertest';
import type { SandboxApp } from '../../src/app.js';
import { advance, DEMO, demoHeaders, initialize, OTHER, otherHeaders, payoutBody, status, testApp } from '../helpers.js';

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp({ clockStart: Date.parse('2026-03-05T15:04:05+05:30') });
});

describe('payout status check', () => {
  test('by ref_id: every field of the payout record, with its type and India-time formats', async () => {
    const body = payoutBody({ amount: 1234.5, beneficiary_mobile: '9000000001' });
    const created = await initialize(app, body);
    const res = await status(app, { ref_id: created.body.data.ref_id });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.http_code).toBe(200);
    expect(typeof res.body.message).toBe('string');
    expect(res.body.data.transaction).toEqual({
      ref_id: Number(created.body.data.ref_id),
      client_ref_id: body.client_ref_id,
      purpose: 'VENDOR_PAYOUT',
      amount: 1234.5,
      fees: 5,
      tax: 0.9,
      type: 'Debit',
      status: 'Pending',
      payment_method: '1001',
      bank_ref_number: '',
      bank_res_msg: '',
      beneficiary: { id: expect.stringMatching(/^[A-Z0-9]{20}$/), name: 'Payee One', email_id: 'payee@example.com', mobile_no: '9000000001' },
      transaction_date: '2026-03-05 15:04:05',
      created_at: '05/03/2026 03:04:05 PM',
    });
    expect(typeof res.body.data.transaction.ref_id).toBe('number');
  });

  test('by client_ref_id gives the same record', async () => {
    const body = payoutBody();
    const created = await initialize(app, body);
    const byRef = await status(app, { ref_id: created.body.data.ref_id });
    const byClient = await status(app, { client_ref_id: String(body.client_ref_id) });
    expect(byClient.status).toBe(200);
    expect(byClient.body).toEqual(byRef.body);
  });

  test('inputs may come as a JSON body on the GET', async () => {
    const created = await initialize(app, payoutBody());
    const res = await request(app)
      .get('/api/v1/public/payment/transfer/status')
      .set(demoHeaders)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ ref_id: created.body.data.ref_id }));
    expect(res.status).toBe(200);
    expect(res.body.data.transaction.ref_id).toBe(Number(created.body.data.ref_id));
  });

  test('a JSON body may give ref_id as the number the status record shows', async () => {
    const created = await initialize(app, payoutBody());
    const res = await request(app)
      .get('/api/v1/public/payment/transfer/status')
      .set(demoHeaders)
      .send({ ref_id: Number(created.body.data.ref_id) });
    expect(res.status).toBe(200);
  });

  test('created_at uses a 12-hour clock with AM', async () => {
    const morning = await testApp({ clockStart: Date.parse('2026-03-05T00:30:00+05:30') });
    const created = await initialize(morning, payoutBody());
    const t = (await status(morning, { ref_id: created.body.data.ref_id })).body.data.transaction;
    expect(t.created_at).toBe('05/03/2026 12:30:00 AM');
    expect(t.transaction_date).toBe('2026-03-05 00:30:00');
  });

  test('neither id (absent, empty, or blank in a JSON body): the reference message, without a closing full stop', async () => {
    const neither = { success: false, http_code: 400, message: 'The ref id field is required when client ref id is not present' };
    for (const q of [{}, { ref_id: '', client_ref_id: '' }] as Array<Record<string, string>>) {
      const res = await status(app, q);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(neither);
    }
    const blank = await request(app).get('/api/v1/public/payment/transfer/status').set(demoHeaders).send({ ref_id: ' ', client_ref_id: '' });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual(neither);
  });

  test('ref_id not of 10 characters', async () => {
    const res = await status(app, { ref_id: '123' });
    expect(res.body).toEqual({ success: false, http_code: 400, message: 'The ref id field must be 10 characters.' });
  });

  test('client_ref_id too short', async () => {
    const res = await status(app, { client_ref_id: 'abc' });
    expect(res.body).toEqual({ success: false, http_code: 400, message: 'The client ref id field must be between 5 and 30 characters.' });
  });

  test('unknown ids: envelope B GENERIC_EXCEPTION', async () => {
    for (const q of [{ ref_id: '1234567890' }, { client_ref_id: 'NOPE12345' }] as Array<Record<string, string>>) {
      const res = await status(app, q);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        status: false,
        message: 'Unable to find transaction using provided ID',
        error: { code: 'GENERIC_EXCEPTION', message: 'Unable to find transaction using provided ID' },
      });
    }
  });

  test("another merchant's payout answers exactly as an unknown one", async () => {
    const body = payoutBody({ debit_from: OTHER.van });
    const created = await initialize(app, body, 'v1', otherHeaders);
    const foreignByRef = await status(app, { ref_id: created.body.data.ref_id });
    const foreignByClient = await status(app, { client_ref_id: String(body.client_ref_id) });
    const unknown = await status(app, { ref_id: '1234567890' });
    expect(foreignByRef.status).toBe(400);
    expect(foreignByRef.body).toEqual(unknown.body);
    expect(foreignByClient.body).toEqual(unknown.body);
  });
});

describe('status check rate limit: 3 per minute per merchant and transaction', () => {
  test('the 4th call in a minute gets 429 Too many attempts with Retry-After; the window reopens on the clock', async () => {
    const created = await initialize(app, payoutBody());
    const q = { ref_id: created.body.data.ref_id };
    for (let i = 0; i < 3; i++) expect((await status(app, q)).status).toBe(200);
    const limited = await status(app, q);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, http_code: 429, message: 'Too many attempts' });
    expect(limited.headers['retry-after']).toBe('60');

    advance(app, 45_000);
    const still = await status(app, q);
    expect(still.status).toBe(429);
    expect(still.headers['retry-after']).toBe('15');

    advance(app, 15_000);
    expect((await status(app, q)).status).toBe(200);
  });

  test('ref_id and client_ref_id of one payout share the counter', async () => {
    const body = payoutBody();
    const created = await initialize(app, body);
    await status(app, { ref_id: created.body.data.ref_id });
    await status(app, { client_ref_id: String(body.client_ref_id) });
    await status(app, { ref_id: created.body.data.ref_id });
    expect((await status(app, { client_ref_id: String(body.client_ref_id) })).status).toBe(429);
  });

  test('each transaction and each merchant has its own counter', async () => {
    const a = await initialize(app, payoutBody());
    const b = await initialize(app, payoutBody());
    for (let i = 0; i < 3; i++) await status(app, { ref_id: a.body.data.ref_id });
    expect((await status(app, { ref_id: a.body.data.ref_id })).status).toBe(429);
    expect((await status(app, { ref_id: b.body.data.ref_id })).status).toBe(200);
    // The other merchant asking for the same id has a counter of its own (and sees "not found").
    expect((await status(app, { ref_id: a.body.data.ref_id }, otherHeaders)).status).toBe(400);
  });

  test('--no-rate-limits turns the limit off', async () => {
    const free = await testApp({ rateLimits: false });
    const created = await initialize(free, payoutBody());
    for (let i = 0; i < 10; i++) expect((await status(free, { ref_id: created.body.data.ref_id })).status).toBe(200);
  });
});

describe('balance check', () => {
  test('current_balance of an own VAN, in rupees', async () => {
    const res = await request(app).get('/api/v1/public/balance/check').set(demoHeaders).query({ account_no: DEMO.van2 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, http_code: 200, message: expect.any(String), data: { current_balance: 5000000 } });
  });

  test('an INACTIVE VAN still reports its balance', async () => {
    const res = await request(app).get('/api/v1/public/balance/check').set(demoHeaders).query({ account_no: DEMO.inactiveVan });
    expect(res.body.data.current_balance).toBe(100000);
  });

  test('account_no missing', async () => {
    const res = await request(app).get('/api/v1/public/balance/check').set(demoHeaders);
    expect(res.body).toEqual({ success: false, http_code: 400, message: 'The account no field is required.' });
  });

  test('a foreign account answers like an unknown one', async () => {
    const foreign = await request(app).get('/api/v1/public/balance/check').set(demoHeaders).query({ account_no: OTHER.van });
    const unknown = await request(app).get('/api/v1/public/balance/check').set(demoHeaders).query({ account_no: 'NOSUCHVAN00000000000' });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual(unknown.body);
    expect(foreign.body).toEqual({ success: false, http_code: 400, message: 'The selected account no is invalid.' });
  });

  test('10 per minute per merchant and account, then 429 with Retry-After', async () => {
    const get = (acct: string) => request(app).get('/api/v1/public/balance/check').set(demoHeaders).query({ account_no: acct });
    for (let i = 0; i < 10; i++) expect((await get(DEMO.van1)).status).toBe(200);
    const limited = await get(DEMO.van1);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, http_code: 429, message: 'Too many attempts' });
    expect(limited.headers['retry-after']).toBe('60');
    expect((await get(DEMO.van2)).status).toBe(200);
    advance(app, 60_000);
    expect((await get(DEMO.van1)).status).toBe(200);
  });
});
