import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { SandboxApp } from '../src/app.js';
import type { ScenarioFile } from '../src/scenario/schema.js';
import { advanceBy, balance, DEMO, defaultFixtures, demoHeaders, initialize, payoutBody, record, testApp } from './helpers.js';
import { startReceiver } from './receiver.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
let receiver: Receiver;
const apps: SandboxApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.sandbox.close();
  await receiver?.close();
});

async function sandbox(opts: Parameters<typeof testApp>[0] = {}): Promise<SandboxApp> {
  const a = await testApp({ rateLimits: false, webhookUrl: receiver.url, ...opts });
  apps.push(a);
  return a;
}

/** A sandbox on a data file in `dir` whose first webhook attempt failed (500), then stopped: the data file. */
async function firstRunWithPendingDelivery(dir: string): Promise<string> {
  receiver = await startReceiver((_r, n) => (n === 1 ? 500 : 200));
  const data = join(dir, 'db.json');
  const first = await testApp({ data, rateLimits: false, webhookUrl: receiver.url });
  await initialize(first, payoutBody());
  await advanceBy(first, '5s');
  await receiver.waitFor(1);
  await first.sandbox.close();
  return data;
}

function verify(body: string, signature: string | string[] | undefined, secret = DEMO.secret): boolean {
  return signature === `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

function scenarioWith(extra: Partial<ScenarioFile>, rules: ScenarioFile['payouts']['rules'] = []): ScenarioFile {
  return { name: 'webhooks', payouts: { default_timeline: [{ after: '5s', status: 'Success' }], rules }, ...extra };
}

describe('bodies, headers and signature', () => {
  test('a V1 payout sends V1 bodies: { transaction } exactly as the status check shows it', async () => {
    receiver = await startReceiver();
    const app = await sandbox();
    const ref = (await initialize(app, payoutBody(), 'v1')).body.data.ref_id;
    await advanceBy(app, '5s');
    await receiver.waitFor(1);
    const [r] = receiver.received;
    expect(JSON.parse(r.body)).toEqual({ transaction: await record(app, ref) });
    expect(JSON.parse(r.body).transaction.ref_id).toBe(Number(ref));
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toMatch(/^payout-sandbox\/\d+\.\d+\.\d+$/);
    expect(r.headers['x-sandbox-delivery-id']).toMatch(/^whd_\d{8}$/);
    expect(r.headers['x-sandbox-attempt']).toBe('1');
    expect(verify(r.body, r.headers['x-sandbox-signature'])).toBe(true);
  });

  test('a V2 payout sends the status-check success envelope', async () => {
    receiver = await startReceiver();
    const app = await sandbox();
    const ref = (await initialize(app, payoutBody(), 'v2')).body.data.ref_id;
    await advanceBy(app, '5s');
    await receiver.waitFor(1);
    const status = await request(app).get('/api/v1/public/payment/transfer/status').set(demoHeaders).query({ ref_id: ref });
    expect(receiver.bodies()[0]).toEqual(status.body);
    expect(receiver.bodies()[0]).toMatchObject({ success: true, http_code: 200, data: { transaction: { status: 'Success' } } });
  });

  test("the merchant's webhook_version overrides the initialize version; its webhook_url wins over --webhook-url", async () => {
    receiver = await startReceiver();
    const other = await startReceiver();
    const fx = defaultFixtures();
    fx.merchants[0].webhook_url = receiver.url;
    fx.merchants[0].webhook_version = 'v2';
    const app = await sandbox({ fixtures: fx, webhookUrl: other.url });
    await initialize(app, payoutBody(), 'v1');
    await advanceBy(app, '5s');
    await receiver.waitFor(1);
    expect(receiver.bodies()[0].success).toBe(true);
    expect(other.received).toHaveLength(0);
    await other.close();
  });

  test('one delivery per status change, each with the record after that change', async () => {
    receiver = await startReceiver();
    const app = await sandbox();
    await initialize(app, payoutBody({ amount: 2002.05 }));
    await advanceBy(app, '2h');
    await receiver.waitFor(2);
    expect(receiver.bodies().map((b) => [b.transaction.status, b.transaction.transaction_date])).toEqual([
      ['Success', '2026-01-01 09:00:05'],
      ['Failed', '2026-01-01 10:00:05'],
    ]);
  });

  test('no target, no delivery', async () => {
    receiver = await startReceiver();
    const app = await sandbox({ webhookUrl: null });
    await initialize(app, payoutBody());
    await advanceBy(app, '1h');
    expect(app.sandbox.webhooks.list({})).toHaveLength(0);
  });
});

describe('delivery, retries and the outbox', () => {
  test('a failing receiver is retried at 10 s, 1 min, 5 min, 30 min, 2 h (not before), then the delivery is failed', async () => {
    receiver = await startReceiver(() => 500);
    const app = await sandbox();
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await receiver.waitFor(1);
    const gaps = ['10s', '1m', '5m', '30m', '2h'];
    for (let i = 0; i < gaps.length; i++) {
      const ms = { '10s': 10_000, '1m': 60_000, '5m': 300_000, '30m': 1_800_000, '2h': 7_200_000 }[gaps[i]]!;
      await advanceBy(app, `${ms - 1}ms`);
      expect(receiver.received).toHaveLength(i + 1);
      await advanceBy(app, '1ms');
      await receiver.waitFor(i + 2);
      expect(receiver.received[i + 1].headers['x-sandbox-attempt']).toBe(String(i + 2));
    }
    await advanceBy(app, '7d');
    expect(receiver.received).toHaveLength(6);
    const [d] = app.sandbox.webhooks.list({});
    expect(d.state).toBe('failed');
    expect(d.attempts.map((a) => a.status)).toEqual([500, 500, 500, 500, 500, 500]);
    expect(new Set(receiver.received.map((r) => r.headers['x-sandbox-delivery-id'])).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
  });

  test('a 2xx delivers it: never sent again but by an explicit redeliver', async () => {
    receiver = await startReceiver((_r, n) => (n === 1 ? 503 : 204));
    const app = await sandbox();
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await advanceBy(app, '10s');
    await receiver.waitFor(2);
    await advanceBy(app, '1d');
    expect(receiver.received).toHaveLength(2);
    const [d] = app.sandbox.webhooks.list({});
    expect(d.state).toBe('delivered');
    app.sandbox.webhooks.redeliver(d.delivery_id);
    await app.sandbox.scheduler.runDue();
    await receiver.waitFor(3);
    expect(receiver.received[2].headers['x-sandbox-attempt']).toBe('3');
  });

  test('a receiver that never answers is a failed attempt after the timeout, retried on schedule', async () => {
    receiver = await startReceiver((_r, n) => (n === 1 ? 'hang' : 200));
    const app = await sandbox({ scenario: scenarioWith({ webhooks: { timeout: '200ms' } }) });
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    const [d] = app.sandbox.webhooks.list({});
    expect(d.attempts[0]).toMatchObject({ n: 1, status: null, error: 'no answer within 200 ms' });
    await advanceBy(app, '9999ms');
    expect(receiver.received).toHaveLength(1);
    await advanceBy(app, '1ms');
    await receiver.waitFor(2);
    expect(app.sandbox.webhooks.list({})[0].state).toBe('delivered');
  });

  test('a refused connection is a failed attempt too', async () => {
    receiver = await startReceiver();
    const deadUrl = receiver.url;
    await receiver.close();
    const app = await sandbox({ webhookUrl: deadUrl });
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    const [d] = app.sandbox.webhooks.list({});
    expect(d.attempts[0].status).toBeNull();
    expect(d.attempts[0].error).toBe('ECONNREFUSED');
    expect(d.state).toBe('pending');
    receiver = await startReceiver();
  });

  test('the outbox survives a restart with a delivery still pending', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-wh-'));
    try {
      const data = await firstRunWithPendingDelivery(dir);
      const second = await sandbox({ data });
      expect(second.sandbox.webhooks.list({})[0].state).toBe('pending');
      await advanceBy(second, '9s');
      expect(receiver.received).toHaveLength(1);
      await advanceBy(second, '1s');
      await receiver.waitFor(2);
      expect(receiver.received[1].headers['x-sandbox-attempt']).toBe('2');
      expect(second.sandbox.webhooks.list({})[0].state).toBe('delivered');
      await second.sandbox.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a hanging receiver does not hold a manual advance for its time-out; /webhooks/settle waits for the attempt', async () => {
    receiver = await startReceiver((_r, n) => (n === 1 ? 'hang' : 200));
    const app = await sandbox({ scenario: scenarioWith({ webhooks: { timeout: '1500ms' } }) });
    await initialize(app, payoutBody());
    const started = performance.now();
    await advanceBy(app, '5s');
    expect(performance.now() - started).toBeLessThan(1000);
    await receiver.waitFor(1);
    expect(app.sandbox.webhooks.list({})[0].attempts).toHaveLength(0);
    const settled = await request(app).post('/__sandbox/webhooks/settle');
    expect(settled.status).toBe(200);
    expect(settled.body.in_flight).toBe(0);
    const [d] = app.sandbox.webhooks.list({});
    expect(d.attempts[0]).toMatchObject({ n: 1, status: null, error: 'no answer within 1500 ms' });
    expect(d.state).toBe('pending');
    await advanceBy(app, '10s');
    await receiver.waitFor(2);
    expect(app.sandbox.webhooks.list({})[0].state).toBe('delivered');
  });

  test('API latency is unaffected while the receiver hangs', async () => {
    receiver = await startReceiver(() => 'hang');
    const app = await sandbox({ scenario: scenarioWith({ webhooks: { timeout: '4s' } }) });
    await initialize(app, payoutBody());
    const advancing = request(app).post('/__sandbox/clock/advance').send({ by: '5s' });
    const advanced = advancing.then((r) => r);
    await receiver.waitFor(1);
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const res = await balance(app, DEMO.van1);
      expect(res.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(250);
    }
    await receiver.close();
    expect((await advanced).status).toBe(200);
  });
});

describe('webhook chaos', () => {
  test('duplicate: every delivery sent again 1 s after it, same body and delivery id, signed afresh; the copy is a record of its own', async () => {
    receiver = await startReceiver();
    const app = await sandbox({ scenario: scenarioWith({ webhooks: { chaos: { duplicate: 1 } } }) });
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await receiver.waitFor(1);
    expect(receiver.received).toHaveLength(1);
    await advanceBy(app, '1s');
    await receiver.waitFor(2);
    const [first, again] = receiver.received;
    expect(again.body).toBe(first.body);
    expect(again.headers['x-sandbox-delivery-id']).toBe(first.headers['x-sandbox-delivery-id']);
    expect(verify(again.body, again.headers['x-sandbox-signature'])).toBe(true);
    const copy = app.sandbox.webhooks.list({})[0];
    expect(copy.duplicate_of).toBe(first.headers['x-sandbox-delivery-id']);
    expect(copy.delivery_id).not.toBe(copy.duplicate_of);
    expect(copy.attempts[0].kind).toBe('duplicate');
  });

  test("reorder: a payout's deliveries are held until its timeline ends, then sent newest first", async () => {
    receiver = await startReceiver();
    const app = await sandbox({ scenario: scenarioWith({ webhooks: { chaos: { reorder: true } } }) });
    await initialize(app, payoutBody({ remarks: 'sbx:Unknown@5s>Success@1h' }));
    await advanceBy(app, '5s');
    expect(receiver.received).toHaveLength(0);
    await advanceBy(app, '1h');
    await receiver.waitFor(1);
    // Newest first, one second apart.
    expect(receiver.received).toHaveLength(1);
    await advanceBy(app, '1s');
    await receiver.waitFor(2);
    expect(receiver.bodies().map((b) => b.transaction.status)).toEqual(['Success', 'Unknown']);
  });

  test('delay: the first attempt waits', async () => {
    receiver = await startReceiver();
    const app = await sandbox({ scenario: scenarioWith({ webhooks: { chaos: { delay: '30s' } } }) });
    await initialize(app, payoutBody());
    await advanceBy(app, '34999ms');
    expect(receiver.received).toHaveLength(0);
    await advanceBy(app, '1ms');
    await receiver.waitFor(1);
  });

  test('wrong_signature: the signature does not verify', async () => {
    receiver = await startReceiver();
    const app = await sandbox({ scenario: scenarioWith({ webhooks: { chaos: { wrong_signature: 1 } } }) });
    await initialize(app, payoutBody());
    await advanceBy(app, '5s');
    await receiver.waitFor(1);
    const [r] = receiver.received;
    expect(r.headers['x-sandbox-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verify(r.body, r.headers['x-sandbox-signature'])).toBe(false);
  });

  test('per rule: only the payouts a rule decides get its chaos', async () => {
    receiver = await startReceiver();
    const app = await sandbox({
      scenario: scenarioWith({}, [
        { name: 'dupes', match: { client_ref_id_prefix: 'DUP' }, timeline: [{ after: '5s', status: 'Success' }], webhooks: { duplicate: 1 } },
      ]),
    });
    await initialize(app, payoutBody({ client_ref_id: 'DUP000001' }));
    await initialize(app, payoutBody({ client_ref_id: 'ONE000001' }));
    await advanceBy(app, '6s');
    await receiver.waitFor(3);
    const refs = receiver
      .bodies()
      .map((b) => b.transaction.client_ref_id)
      .sort();
    expect(refs).toEqual(['DUP000001', 'DUP000001', 'ONE000001']);
  });
});

test('a data file written when bodies were stored as text still delivers the same bytes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'payout-sandbox-wh-'));
  try {
    const data = await firstRunWithPendingDelivery(dir);
    const doc = JSON.parse(readFileSync(data, 'utf8'));
    for (const d of Object.values(doc.webhook_deliveries) as Array<{ body: unknown }>) d.body = JSON.stringify(d.body);
    writeFileSync(data, JSON.stringify(doc));
    const second = await sandbox({ data });
    expect(typeof second.sandbox.webhooks.list({})[0].body).toBe('object');
    await advanceBy(second, '10s');
    await receiver.waitFor(2);
    expect(receiver.received[1].body).toBe(receiver.received[0].body);
    await second.sandbox.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
