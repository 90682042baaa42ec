import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { advanceBy, balanceOf, DEMO, demoHeaders, headersOf, initialize, OTHER, payoutBody, record, status, testApp } from './helpers.js';
import { startReceiver } from './receiver.js';

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp({ rateLimits: false });
});

const control = () => request(app);

describe('admin token', () => {
  test('with --admin-token every control route but health needs Authorization: Bearer <token>', async () => {
    const locked = await testApp({ adminToken: 's3cret-admin-token-0001' });
    // Health reveals nothing: container health checks and load balancers ask it without a token.
    expect((await request(locked).get('/__sandbox/health')).body).toEqual({ ok: true, version: expect.any(String), pid: process.pid, v8_flags: [] });
    for (const [method, path] of [
      ['get', '/__sandbox/control-openapi.json'],
      ['get', '/__sandbox/clock'],
      ['post', '/__sandbox/reset'],
      ['get', '/__sandbox/webhooks'],
      ['get', '/__sandbox/openapi.json'],
    ] as const) {
      const none = await request(locked)[method](path);
      expect(none.status).toBe(401);
      expect(none.body.error).toMatch(/Bearer/);
      expect((await request(locked)[method](path).set('Authorization', 'Bearer wrong')).status).toBe(401);
      expect((await request(locked)[method](path).set('Authorization', 'Bearer s3cret-admin-token-0001')).status).toBe(200);
    }
  });

  test('the emulated API never takes the admin token as merchant credentials', async () => {
    const locked = await testApp({ adminToken: 's3cret-admin-token-0001' });
    const res = await request(locked).get('/api/v1/public/balance/check').query({ account_no: DEMO.van1 }).set({
      Authorization: 'Bearer s3cret-admin-token-0001',
      'x-merchant-email': DEMO.email,
      'x-api-key': 's3cret-admin-token-0001',
      'x-api-secret': 's3cret-admin-token-0001',
    });
    expect(res.status).toBe(401);
    expect((await request(locked).get('/api/v1/public/balance/check').query({ account_no: DEMO.van1 }).set(demoHeaders)).status).toBe(200);
  });

  test('without a token the control API is open', async () => {
    expect((await control().get('/__sandbox/health')).body).toEqual({ ok: true, version: expect.any(String), pid: process.pid, v8_flags: [] });
  });
});

describe('merchants and accounts', () => {
  test('POST /__sandbox/merchants: fresh credentials and a funded ACTIVE VAN that work on the emulated API', async () => {
    const res = await control().post('/__sandbox/merchants').send({ balance: 5000, name: 'Suite A' });
    expect(res.status).toBe(201);
    const m = res.body;
    expect(m).toMatchObject({ name: 'Suite A', balance: 5000, account_no: expect.stringMatching(/^VAN\d{17}$/) });
    const bal = await request(app).get('/api/v1/public/balance/check').set(m.headers).query({ account_no: m.account_no });
    expect(bal.body.data.current_balance).toBe(5000);
    const pay = await initialize(app, payoutBody({ debit_from: m.account_no }), 'v1', m.headers);
    expect(pay.status).toBe(200);
    const co = await request(app).get('/api/v1/payment/transaction/PAYDEMO0000000002/status').set(m.checkout_headers);
    expect(co.status).toBe(404);
  });

  test('merchants created in parallel stay isolated', async () => {
    const [a, b] = (await Promise.all([control().post('/__sandbox/merchants').send({}), control().post('/__sandbox/merchants').send({})])).map((r) => r.body);
    expect(a.merchant_id).not.toBe(b.merchant_id);
    const ra = await initialize(app, payoutBody({ debit_from: a.account_no, client_ref_id: 'SAMEREF01' }), 'v1', a.headers);
    const rb = await initialize(app, payoutBody({ debit_from: b.account_no, client_ref_id: 'SAMEREF01' }), 'v1', b.headers);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    expect((await status(app, { ref_id: ra.body.data.ref_id }, b.headers)).status).toBe(400);
    expect((await initialize(app, payoutBody({ debit_from: b.account_no }), 'v1', a.headers)).body.message).toBe('The selected debit from is invalid.');
    expect((await request(app).get('/api/v1/public/balance/check').set(a.headers).query({ account_no: b.account_no })).status).toBe(400);
  });

  test('a taken email is a 409', async () => {
    expect((await control().post('/__sandbox/merchants').send({ email: DEMO.email })).status).toBe(409);
  });

  test('PATCH /__sandbox/merchants/:email changes the limit and the webhook target', async () => {
    const receiver = await startReceiver();
    try {
      const res = await control()
        .patch(`/__sandbox/merchants/${DEMO.email}`)
        .send({ per_transaction_limit: 100, webhook_url: receiver.url, webhook_version: 'v2' });
      expect(res.body).toMatchObject({ per_transaction_limit: 100, webhook_url: receiver.url, webhook_version: 'v2' });
      expect((await initialize(app, payoutBody({ amount: 100.01 }))).body.error.code).toBe('TRANSACTION_LIMIT_EXCEEDED');
      await initialize(app, payoutBody({ amount: 50 }));
      await advanceBy(app, '5s');
      await receiver.waitFor(1);
      expect(receiver.bodies()[0].success).toBe(true);
      expect((await control().patch('/__sandbox/merchants/nobody@example.com').send({})).status).toBe(404);
      expect((await control().patch(`/__sandbox/merchants/${DEMO.email}`).send({ webhook_version: 'v3' })).body).toEqual({
        error: 'The webhook version field must be one of v1, v2.',
      });
    } finally {
      await app.sandbox.close();
      await receiver.close();
    }
  });

  test('credit adds funds through the ledger; PATCH account sets its status', async () => {
    const credited = await control().post(`/__sandbox/accounts/${DEMO.van1}/credit`).send({ amount: 250.75 });
    expect(credited.body).toEqual({ account_no: DEMO.van1, balance: 1000250.75 });
    expect(await balanceOf(app)).toBe(1000250.75);
    expect((await control().post(`/__sandbox/accounts/${DEMO.van1}/credit`).send({ amount: -5 })).status).toBe(400);
    expect((await control().post('/__sandbox/accounts/NOPE/credit').send({ amount: 5 })).status).toBe(404);
    await control().patch(`/__sandbox/accounts/${DEMO.van1}`).send({ status: 'INACTIVE' }).expect(200);
    expect((await initialize(app, payoutBody())).body.error.code).toBe('ACCOUNT_NOT_ACTIVE');
    await control().patch(`/__sandbox/accounts/${DEMO.inactiveVan}`).send({ status: 'ACTIVE' }).expect(200);
    expect((await initialize(app, payoutBody({ debit_from: DEMO.inactiveVan }))).status).toBe(200);
  });

  test('the ledger statement: every entry with its running balance, and whether balance = sum', async () => {
    await initialize(app, payoutBody({ amount: 2002.01 }));
    await advanceBy(app, '5s');
    await control().post(`/__sandbox/accounts/${DEMO.van1}/credit`).send({ amount: 10 });
    await request(app)
      .post('/api/v1/public/verification/')
      .set(demoHeaders)
      .send({ debit_from: DEMO.van1, verification_type: 'PAN', pan: { pan_number: 'ABCPE1234F' } });
    const res = await control().get(`/__sandbox/accounts/${DEMO.van1}/ledger`);
    expect(res.body).toMatchObject({ account_no: DEMO.van1, merchant_id: 'SBXDEMO0001', status: 'ACTIVE', balanced: true });
    expect(res.body.balance).toBe(res.body.ledger_sum);
    expect(res.body.entries.map((e: { type: string; amount: number; balance_after: number }) => [e.type, e.amount, e.balance_after])).toEqual([
      ['credit', 1000000, 1000000],
      ['payout', -2002.01, 997997.99],
      ['fee', -5, 997992.99],
      ['tax', -0.9, 997992.09],
      ['refund', 2002.01, 999994.1],
      ['fee_refund', 5, 999999.1],
      ['tax_refund', 0.9, 1000000],
      ['credit', 10, 1000010],
      ['verification', -2, 1000008],
      ['verification_tax', -0.36, 1000007.64],
    ]);
  });
});

describe('forcing transitions', () => {
  test('a payout forced to Success, then Failed: webhook and refund as on the natural path', async () => {
    const receiver = await startReceiver();
    try {
      const a = await testApp({ rateLimits: false, webhookUrl: receiver.url });
      const before = await balanceOf(a);
      const ref = (await initialize(a, payoutBody({ amount: 2002.07 }))).body.data.ref_id;
      const ok = await request(a).post(`/__sandbox/payouts/${ref}/status`).send({ status: 'Success', bank_res_msg: 'Forced' });
      expect(ok.status).toBe(200);
      expect(ok.body.transaction).toMatchObject({ status: 'Success', bank_res_msg: 'Forced', bank_ref_number: expect.stringMatching(/^\d{12}$/) });
      await receiver.waitFor(1);
      expect(receiver.bodies()[0].transaction.status).toBe('Success');
      await request(a).post(`/__sandbox/payouts/${ref}/status`).send({ status: 'Failed' }).expect(200);
      expect(await balanceOf(a)).toBe(before);
      await receiver.waitFor(2);
      await a.sandbox.close();
    } finally {
      await receiver.close();
    }
  });

  test('a forced change drops the scripted steps still to come', async () => {
    const ref = (await initialize(app, payoutBody({ amount: 2002.03 }))).body.data.ref_id;
    await control().post(`/__sandbox/payouts/${ref}/status`).send({ status: 'Unknown' }).expect(200);
    await advanceBy(app, '2h');
    expect((await record(app, ref)).status).toBe('Unknown');
  });

  test('a transition a payout cannot make is a 409 with the reason, kept in the journal', async () => {
    const ref = (await initialize(app, payoutBody({ amount: 2002.01 }))).body.data.ref_id;
    await advanceBy(app, '5s');
    const res = await control().post(`/__sandbox/payouts/${ref}/status`).send({ status: 'Success' });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('Failed → Success is not a transition a payout can make');
    const explain = await control().get(`/__sandbox/requests/${res.headers['x-request-id']}`);
    expect(explain.body.refused_transitions).toEqual([
      { id: ref, from: 'Failed', to: 'Success', reason: 'Failed → Success is not a transition a payout can make' },
    ]);
    expect((await control().post('/__sandbox/payouts/1234567890/status').send({ status: 'Success' })).status).toBe(404);
    expect((await control().post(`/__sandbox/payouts/${ref}/status`).send({ status: 'Done' })).body).toEqual({
      error: 'The status field must be one of NEW, Pending, Success, Failed, Unknown.',
    });
  });

  test('a beneficiary forced Active takes payouts', async () => {
    const pending = DEMO.pendingBene;
    const body = payoutBody({ beneficiary_id: pending });
    expect((await initialize(app, body)).body.error.code).toBe('INVALID_BENEFICIARY');
    const res = await control().post(`/__sandbox/beneficiaries/${pending}/status`).send({ status: 'Active' });
    expect(res.body).toMatchObject({ bene_id: pending, status: 'Active' });
    expect((await initialize(app, { ...body, client_ref_id: 'BENEFORCE1' })).status).toBe(200);
    expect((await control().post('/__sandbox/beneficiaries/NOPE/status').send({ status: 'Active' })).status).toBe(404);
  });

  test('a checkout transaction forced to Failed; a final one cannot move', async () => {
    const created = (await control().post('/__sandbox/checkout/transactions').send({ merchant_id: 'SBXDEMO0001', amount: 10 })).body;
    const res = await control().post(`/__sandbox/checkout/transactions/${created.payment_id}/status`).send({ status: 'Failed' });
    expect(res.body).toMatchObject({ status: 'Failed', status_flag: 0 });
    await advanceBy(app, '1h');
    const again = await control().post(`/__sandbox/checkout/transactions/${created.payment_id}/status`).send({ status: 'Success' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('Failed is final');
  });
});

describe('webhooks through the control API', () => {
  test('GET /__sandbox/webhooks lists newest first, filters by ref_id; redeliver sends one again', async () => {
    const receiver = await startReceiver();
    try {
      const a = await testApp({ rateLimits: false, webhookUrl: receiver.url });
      const r1 = (await initialize(a, payoutBody())).body.data.ref_id;
      const r2 = (await initialize(a, payoutBody({ amount: 2002.05 }))).body.data.ref_id;
      await advanceBy(a, '2h');
      await receiver.waitFor(3);
      const all = (await request(a).get('/__sandbox/webhooks')).body.deliveries;
      expect(all).toHaveLength(3);
      expect(all[0].event_status).toBe('Failed');
      const only = (await request(a).get('/__sandbox/webhooks').query({ ref_id: r1 })).body.deliveries;
      expect(only).toHaveLength(1);
      expect(only[0]).toMatchObject({ ref_id: r1, state: 'delivered', version: 'v1', attempts: [{ n: 1, status: 200 }] });
      expect(only[0].body.transaction.ref_id).toBe(Number(r1));
      const redone = await request(a).post(`/__sandbox/webhooks/${only[0].delivery_id}/redeliver`);
      expect(redone.status).toBe(202);
      await receiver.waitFor(4);
      expect(receiver.received[3].headers['x-sandbox-attempt']).toBe('2');
      expect((await request(a).post('/__sandbox/webhooks/whd_nope/redeliver')).status).toBe(404);
      expect((await request(a).get('/__sandbox/webhooks').query({ ref_id: r2 })).body.deliveries).toHaveLength(2);
      await a.sandbox.close();
    } finally {
      await receiver.close();
    }
  });
});

describe('journal and explain', () => {
  test('each request is journaled; GET /__sandbox/requests/:id explains which rule matched', async () => {
    const res = await initialize(app, payoutBody({ amount: 1001.02 }));
    const entry = (await control().get(`/__sandbox/requests/${res.headers['x-request-id']}`)).body;
    expect(entry).toMatchObject({
      request_id: res.headers['x-request-id'],
      method: 'POST',
      path: '/api/v1/public/payment/transfer',
      merchant_id: 'SBXDEMO0001',
      status: 400,
      rule: '1001.02',
      refused_transitions: [],
      at: '2026-01-01T09:00:00.000+05:30',
    });
    expect(typeof entry.latency_ms).toBe('number');
    const list = (await control().get('/__sandbox/requests')).body.requests;
    expect(list[0].request_id).toBe(res.headers['x-request-id']);
    expect((await control().get('/__sandbox/requests/nope')).status).toBe(404);
  });

  test('the journal is bounded', async () => {
    const small = await testApp({ journalSize: 5 });
    for (let i = 0; i < 8; i++) await request(small).get('/__sandbox/health');
    expect((await request(small).get('/__sandbox/requests').query({ limit: 100, include: 'control' })).body.requests).toHaveLength(5);
  });
});

describe('scenario switch', () => {
  test('PUT /__sandbox/scenario by name, or inline; bad input is a 400 or 404', async () => {
    const byName = await control().put('/__sandbox/scenario').send({ name: 'realistic' });
    expect(byName.body.name).toBe('realistic');
    const ref = (await initialize(app, payoutBody({ client_ref_id: 'REAL00001' }))).body.data.ref_id;
    await advanceBy(app, '5s');
    expect((await record(app, ref)).status).not.toBe('Success');
    const inline = await control()
      .put('/__sandbox/scenario')
      .send({ scenario: { name: 'fast', payouts: { default_timeline: [{ after: '1s', status: 'Failed' }] } } });
    expect(inline.body).toEqual({ name: 'fast', source: 'inline' });
    const ref2 = (await initialize(app, payoutBody())).body.data.ref_id;
    await advanceBy(app, '1s');
    expect((await record(app, ref2)).status).toBe('Failed');
    expect((await control().put('/__sandbox/scenario').send({ name: 'nope' })).status).toBe(404);
    const bad = await control()
      .put('/__sandbox/scenario')
      .send({ scenario: { name: 'x', payouts: { default_timeline: [{ after: 'soon', status: 'Success' }] } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('/payouts/default_timeline/0/after');
    expect((await control().put('/__sandbox/scenario').send({})).status).toBe(400);
  });
});

describe('reset and snapshots', () => {
  test('reset: back to the fixtures, the scenario, the clock start; the outbox emptied', async () => {
    const ref = (await initialize(app, payoutBody())).body.data.ref_id;
    await control().put('/__sandbox/scenario').send({ name: 'realistic' });
    await control().post('/__sandbox/merchants').send({});
    await advanceBy(app, '1d');
    const res = await control().post('/__sandbox/reset');
    expect(res.body).toMatchObject({ ok: true, scenario: 'default', clock: { now: '2026-01-01T09:00:00.000+05:30' } });
    expect(await balanceOf(app)).toBe(1000000);
    expect((await status(app, { ref_id: ref })).status).toBe(400);
    expect(app.sandbox.repo.allMerchants()).toHaveLength(2);
    expect((await control().get('/__sandbox/webhooks')).body.deliveries).toHaveLength(0);
  });

  test('a snapshot restored after changes gives back the exact balances, payouts and clock; its timelines go on', async () => {
    const kept = (await initialize(app, payoutBody({ amount: 2002.03 }))).body.data.ref_id;
    await advanceBy(app, '5s');
    const saved = await control().post('/__sandbox/snapshots').send({ name: 'base' });
    expect(saved.status).toBe(201);
    const balanceAt = await balanceOf(app);
    const clockAt = (await control().get('/__sandbox/clock')).body.now;

    const extra = (await initialize(app, payoutBody({ amount: 700 }))).body.data.ref_id;
    await control().post(`/__sandbox/accounts/${DEMO.van1}/credit`).send({ amount: 99 });
    await advanceBy(app, '2h');
    expect((await record(app, kept)).status).toBe('Success');

    const restored = await control().post('/__sandbox/snapshots/base/restore');
    expect(restored.body.clock.now).toBe(clockAt);
    expect(await balanceOf(app)).toBe(balanceAt);
    expect((await status(app, { ref_id: extra })).status).toBe(400);
    expect((await record(app, kept)).status).toBe('Unknown');
    await advanceBy(app, '1h');
    expect((await record(app, kept)).status).toBe('Success');
    // Restoring again gives the same starting point (the snapshot itself is untouched).
    await control().post('/__sandbox/snapshots/base/restore').expect(200);
    expect((await record(app, kept)).status).toBe('Unknown');
    expect((await control().get('/__sandbox/snapshots')).body.snapshots).toEqual([{ name: 'base', at: clockAt }]);
    expect((await control().post('/__sandbox/snapshots/nope/restore')).status).toBe(404);
    expect((await control().post('/__sandbox/snapshots').send({ name: 'bad name!' })).status).toBe(400);
  });
});

test('an unknown control route is a 404 { error }', async () => {
  const res = await control().get('/__sandbox/nothing');
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ error: 'No control route GET /__sandbox/nothing.' });
});

test('the other merchant is untouched by control calls on the demo merchant', async () => {
  await control().post(`/__sandbox/accounts/${DEMO.van1}/credit`).send({ amount: 1 });
  const res = await request(app).get('/api/v1/public/balance/check').set(headersOf(OTHER)).query({ account_no: OTHER.van });
  expect(res.body.data.current_balance).toBe(250000);
});
