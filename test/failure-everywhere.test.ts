import { join } from 'node:path';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import { crashStore } from '../src/store/store.js';
import { advanceBy, balanceOf, DEMO, demoHeaders, initialize, OTHER, otherHeaders, payoutBody, status, testApp, useTempDir } from './helpers.js';

/**
 * Failure everywhere: faults on every operation (rules with `times`, magic values), seeded chaos
 * per merchant, bank outage windows, read-after-write lag and poll-driven transitions.
 */

const dir = useTempDir();
const apps: SandboxApp[] = [];
async function app(options: Record<string, unknown> = {}): Promise<SandboxApp> {
  const a = await testApp({ rateLimits: false, ...options });
  apps.push(a);
  return a;
}
afterEach(async () => {
  for (const a of apps.splice(0)) await a.sandbox.close();
});

/** What a status check met: its HTTP status, or `drop` when the connection was reset. */
async function outcome(a: SandboxApp, ref: string, headers = demoHeaders): Promise<string> {
  try {
    const res = await request(a).get('/api/v1/public/payment/transfer/status').set(headers).query({ ref_id: ref });
    return `${res.status}${res.headers['x-sandbox-rule']?.startsWith('chaos:') ? ` ${res.headers['x-sandbox-rule']}` : ''}`;
  } catch {
    return 'drop';
  }
}

describe('seeded chaos per merchant', () => {
  const CHAOS = { percent: 20, modes: ['error_500', 'unavailable_503', 'drop'], operations: ['getPayoutStatus', 'getBalance'], seed: 7 };

  async function run(): Promise<{ seq: string[]; other: string[] }> {
    const a = await app();
    const ref = (await initialize(a, payoutBody())).body.data.ref_id as string;
    const otherRef = (await initialize(a, payoutBody({ debit_from: OTHER.van }), 'v1', otherHeaders)).body.data.ref_id as string;
    expect((await request(a).put('/__sandbox/merchants/SBXDEMO0001/chaos').send(CHAOS)).status).toBe(200);
    const seq: string[] = [];
    for (let i = 0; i < 200; i++) seq.push(await outcome(a, ref));
    const other: string[] = [];
    for (let i = 0; i < 20; i++) other.push(await outcome(a, otherRef, otherHeaders));
    // Off: no fault at all.
    expect((await request(a).delete('/__sandbox/merchants/SBXDEMO0001/chaos')).body).toMatchObject({ source: 'none' });
    for (let i = 0; i < 30; i++) expect(await outcome(a, ref)).toBe('200');
    return { seq, other };
  }

  test('20 % over 200 status checks: the same faults in two fresh sandboxes with one seed; another merchant untouched; none after DELETE', async () => {
    const [first, second] = [await run(), await run()];
    expect(second.seq).toEqual(first.seq);
    const faults = first.seq.filter((s) => s !== '200');
    expect(faults.length).toBeGreaterThan(20);
    expect(faults.length).toBeLessThan(60);
    expect(new Set(faults.map((f) => f.split(' ')[0]))).toEqual(new Set(['500', '503', 'drop']));
    expect(first.seq.filter((s) => s.startsWith('503'))[0]).toBe('503 chaos:getPayoutStatus:unavailable_503');
    expect(first.other.every((s) => s === '200')).toBe(true);
  }, 60_000);

  test('every chaos fault is journaled with its rule and counted as a transport fault', async () => {
    const a = await app();
    const ref = (await initialize(a, payoutBody())).body.data.ref_id as string;
    await request(a)
      .put('/__sandbox/merchants/SBXDEMO0001/chaos')
      .send({ ...CHAOS, percent: 100, modes: ['unavailable_503'] });
    const res = await request(a).get('/api/v1/public/payment/transfer/status').set(demoHeaders).query({ ref_id: ref });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toEqual({ success: false, http_code: 503, message: 'Service temporarily unavailable. Please try again later.' });
    const entry = (await request(a).get(`/__sandbox/requests/${res.headers['x-request-id']}`)).body;
    expect(entry).toMatchObject({ status: 503, rule: 'chaos:getPayoutStatus:unavailable_503' });
    const coverage = (await request(a).get('/__sandbox/merchants/SBXDEMO0001/coverage')).body.items as Array<{ id: string; hits: number }>;
    expect(coverage.find((i) => i.id === 'transport.unavailable_503')?.hits).toBe(1);
  });

  test('bad chaos settings are refused naming the rule; nothing is stored', async () => {
    const a = await app();
    const put = (body: unknown) =>
      request(a)
        .put('/__sandbox/merchants/SBXDEMO0001/chaos')
        .send(body as object);
    expect((await put({ percent: 120 })).body.error).toBe('The percent field must be at most 100.');
    expect((await put({ percent: 10, modes: ['explode'] })).body.error).toBe('The modes.0 field must be one of error_500, unavailable_503, drop, delay.');
    expect((await put({ percent: 10, operations: ['getStatus'] })).body.error).toMatch(
      /^The operations\.0 field must be one of initializePayout, getPayoutStatus, getBalance, /,
    );
    expect((await request(a).get('/__sandbox/merchants/SBXDEMO0001/chaos')).body).toMatchObject({ source: 'none' });
    expect((await request(a).put('/__sandbox/merchants/NOPE/chaos').send({ percent: 1 })).status).toBe(404);
  });
});

describe('faults of any operation, in a scenario', () => {
  test('a times: 2 rule on getBalance: two 503s with Retry-After, then 200', async () => {
    const a = await app({
      scenario: {
        extends: 'default',
        name: 'balance-flaky',
        faults: [{ name: 'balance-503', operation: 'getBalance', effect: 'unavailable_503', times: 2, retry_after: '3s' }],
      },
    });
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(a).get('/api/v1/public/balance/check').set(demoHeaders).query({ account_no: DEMO.van1 });
      answers.push([res.status, res.headers['retry-after'], res.headers['x-sandbox-rule']]);
    }
    expect(answers).toEqual([
      [503, '3', 'balance-503'],
      [503, '3', 'balance-503'],
      [200, undefined, undefined],
    ]);
    // Another merchant has its own count.
    expect((await request(a).get('/api/v1/public/balance/check').set(otherHeaders).query({ account_no: OTHER.van })).status).toBe(503);
  });

  test('the magic values: a beneficiary account whose create answers 503 once; status checks of an SBX503 payout, twice', async () => {
    const a = await app();
    const create = () =>
      request(a).post('/api/v1/public/beneficiary/create').set(demoHeaders).send({
        transfer_type: 'BANK',
        beneficiary_name: 'Flaky Bank',
        beneficiary_email: 'f@example.com',
        beneficiary_mobile: '9123456780',
        account_number: '503503503503',
        ifsc_code: 'ICIC0001234',
      });
    const first = await create();
    expect([first.status, first.headers['x-sandbox-rule']]).toEqual([503, 'beneficiary-503-once']);
    expect(Object.values(a.sandbox.repo.state.beneficiaries).some((b) => b.bank_account_number === '503503503503')).toBe(false);
    expect((await create()).status).toBe(200);
    await initialize(a, payoutBody({ client_ref_id: 'SBX503-0001' }));
    const checks = [];
    for (let i = 0; i < 3; i++) checks.push((await status(a, { client_ref_id: 'SBX503-0001' })).status);
    expect(checks).toEqual([503, 503, 200]);
    await initialize(a, payoutBody({ client_ref_id: 'SBXDROP-0001' }));
    await expect(status(a, { client_ref_id: 'SBXDROP-0001' })).rejects.toThrow(/socket hang up|ECONNRESET/);
  });

  test('error_500_after on a verification: verified and charged, then a 500; found by its details', async () => {
    const a = await app();
    const before = await balanceOf(a);
    const res = await request(a)
      .post('/api/v1/public/verification/')
      .set(demoHeaders)
      .send({ debit_from: DEMO.van1, verification_type: 'BANK', bank: { account_no: '500500500500', ifsc_code: 'HDFC0001234' } });
    expect(res.status).toBe(500);
    expect(res.headers['x-sandbox-rule']).toBe('bank-verify-500-after');
    expect(Object.values(a.sandbox.repo.state.verifications)).toHaveLength(1);
    expect(await balanceOf(a)).toBeLessThan(before);
  });

  test('hold: the PAN verification provider hangs until the clock moves past 35 s; the verification is made', async () => {
    const a = await app();
    let done = false;
    const held = request(a)
      .post('/api/v1/public/verification/')
      .set(demoHeaders)
      .send({ debit_from: DEMO.van1, verification_type: 'PAN', pan: { pan_number: 'ZZZPZ9999Z' } })
      .then((r) => {
        done = true;
        return r;
      });
    // Made at once, answered only once the clock passes the hold.
    for (let i = 0; i < 50 && Object.keys(a.sandbox.repo.state.verifications).length === 0; i++) await new Promise((r) => setImmediate(r));
    expect(Object.keys(a.sandbox.repo.state.verifications)).toHaveLength(1);
    await advanceBy(a, '30s');
    expect(done).toBe(false);
    await advanceBy(a, '6s');
    const res = await held;
    expect([res.status, res.headers['x-sandbox-rule']]).toEqual([200, 'pan-hangs']);
  });

  test('bad fault rules are refused at load naming the path and the rule', async () => {
    await expect(
      testApp({ scenario: { extends: 'default', name: 'x', faults: [{ name: 'r', operation: 'getBalance', effect: 'error_500_after' }] } }),
    ).rejects.toThrow('/faults/0/effect: error_500_after needs an operation that changes state (initializePayout, createBeneficiary, verify), not getBalance');
    await expect(
      testApp({ scenario: { extends: 'default', name: 'x', faults: [{ name: 'r', operation: 'getStatus' as 'getBalance', effect: 'drop' }] } }),
    ).rejects.toThrow(/\/faults\/0\/operation/);
    await expect(
      testApp({ scenario: { extends: 'default', name: 'x', faults: [{ name: 'r', operation: 'verify', effect: 'delay', delay: '5s' }] } }),
    ).rejects.toThrow('/faults/0/delay: must be at most 2s (a real delay)');
  });
});

describe('bank outage windows', () => {
  test('an HDFC IMPS outage: HDFC IMPS refused; HDFC NEFT and SBIN IMPS accepted; HDFC IMPS accepted after the window', async () => {
    const a = await app();
    const made = await request(a).post('/__sandbox/outages').send({ bank: 'HDFC', payment_method: '1001', for: '2h', effect: 'reject' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      bank: 'HDFC',
      payment_method: '1001',
      effect: 'reject',
      active: true,
      from: '2026-01-01T09:00:00.000+05:30',
      to: '2026-01-01T11:00:00.000+05:30',
    });
    const before = await balanceOf(a);
    const refused = await initialize(a, payoutBody({ ifsc_code: 'HDFC0001234', payment_method: '1001' }));
    expect(refused.body).toEqual({
      status: false,
      message: expect.stringContaining('HDFC IMPS) is unavailable'),
      error: { code: 'GENERIC_EXCEPTION', message: expect.any(String) },
    });
    expect(refused.headers['x-sandbox-rule']).toBe(`outage:${made.body.id}`);
    expect(await balanceOf(a)).toBe(before);
    expect((await initialize(a, payoutBody({ ifsc_code: 'HDFC0001234', payment_method: '1002' }))).status).toBe(200);
    expect((await initialize(a, payoutBody({ ifsc_code: 'SBIN0001234', payment_method: '1001' }))).status).toBe(200);
    await advanceBy(a, '2h');
    expect((await initialize(a, payoutBody({ ifsc_code: 'HDFC0001234', payment_method: '1001' }))).status).toBe(200);
    expect((await request(a).get('/__sandbox/outages')).body.outages[0]).toMatchObject({ active: false });
  });

  test('hold: accepted and Pending through the window, settled by the usual timeline after it, the ledger exact', async () => {
    const a = await app();
    await request(a).post('/__sandbox/outages').send({ bank: 'HDFC', for: '1h', effect: 'hold' });
    const before = await balanceOf(a);
    const ref = (await initialize(a, payoutBody({ ifsc_code: 'HDFC0009999' }))).body.data.ref_id as string;
    expect(await balanceOf(a)).toBe(before - 105.9);
    await advanceBy(a, '1h');
    expect((await status(a, { ref_id: ref })).body.data.transaction.status).toBe('Pending');
    await advanceBy(a, '5s');
    expect((await status(a, { ref_id: ref })).body.data.transaction.status).toBe('Success');
    expect(await balanceOf(a)).toBe(before - 105.9);
    expect((await request(a).get(`/__sandbox/accounts/${DEMO.van1}/ledger`)).body.balanced).toBe(true);
  });

  test('unknown: sent to Unknown at its creation instant (on a manual clock, at the next advance, even of 1 ms), resolved by the usual timeline after the window', async () => {
    const a = await app();
    await request(a).post('/__sandbox/outages').send({ bank: 'ICIC', for: '30m', effect: 'unknown' });
    const made = await initialize(a, payoutBody({ ifsc_code: 'ICIC0001234' }));
    expect(made.body.data.status).toBe('Pending');
    const ref = made.body.data.ref_id as string;
    expect((await status(a, { ref_id: ref })).body.data.transaction.status).toBe('Pending');
    await advanceBy(a, '1ms');
    expect((await status(a, { ref_id: ref })).body.data.transaction.status).toBe('Unknown');
    await advanceBy(a, '30m');
    expect((await status(a, { ref_id: ref })).body.data.transaction.status).toBe('Unknown');
    // The usual timeline (Success 5 s on) counts from the window's end.
    await advanceBy(a, '5s');
    expect((await status(a, { ref_id: ref })).body.data.transaction.status).toBe('Success');
  });

  test('bad outages are refused naming the rule; nothing is stored', async () => {
    const a = await app();
    const post = (body: unknown) =>
      request(a)
        .post('/__sandbox/outages')
        .send(body as object);
    expect((await post({ bank: 'HDF', effect: 'reject' })).body.error).toBe("The bank field must be an IFSC's first four letters, e.g. HDFC.");
    expect((await post({ bank: 'HDFC', effect: 'explode' })).body.error).toBe('The effect field must be one of reject, hold, unknown.');
    expect((await post({ bank: 'HDFC', effect: 'reject', for: 'a while' })).body.error).toBe(
      'The for field must be a duration such as 500ms, 5s, 30m, 24h or 1d, a compound such as 1h30m, or ISO 8601 such as PT1H30M.',
    );
    expect((await post({ bank: 'HDFC', effect: 'reject', from: '2026-01-01T10:00:00+05:30', to: '2026-01-01T09:00:00+05:30' })).body.error).toBe(
      'The outage to must be after from.',
    );
    expect((await post({ bank: 'HDFC', effect: 'hold' })).body.error).toBe('A hold outage needs an end: give to or for.');
    expect((await request(a).get('/__sandbox/outages')).body.outages).toEqual([]);
  });
});

describe('read-after-write lag and poll-driven transitions', () => {
  test('2002.08: not found by either id for 5 s of the merchant clock, then found, then the default timeline', async () => {
    const a = await app();
    const body = payoutBody({ amount: 2002.08 });
    const ref = (await initialize(a, body)).body.data.ref_id as string;
    for (const ids of [{ ref_id: ref }, { client_ref_id: body.client_ref_id as string }] as Array<Record<string, string>>) {
      const lost = await status(a, ids);
      expect(lost.body).toEqual({
        status: false,
        message: 'Unable to find transaction using provided ID',
        error: { code: 'GENERIC_EXCEPTION', message: 'Unable to find transaction using provided ID' },
      });
    }
    // The same client_ref_id again is still a duplicate: the payout exists.
    expect((await initialize(a, body)).body.error.message).toBe('Duplicate Client Reference ID');
    await advanceBy(a, '5s');
    expect((await status(a, { ref_id: ref })).body.data.transaction.status).toBe('Success');
  });

  test('2002.09: Pending, and Success on the 2nd status check after initialize (with its webhook)', async () => {
    const { startReceiver } = await import('./receiver.js');
    const receiver = await startReceiver(() => 200);
    try {
      const a = await app();
      await request(a).patch('/__sandbox/merchants/SBXDEMO0001').send({ webhook_url: receiver.url });
      const ref = (await initialize(a, payoutBody({ amount: 2002.09 }))).body.data.ref_id as string;
      await advanceBy(a, '1h');
      expect((await request(a).get(`/__sandbox/payouts/${ref}`)).body.timeline.scheduled).toEqual([
        { status: 'Success', at: null, bank_res_msg: 'Transaction successful', after_polls: 2, polls: 0 },
      ]);
      expect((await status(a, { ref_id: ref })).body.data.transaction.status).toBe('Pending');
      expect((await status(a, { ref_id: ref })).body.data.transaction.status).toBe('Success');
      await a.sandbox.admin.settleWebhooks();
      const deliveries = (await request(a).get(`/__sandbox/webhooks?ref_id=${ref}`)).body.deliveries as Array<{ event_status: string; state: string }>;
      expect(deliveries.map((d) => [d.event_status, d.state])).toEqual([['Success', 'delivered']]);
      expect(receiver.bodies()).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});

test('a restart on a file store keeps chaos settings and outages', async () => {
  const data = join(dir(), 'db.json');
  const first = await testApp({ data, fsync: false });
  await request(first).put('/__sandbox/merchants/SBXDEMO0001/chaos').send({ percent: 30, seed: 11 });
  const outage = (await request(first).post('/__sandbox/outages').send({ bank: 'HDFC', for: '3h', effect: 'reject' })).body.id as string;
  first.sandbox.scheduler.stop();
  await crashStore(first.sandbox.store);
  const again = await app({ data, fsync: false });
  expect((await request(again).get('/__sandbox/merchants/SBXDEMO0001/chaos')).body).toMatchObject({ source: 'merchant', percent: 30, seed: 11 });
  expect((await request(again).get('/__sandbox/outages')).body.outages.map((o: { id: string }) => o.id)).toEqual([outage]);
});
