import type { Server } from 'node:http';
import request from 'supertest';
import type { SandboxApp } from '../../src/app.js';
import { advanceBy, balanceOf, DEMO, demoHeaders, initialize, payoutBody, record, status, testApp } from '../helpers.js';

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp({ rateLimits: false });
});

const pay = (amount: number, extra: Record<string, unknown> = {}) => initialize(app, payoutBody({ amount, ...extra }));

describe('magic rejections (1001.xx): envelope B, nothing debited, nothing stored', () => {
  test.each([
    [1001.01, 'TRANSACTION_LIMIT_EXCEEDED'],
    [1001.02, 'INSUFFICIENT_BALANCE'],
    [1001.03, 'ACCOUNT_NOT_ACTIVE'],
    [1001.04, 'TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE'],
    [1001.05, 'INVALID_BENEFICIARY'],
    [1001.06, 'INVALID_TRANSFER_ID'],
    [1001.07, 'GENERIC_EXCEPTION'],
  ])('%s → %s', async (amount, code) => {
    const before = await balanceOf(app);
    const body = payoutBody({ amount });
    const res = await initialize(app, body);
    expect(res.status).toBe(400);
    expect(res.body.status).toBe(false);
    expect(res.body.error.code).toBe(code);
    expect(res.headers['x-sandbox-rule']).toBe(amount.toFixed(2));
    expect(await balanceOf(app)).toBe(before);
    expect((await status(app, { client_ref_id: String(body.client_ref_id) })).body.error.message).toBe('Unable to find transaction using provided ID');
    // Nothing stored: the same client_ref_id is still free.
    expect((await initialize(app, { ...body, amount: 10 })).status).toBe(200);
  });

  test('1001.07 says the bank is unavailable', async () => {
    expect((await pay(1001.07)).body.message).toMatch(/bank is unavailable/i);
  });
});

describe('timelines (2002.xx), each step exactly at its due time and not before', () => {
  test('any other amount: Pending → Success after 5 s, with a 12-digit UTR and a bank message', async () => {
    const res = await pay(500);
    expect(res.headers['x-sandbox-rule']).toBe('default');
    const ref = res.body.data.ref_id;
    await advanceBy(app, '4999ms');
    expect((await record(app, ref)).status).toBe('Pending');
    await advanceBy(app, '1ms');
    const t = await record(app, ref);
    expect(t.status).toBe('Success');
    expect(t.bank_ref_number).toMatch(/^[1-9][0-9]{11}$/);
    expect(t.bank_res_msg).toBe('Transaction successful');
    expect(t.transaction_date).toBe('2026-01-01 09:00:05');
    expect(t.created_at).toBe('01/01/2026 09:00:00 AM');
  });

  test('2002.01: Pending → Failed after 5 s (Invalid account number); refunded to the paisa', async () => {
    const before = await balanceOf(app);
    const ref = (await pay(2002.01)).body.data.ref_id;
    expect(await balanceOf(app)).toBeCloseTo(before - 2002.01 - 5 - 0.9, 2);
    await advanceBy(app, '4999ms');
    expect((await record(app, ref)).status).toBe('Pending');
    await advanceBy(app, '1ms');
    const t = await record(app, ref);
    expect([t.status, t.bank_res_msg, t.bank_ref_number]).toEqual(['Failed', 'Invalid account number', '']);
    expect(await balanceOf(app)).toBe(before);
  });

  test('2002.02: Pending for 30 min, then Success', async () => {
    const ref = (await pay(2002.02)).body.data.ref_id;
    await advanceBy(app, '29m');
    await advanceBy(app, '59999ms');
    expect((await record(app, ref)).status).toBe('Pending');
    await advanceBy(app, '1ms');
    expect((await record(app, ref)).status).toBe('Success');
  });

  test('2002.03: Unknown after 5 s, Success 1 h later; one long advance sees each step at its own time', async () => {
    const ref = (await pay(2002.03)).body.data.ref_id;
    await advanceBy(app, '5s');
    expect((await record(app, ref)).status).toBe('Unknown');
    await advanceBy(app, '59m');
    expect((await record(app, ref)).status).toBe('Unknown');
    await advanceBy(app, '2h');
    const t = await record(app, ref);
    expect(t.status).toBe('Success');
    expect(t.transaction_date).toBe('2026-01-01 10:00:05');
  });

  test('2002.04: Unknown after 5 s, Failed 1 h later; refunded', async () => {
    const before = await balanceOf(app);
    const ref = (await pay(2002.04)).body.data.ref_id;
    await advanceBy(app, '5s');
    expect((await record(app, ref)).status).toBe('Unknown');
    expect(await balanceOf(app)).toBeLessThan(before);
    await advanceBy(app, '1h');
    expect((await record(app, ref)).status).toBe('Failed');
    expect(await balanceOf(app)).toBe(before);
  });

  test('2002.05: Success after 5 s, then reversed (Failed) 1 h later; refunded exactly once', async () => {
    const before = await balanceOf(app);
    const ref = (await pay(2002.05)).body.data.ref_id;
    await advanceBy(app, '5s');
    const success = await record(app, ref);
    expect(success.status).toBe('Success');
    expect(await balanceOf(app)).toBeCloseTo(before - 2002.05 - 5.9, 2);
    await advanceBy(app, '1h');
    const reversed = await record(app, ref);
    expect(reversed.status).toBe('Failed');
    expect(reversed.bank_ref_number).toBe(success.bank_ref_number);
    expect(await balanceOf(app)).toBe(before);
    await advanceBy(app, '30d');
    expect(await balanceOf(app)).toBe(before);
    const entries = app.sandbox.repo.state.accounts[DEMO.van1].ledger.filter((e) => e.ref === ref).map((e) => [e.type, e.amount]);
    expect(entries).toEqual([
      ['payout', -200205],
      ['fee', -500],
      ['tax', -90],
      ['refund', 200205],
      ['fee_refund', 500],
      ['tax_refund', 90],
    ]);
  });

  test('2002.06: created NEW, Pending after 5 s, Success 5 s later', async () => {
    const res = await pay(2002.06);
    expect(res.body.data.status).toBe('NEW');
    const ref = res.body.data.ref_id;
    expect((await record(app, ref)).status).toBe('NEW');
    await advanceBy(app, '5s');
    expect((await record(app, ref)).status).toBe('Pending');
    await advanceBy(app, '4999ms');
    expect((await record(app, ref)).status).toBe('Pending');
    await advanceBy(app, '1ms');
    expect((await record(app, ref)).status).toBe('Success');
  });

  test('2002.07: Pending until changed through the control API', async () => {
    const ref = (await pay(2002.07)).body.data.ref_id;
    await advanceBy(app, '365d');
    expect((await record(app, ref)).status).toBe('Pending');
  });
});

describe('faults (3003.xx)', () => {
  test('3003.01: HTTP 500 envelope A, but the payout is created (a retry finds it by client_ref_id)', async () => {
    const before = await balanceOf(app);
    const body = payoutBody({ amount: 3003.01 });
    const res = await initialize(app, body);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, http_code: 500, message: expect.any(String) });
    expect(res.headers['x-sandbox-rule']).toBe('3003.01');
    const found = await status(app, { client_ref_id: String(body.client_ref_id) });
    expect(found.status).toBe(200);
    expect(found.body.data.transaction.status).toBe('Pending');
    expect(await balanceOf(app)).toBeCloseTo(before - 3003.01 - 5.9, 2);
    const retry = await initialize(app, body);
    expect(retry.body.error).toEqual({ code: 'GENERIC_EXCEPTION', message: 'Duplicate Client Reference ID' });
    await advanceBy(app, '5s');
    expect((await status(app, { client_ref_id: String(body.client_ref_id) })).body.data.transaction.status).toBe('Success');
  });

  test('3003.02: the response waits 35 s of sandbox time; the payout exists meanwhile', async () => {
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const body = payoutBody({ amount: 3003.02 });
      let answered = false;
      const pending = request(server)
        .post('/api/v1/public/payment/transfer')
        .set(demoHeaders)
        .send(body)
        .then((r) => {
          answered = true;
          return r;
        });
      for (let i = 0; i < 200 && !(await status(app, { client_ref_id: String(body.client_ref_id) })).body.success; i++) {
        await new Promise((r) => setImmediate(r));
      }
      expect((await status(app, { client_ref_id: String(body.client_ref_id) })).status).toBe(200);
      await advanceBy(app, '34s');
      await new Promise((r) => setImmediate(r));
      expect(answered).toBe(false);
      await advanceBy(app, '1s');
      const res = await pending;
      expect(res.status).toBe(200);
      expect(res.body.data.client_ref_id).toBe(body.client_ref_id);
      expect(res.headers['x-sandbox-rule']).toBe('3003.02');
    } finally {
      server.close();
    }
  });

  test('3003.03: HTTP 503 envelope A; no payout is created', async () => {
    const before = await balanceOf(app);
    const body = payoutBody({ amount: 3003.03 });
    const res = await initialize(app, body);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ success: false, http_code: 503, message: 'Service temporarily unavailable. Please try again later.' });
    expect(res.headers['x-sandbox-rule']).toBe('3003.03');
    // As every 503 of the sandbox: when to try again.
    expect(res.headers['retry-after']).toBe('5');
    expect((await status(app, { client_ref_id: String(body.client_ref_id) })).status).toBe(400);
    expect(await balanceOf(app)).toBe(before);
  });

  test('3003.04: the connection is closed with no response; the payout is created', async () => {
    const body = payoutBody({ amount: 3003.04 });
    await expect(initialize(app, body)).rejects.toThrow(/socket hang up|ECONNRESET/);
    const found = await status(app, { client_ref_id: String(body.client_ref_id) });
    expect(found.status).toBe(200);
  });
});

describe('status events (the hook webhooks attach to)', () => {
  test('each status change produces one event with the record as it is after the change', async () => {
    const seen: Array<[string, string, number]> = [];
    app.sandbox.events.onPayoutStatus((p) => seen.push([p.ref_id, p.status, p.updated_at]));
    const ref = (await pay(2002.05)).body.data.ref_id;
    await advanceBy(app, '2h');
    const t0 = Date.parse('2026-01-01T09:00:00+05:30');
    expect(seen).toEqual([
      [ref, 'Success', t0 + 5_000],
      [ref, 'Failed', t0 + 5_000 + 3_600_000],
    ]);
  });
});
