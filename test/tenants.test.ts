import { jest } from '@jest/globals';
import request from 'supertest';
import { openSandbox } from '../src/admin/sandbox.js';
import type { SandboxApp } from '../src/app.js';
import { createApp } from '../src/app.js';
import { startSandbox } from '../src/index.js';
import { DEMO, demoHeaders, OTHER, otherHeaders, payoutBody, testApp, useTempDir } from './helpers.js';
import { startReceiver } from './receiver.js';

/**
 * Parallel-safe tenants: each merchant's clock, snapshots and reset are its own, so concurrent
 * tests on their own merchants never see each other's time or records.
 */

interface Tenant {
  merchant_id: string;
  account_no: string;
  headers: Record<string, string>;
  clock?: { now: string; mode: string; follows_sandbox_clock: boolean };
}

let app: SandboxApp;
beforeEach(async () => {
  app = await testApp();
});

const control = () => request(app);

async function tenant(body: Record<string, unknown> = {}): Promise<Tenant> {
  const res = await control().post('/__sandbox/merchants').send(body);
  expect(res.status).toBe(201);
  return res.body as Tenant;
}

async function pay(t: Tenant, amount: number, clientRef?: string) {
  const res = await request(app)
    .post('/api/v2/public/payment/transfer')
    .set(t.headers)
    .send(payoutBody({ debit_from: t.account_no, amount, ...(clientRef ? { client_ref_id: clientRef } : {}) }));
  expect(res.status).toBe(200);
  return res.body.data.ref_id as string;
}

async function statusOf(t: Tenant, refId: string) {
  const res = await request(app).get('/api/v1/public/payment/transfer/status').set(t.headers).query({ ref_id: refId });
  return res;
}

async function record(t: Tenant, refId: string) {
  const res = await statusOf(t, refId);
  expect(res.status).toBe(200);
  return res.body.data.transaction as { status: string; transaction_date: string; created_at: string };
}

async function advanceTenant(t: Tenant, by: string) {
  const res = await control().post(`/__sandbox/merchants/${t.merchant_id}/clock/advance`).send({ by });
  expect(res.status).toBe(200);
  return res.body as { now: string; follows_sandbox_clock: boolean };
}

const clockOf = async (t: Tenant) =>
  (await control().get(`/__sandbox/merchants/${t.merchant_id}/clock`)).body as { now: string; mode: string; follows_sandbox_clock: boolean };
const sandboxNow = async () => (await control().get('/__sandbox/clock')).body.now as string;

describe('a clock per merchant', () => {
  test('a merchant created with a clock of its own starts where asked; the answer echoes it with its terms', async () => {
    const a = await tenant({ clock: { mode: 'manual', start: '2026-03-01T10:00:00+05:30' } });
    expect(a.clock).toEqual({ merchant_id: a.merchant_id, now: '2026-03-01T10:00:00.000+05:30', mode: 'manual', speed: 0, follows_sandbox_clock: false });
    expect(a).toMatchObject({ balance: 1000000, fees: { '1001': 5, '1002': 2.5, '1003': 25 }, tax_rate_percent: 18, per_transaction_limit: 1000000 });
    const ref = await pay(a, 100);
    expect((await record(a, ref)).created_at).toBe('01/03/2026 10:00:00 AM');
    // The request journal shows its requests at its own time.
    const journal = (await control().get('/__sandbox/requests?limit=5')).body.requests as Array<{
      merchant_id: string | null;
      at: string;
      ref_id: string | null;
    }>;
    expect(journal.find((r) => r.merchant_id === a.merchant_id && r.ref_id === ref)?.at).toBe('2026-03-01T10:00:00.000+05:30');
  });

  test('a merchant without a clock follows the sandbox clock', async () => {
    const a = await tenant();
    expect(a.clock).toMatchObject({ follows_sandbox_clock: true, now: await sandboxNow() });
    await control().post('/__sandbox/clock/advance').send({ by: '1h' });
    expect((await clockOf(a)).now).toBe(await sandboxNow());
  });

  test("advancing one merchant's clock runs only its due items and stamps only its records", async () => {
    const start = '2026-03-01T10:00:00+05:30';
    const a = await tenant({ clock: { mode: 'manual', start } });
    const b = await tenant({ clock: { mode: 'manual', start } });
    const refA = await pay(a, 2002.02); // Pending for 30 min, then Success
    const refB = await pay(b, 2002.02);
    const before = await sandboxNow();
    expect((await advanceTenant(a, '31m')).now).toBe('2026-03-01T10:31:00.000+05:30');
    expect(await record(a, refA)).toMatchObject({ status: 'Success', transaction_date: '2026-03-01 10:30:00' });
    expect(await record(b, refB)).toMatchObject({ status: 'Pending', transaction_date: '2026-03-01 10:00:00' });
    expect((await clockOf(b)).now).toBe('2026-03-01T10:00:00.000+05:30');
    expect(await sandboxNow()).toBe(before);
    // The sandbox's own advance does not move merchants with clocks of their own.
    await control().post('/__sandbox/clock/advance').send({ by: '1d' });
    expect(await record(b, refB)).toMatchObject({ status: 'Pending' });
  });

  test('advancing a follower gives it a manual clock of its own at the sandbox time; the others still follow', async () => {
    const a = await tenant();
    const b = await tenant();
    const refB = await pay(b, 2002.02);
    const at = await sandboxNow();
    const moved = await advanceTenant(a, '2h');
    expect(moved.follows_sandbox_clock).toBe(false);
    expect(Date.parse(moved.now) - Date.parse(at)).toBe(2 * 3600_000);
    expect(await record(b, refB)).toMatchObject({ status: 'Pending' });
    expect((await clockOf(b)).follows_sandbox_clock).toBe(true);
    await control().post('/__sandbox/clock/advance').send({ by: '1h' });
    expect(await record(b, refB)).toMatchObject({ status: 'Success' });
    expect((await clockOf(a)).now).toBe(moved.now);
  });

  test("a follower's due items go with it to its own clock: they run on its advances, never on the sandbox clock's, whose next no longer names them; the move reads only the follower's items", async () => {
    const a = await tenant();
    const b = await tenant();
    const refA = await pay(a, 2002.02); // Pending for 30 minutes, then Success
    await control().post('/__sandbox/clock/advance').send({ by: '20m' });
    const paidB = Date.parse(await sandboxNow());
    const refB = await pay(b, 2002.02);
    // Every read of all the due items (Object.values, keys, entries) is counted from here.
    const scheduler = app.sandbox.store.state.scheduler;
    let scans = 0;
    scheduler.items = new Proxy(scheduler.items, {
      ownKeys(t) {
        scans += 1;
        return Reflect.ownKeys(t);
      },
    });
    expect((await advanceTenant(a, '1m')).follows_sandbox_clock).toBe(false);
    expect(scans).toBe(0);
    expect(await record(a, refA)).toMatchObject({ status: 'Pending' });
    // The sandbox clock's next event is b's settlement, not a's (due 20 minutes sooner).
    const next = await control().post('/__sandbox/clock/next').send();
    expect(next.status).toBe(200);
    expect(Date.parse(next.body.now) - paidB).toBeGreaterThanOrEqual(30 * 60_000);
    expect(await record(b, refB)).toMatchObject({ status: 'Success' });
    expect(await record(a, refA)).toMatchObject({ status: 'Pending' });
    await control().post('/__sandbox/clock/advance').send({ by: '1h' });
    expect(await record(a, refA)).toMatchObject({ status: 'Pending' });
    await advanceTenant(a, '30m');
    expect(await record(a, refA)).toMatchObject({ status: 'Success' });
  });

  test("a follower's next event is its own, not the next of another merchant on the sandbox clock", async () => {
    const a = await tenant();
    const b = await tenant();
    const refA = await pay(a, 2002.02); // Pending for 30 minutes, then Success
    await control().post('/__sandbox/clock/advance').send({ by: '20m' });
    const refB = await pay(b, 2002.02); // due 20 minutes after a's
    const before = Date.parse(await sandboxNow());
    await control().post('/__sandbox/clock/advance').send({ by: '5m' });
    // a's next event is its settlement, 5 minutes on; b's is 25 minutes on.
    const next = await control().post(`/__sandbox/merchants/${b.merchant_id}/clock/next`).send();
    expect(next.status).toBe(200);
    expect(Date.parse(next.body.now) - before).toBeGreaterThanOrEqual(30 * 60_000);
    expect(await record(b, refB)).toMatchObject({ status: 'Success' });
    expect(await record(a, refA)).toMatchObject({ status: 'Pending' });
  });

  test("a follower's answer held on the sandbox clock goes with it to its own clock: its first advance past the hold lets it go", async () => {
    const a = await tenant();
    // 3003.02: the 200 is held for 35 s of the merchant's time, once the payout is made.
    const held = request(app)
      .post('/api/v2/public/payment/transfer')
      .set(a.headers)
      .send(payoutBody({ debit_from: a.account_no, amount: 3003.02, client_ref_id: 'HELDFOLLOWER1' }))
      .then((r) => r);
    for (let i = 0; i < 200; i++) {
      const r = await request(app).get('/api/v1/public/payment/transfer/status').set(a.headers).query({ client_ref_id: 'HELDFOLLOWER1' });
      if (r.status === 200) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    let answered = false;
    void held.then(() => (answered = true));
    try {
      await advanceTenant(a, '10s');
      expect(answered).toBe(false);
      await advanceTenant(a, '30s');
      const timer = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the held answer was not let go')), 5_000).unref());
      expect((await Promise.race([held, timer])).status).toBe(200);
    } finally {
      await app.sandbox.close(); // lets go of a held answer either way
    }
  });

  test('a bad duration is 400, an unknown merchant 404, and a real clock cannot be advanced (409)', async () => {
    const a = await tenant({ clock: { mode: 'real' } });
    expect((await control().post(`/__sandbox/merchants/${a.merchant_id}/clock/advance`).send({ by: 'soon' })).status).toBe(400);
    expect((await control().post('/__sandbox/merchants/NOPE/clock/advance').send({ by: '1h' })).status).toBe(404);
    expect((await control().post(`/__sandbox/merchants/${a.merchant_id}/clock/advance`).send({ by: '1h' })).status).toBe(409);
    expect(
      (
        await control()
          .post('/__sandbox/merchants')
          .send({ clock: { mode: 'sometimes' } })
      ).status,
    ).toBe(400);
    expect(
      (
        await control()
          .post('/__sandbox/merchants')
          .send({ clock: { start: 'yesterday' } })
      ).status,
    ).toBe(400);
  });

  test('webhook bodies and Aadhaar OTP expiry run on the merchant clock', async () => {
    const a = await tenant({ clock: { mode: 'manual', start: '2026-05-01T09:00:00+05:30' } });
    const b = await tenant({ clock: { mode: 'manual', start: '2026-05-01T09:00:00+05:30' } });
    const otp = (t: Tenant) =>
      request(app)
        .post('/api/v1/public/verification/')
        .set(t.headers)
        .send({ verification_type: 'AADHAAR', debit_from: t.account_no, aadhaar: { aadhaar_number: '234567890123' } });
    const complete = (t: Tenant, ref: string) =>
      request(app)
        .post('/api/v1/public/verification/')
        .set(t.headers)
        .send({ verification_type: 'AADHAAR', debit_from: t.account_no, aadhaar: { aadhaar_number: '234567890123', ref_id: ref, otp: '123456' } });
    const refA = (await otp(a)).body.data.verify_response.ref_id as string;
    const refB = (await otp(b)).body.data.verify_response.ref_id as string;
    await advanceTenant(a, '11m');
    expect((await complete(a, refA)).status).toBe(400);
    expect((await complete(b, refB)).status).toBe(200);
  });
});

describe('rate-limit windows reopen on the merchant clock or in real time', () => {
  test("a merchant's window reopens when its clock passes it; another merchant's window is its own", async () => {
    const a = await tenant({ clock: { mode: 'manual' } });
    const b = await tenant({ clock: { mode: 'manual' } });
    const refA = await pay(a, 100);
    const refB = await pay(b, 100);
    for (let i = 0; i < 3; i++) expect((await statusOf(a, refA)).status).toBe(200);
    expect((await statusOf(a, refA)).status).toBe(429);
    expect((await statusOf(b, refB)).status).toBe(200);
    await advanceTenant(b, '2m'); // b's time does not free a's window
    expect((await statusOf(a, refA)).status).toBe(429);
    await advanceTenant(a, '45s');
    expect((await statusOf(a, refA)).headers['retry-after']).toBe('15');
    await advanceTenant(a, '15s');
    expect((await statusOf(a, refA)).status).toBe(200);
  });

  test('a client that waits out Retry-After in real time gets its window back on a manual clock nobody advances', async () => {
    const a = await tenant({ clock: { mode: 'manual' } });
    const refA = await pay(a, 100);
    for (let i = 0; i < 3; i++) await statusOf(a, refA);
    const limited = await statusOf(a, refA);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    const realNow = Date.now();
    const spy = jest.spyOn(Date, 'now').mockReturnValue(realNow + 61_000);
    try {
      expect((await statusOf(a, refA)).status).toBe(200);
    } finally {
      spy.mockRestore();
    }
  });
});

test('on a manual clock, Retry-After is the time left on it even after real time passed: advancing by it always reopens the window', async () => {
  const a = await tenant({ clock: { mode: 'manual' } });
  const refA = await pay(a, 100);
  for (let i = 0; i < 3; i++) await statusOf(a, refA);
  const realNow = Date.now();
  // 25 s of real time, none on the merchant's clock: 35 s left in real time, 60 on the clock.
  const spy = jest.spyOn(Date, 'now').mockReturnValue(realNow + 25_000);
  try {
    const limited = await statusOf(a, refA);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    await request(app)
      .post(`/__sandbox/merchants/${a.merchant_id}/clock/advance`)
      .send({ by: `${limited.headers['retry-after']}s` })
      .expect(200);
    expect((await statusOf(a, refA)).status).toBe(200);
  } finally {
    spy.mockRestore();
  }
});

test('on a sped-up real clock, Retry-After is the real time the window takes to pass on it', async () => {
  app = await testApp({ clock: 'real', speed: 60 });
  const a = await tenant();
  const refA = await pay(a, 100);
  for (let i = 0; i < 3; i++) await statusOf(a, refA);
  const limited = await statusOf(a, refA);
  expect(limited.status).toBe(429);
  expect(limited.headers['retry-after']).toBe('1'); // one sandbox minute is one real second at x60
  await app.sandbox.close();
});

describe('snapshots and reset per merchant', () => {
  test('restore brings back only that merchant: its records, balance, clock and counters; the other merchant is untouched', async () => {
    const a = await tenant({ clock: { mode: 'manual', start: '2026-03-01T10:00:00+05:30' } });
    const b = await tenant({ clock: { mode: 'manual', start: '2026-03-01T10:00:00+05:30' } });
    const kept = await pay(a, 2002.02);
    expect((await control().post(`/__sandbox/merchants/${a.merchant_id}/snapshots`).send({ name: 'one' })).status).toBe(201);
    const gone = await pay(a, 500);
    await advanceTenant(a, '1h');
    const refB = await pay(b, 2002.02);
    await advanceTenant(b, '10m');
    for (let i = 0; i < 3; i++) await statusOf(a, kept);
    expect((await statusOf(a, kept)).status).toBe(429);
    const restored = await control().post(`/__sandbox/merchants/${a.merchant_id}/snapshots/one/restore`).send();
    expect(restored.status).toBe(200);
    expect(restored.body.clock.now).toBe('2026-03-01T10:00:00.000+05:30');
    expect(await record(a, kept)).toMatchObject({ status: 'Pending' });
    expect((await statusOf(a, gone)).body.status).toBe(false);
    const balance = await request(app).get('/api/v1/public/balance/check').set(a.headers).query({ account_no: a.account_no });
    expect(balance.body.data.current_balance).toBeCloseTo(1000000 - 2002.02 - 5 - 0.9, 2);
    // b is as it was: its payout and its clock.
    expect(await record(b, refB)).toMatchObject({ status: 'Pending', created_at: '01/03/2026 10:00:00 AM' });
    expect((await clockOf(b)).now).toBe('2026-03-01T10:10:00.000+05:30');
    // The restored due item still runs on a's clock.
    await advanceTenant(a, '30m');
    expect(await record(a, kept)).toMatchObject({ status: 'Success', transaction_date: '2026-03-01 10:30:00' });
    expect((await control().get(`/__sandbox/merchants/${a.merchant_id}/snapshots`)).body.snapshots.map((s: { name: string }) => s.name)).toEqual(['one']);
  });

  test('reset brings a created merchant back to its creation (same credentials, opening balance, clock start); snapshots stay', async () => {
    const a = await tenant({ balance: 5000, clock: { mode: 'manual', start: '2026-03-01T10:00:00+05:30' } });
    const b = await tenant();
    const refB = await pay(b, 100);
    await pay(a, 100);
    await control().post(`/__sandbox/merchants/${a.merchant_id}/snapshots`).send({ name: 'after-one' });
    await advanceTenant(a, '1d');
    const reset = await control().post(`/__sandbox/merchants/${a.merchant_id}/reset`).send();
    expect(reset.status).toBe(200);
    expect(reset.body.clock.now).toBe('2026-03-01T10:00:00.000+05:30');
    const balance = await request(app).get('/api/v1/public/balance/check').set(a.headers).query({ account_no: a.account_no });
    expect(balance.status).toBe(200);
    expect(balance.body.data.current_balance).toBe(5000);
    expect(await record(b, refB)).toMatchObject({ status: 'Pending' });
    expect((await control().get(`/__sandbox/merchants/${a.merchant_id}/snapshots`)).body.snapshots).toHaveLength(1);
    // The same client_ref_id is free again.
    await pay(a, 100, 'CREFAGAIN');
  });

  test('a fixture merchant resets to its fixtures without touching the other fixture merchant', async () => {
    const demo: Tenant = { merchant_id: 'SBXDEMO0001', account_no: DEMO.van1, headers: demoHeaders };
    const other: Tenant = { merchant_id: 'SBXOTHER0002', account_no: OTHER.van, headers: otherHeaders };
    const before = (await request(app).get('/api/v1/public/balance/check').set(demo.headers).query({ account_no: DEMO.van1 })).body.data.current_balance;
    const refDemo = await pay(demo, 100);
    const refOther = await pay(other, 100);
    const res = await control().post(`/__sandbox/merchants/${demo.merchant_id}/reset`).send();
    expect(res.status).toBe(200);
    expect((await statusOf(demo, refDemo)).body.status).toBe(false);
    expect((await request(app).get('/api/v1/public/balance/check').set(demo.headers).query({ account_no: DEMO.van1 })).body.data.current_balance).toBe(before);
    expect(await record(other, refOther)).toMatchObject({ status: 'Pending' });
    expect((await clockOf(demo)).follows_sandbox_clock).toBe(true);
  });

  test("a restore while another merchant's advance is under way leaves that advance and its clock alone", async () => {
    const receiver = await startReceiver(() => 'hang');
    try {
      const start = '2026-03-01T10:00:00+05:30';
      const a = await tenant({ clock: { mode: 'manual', start } });
      const b = await tenant({ clock: { mode: 'manual', start }, webhook_url: receiver.url });
      await control().post(`/__sandbox/merchants/${a.merchant_id}/snapshots`).send({ name: 'a0' });
      const refB = await pay(b, 100);
      // b's advance waits on its hanging webhook receiver (at most 250 ms) when a is restored.
      const advancing = advanceTenant(b, '1h');
      await receiver.waitFor(1);
      expect((await control().post(`/__sandbox/merchants/${a.merchant_id}/snapshots/a0/restore`).send()).status).toBe(200);
      expect((await advancing).now).toBe('2026-03-01T11:00:00.000+05:30');
      expect((await clockOf(b)).now).toBe('2026-03-01T11:00:00.000+05:30');
      expect(await record(b, refB)).toMatchObject({ status: 'Success', transaction_date: '2026-03-01 10:00:05' });
    } finally {
      await receiver.close();
    }
  });

  test('snapshots of unknown merchants and names: 404; a bad name: 400', async () => {
    const a = await tenant();
    expect((await control().post('/__sandbox/merchants/NOPE/snapshots').send({ name: 'x' })).status).toBe(404);
    expect((await control().post(`/__sandbox/merchants/${a.merchant_id}/snapshots/none/restore`).send()).status).toBe(404);
    expect((await control().post(`/__sandbox/merchants/${a.merchant_id}/snapshots`).send({ name: 'bad name!' })).status).toBe(400);
  });
});

test('concurrent flows: two merchants advancing at once while a third creates payouts see only their own effects', async () => {
  const start = '2026-06-01T09:00:00+05:30';
  const [a, b, c] = await Promise.all([
    tenant({ clock: { mode: 'manual', start } }),
    tenant({ clock: { mode: 'manual', start } }),
    tenant({ clock: { mode: 'manual', start } }),
  ]);
  const refA = await pay(a, 2002.03); // Pending → Unknown after 5 s → Success after 1 h
  const refB = await pay(b, 2002.04); // Pending → Unknown after 5 s → Failed after 1 h
  const flowA = (async () => {
    for (let i = 0; i < 6; i++) await advanceTenant(a, '10s');
  })();
  const flowB = advanceTenant(b, '2h');
  const flowC = Promise.all(Array.from({ length: 12 }, (_, i) => pay(c, 2002.02, `CREFC${i}`)));
  const [, , refsC] = await Promise.all([flowA, flowB, flowC]);
  expect(await record(a, refA)).toMatchObject({ status: 'Unknown', transaction_date: '2026-06-01 09:00:05' });
  expect((await clockOf(a)).now).toBe('2026-06-01T09:01:00.000+05:30');
  expect(await record(b, refB)).toMatchObject({ status: 'Failed', transaction_date: '2026-06-01 10:00:05' });
  expect((await clockOf(b)).now).toBe('2026-06-01T11:00:00.000+05:30');
  for (const ref of refsC) expect(await record(c, ref)).toMatchObject({ status: 'Pending', created_at: '01/06/2026 09:00:00 AM' });
  expect((await clockOf(c)).now).toBe('2026-06-01T09:00:00.000+05:30');
});

describe('in-process handles', () => {
  test('createMerchant() gives a handle with its own advance, snapshot, restore and reset', async () => {
    const sb = await startSandbox({ clock: 'manual' });
    try {
      const a = await sb.createMerchant({ clock: { mode: 'manual', start: '2026-02-01T09:00:00+05:30' } });
      const b = await sb.createMerchant();
      expect(a.clock()).toMatchObject({ now: '2026-02-01T09:00:00.000+05:30', follows_sandbox_clock: false });
      a.snapshot('start');
      await a.advance('24h');
      expect(a.clock().now).toBe('2026-02-02T09:00:00.000+05:30');
      expect(b.clock().follows_sandbox_clock).toBe(true);
      await a.restore('start');
      expect(a.clock().now).toBe('2026-02-01T09:00:00.000+05:30');
      await a.advance('1h');
      await a.reset();
      expect(a.clock().now).toBe('2026-02-01T09:00:00.000+05:30');
      expect(sb.tenant(a.merchantId).accounts).toEqual(a.accounts);
    } finally {
      await sb.stop();
    }
  });
});

describe('merchant clocks are stored', () => {
  const dir = useTempDir();
  test("a merchant's own clock and its due items continue after a restart", async () => {
    const data = `${dir()}/data.json`;
    const first = await createApp({ data, clock: 'manual', logLevel: 'silent', seed: 3 });
    app = first;
    const a = await tenant({ clock: { mode: 'manual', start: '2026-03-01T10:00:00+05:30' } });
    const ref = await pay(a, 2002.02);
    await advanceTenant(a, '10m');
    await first.sandbox.close();
    const sb = await openSandbox({ data, clock: 'manual', logLevel: 'silent' });
    app = await createApp(sb);
    expect((await clockOf(a)).now).toBe('2026-03-01T10:10:00.000+05:30');
    await advanceTenant(a, '20m');
    expect(await record(a, ref)).toMatchObject({ status: 'Success', transaction_date: '2026-03-01 10:30:00' });
    await sb.close();
  });
});
